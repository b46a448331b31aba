import { API } from "@keyway/shared";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DELETE_AS_SUCCESS, devicesApi } from "./devices.ts";
import { ApiError } from "./errors.ts";

// The device calls over a stand-in transport: what `request` answers is up to each test.
const post = vi.hoisted(() => vi.fn());
vi.mock("./client.ts", () => ({ request: post }));

describe("devicesApi.remove (SPEC §8 delete codes)", () => {
  beforeEach(() => post.mockReset());
  const machine = { machine_id: 42, limit_authority: 3 as const };
  const business = (code: string, msg: string) => new ApiError(msg, "business", code);

  it("sends the id and whether the caller is the Akey", async () => {
    post.mockResolvedValueOnce(null);
    await expect(devicesApi.remove(machine)).resolves.toBeNull();
    expect(post).toHaveBeenCalledWith(API.devices.remove, { delMachineID: 42, isAkey: 1 });
    post.mockResolvedValueOnce(null);
    await devicesApi.remove({ machine_id: 7, limit_authority: 2 });
    expect(post).toHaveBeenLastCalledWith(API.devices.remove, { delMachineID: 7, isAkey: 0 });
  });

  it("treats 040103010 and 04010307 as success", async () => {
    expect(DELETE_AS_SUCCESS).toEqual(["040103010", "04010307"]);
    post.mockRejectedValueOnce(business("040103010", "Device already deleted"));
    await expect(devicesApi.remove(machine)).resolves.toBeNull();
    post.mockRejectedValueOnce(business("04010307", "Device already unbound"));
    await expect(devicesApi.remove(machine)).resolves.toBeNull();
  });

  it("still fails on any other code", async () => {
    post.mockRejectedValueOnce(business("04012201", "No permission to operate"));
    await expect(devicesApi.remove(machine)).rejects.toThrow("No permission to operate");
    post.mockRejectedValueOnce(new ApiError("Server Error", "transport", null, 500));
    await expect(devicesApi.remove(machine)).rejects.toThrow("Server Error");
  });
});
