import { groupCreateBody, machineAddBody, machineUpdateBody, provisionBody } from "@keyway/shared";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DELETE_AS_SUCCESS, devicesApi } from "../api/devices.ts";
import { ApiError } from "../api/errors.ts";
import { provisionCsv } from "../pages/backManage/provisionCsv.ts";
import { isOnline, machineIconUrl, toIds } from "../pages/devices/machine.ts";
import { activeEntryKey, entryDeviceType, visibleEntries } from "../pages/layout/nav.tsx";
import { enterpriseDevicePath, LANDING_ROUTE, parseDeviceType } from "../paths.ts";
import { PERSONAL_CONTEXT } from "../store/app.ts";
import { toCsv } from "./csv.ts";
import { zodFieldIssue } from "./zodIssue.ts";

// The device calls over a stand-in transport: what `api.post` answers is up to each test.
const post = vi.hoisted(() => vi.fn());
vi.mock("../api/client.ts", () => ({ api: { post } }));

describe("devicesApi.remove (SPEC §8 delete codes)", () => {
  beforeEach(() => post.mockReset());
  const machine = { machine_id: 42, limit_authority: 3 as const };
  const business = (code: string, msg: string) => new ApiError(msg, "business", code);

  it("sends the id and whether the caller is the Akey", async () => {
    post.mockResolvedValueOnce(null);
    await expect(devicesApi.remove(machine)).resolves.toBeNull();
    expect(post).toHaveBeenCalledWith("/machine/del", { delMachineID: 42, isAkey: 1 });
    post.mockResolvedValueOnce(null);
    await devicesApi.remove({ machine_id: 7, limit_authority: 2 });
    expect(post).toHaveBeenLastCalledWith("/machine/del", { delMachineID: 7, isAkey: 0 });
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

describe("toCsv", () => {
  it("quotes commas, quotes and line breaks and defuses formulas", () => {
    const csv = toCsv(
      ["a", "b"],
      [
        ["x,y", 'say "hi"'],
        ["=1+1", "line\nbreak"],
        [null, 3],
      ],
    );
    expect(csv).toBe('a,b\r\n"x,y","say ""hi"""\r\n\'=1+1,"line\nbreak"\r\n,3');
  });

  it("writes the provisioning result with one row per code", () => {
    const csv = provisionCsv([
      { machineCode: "KW-0001AB", devicePassword: "p1", deviceSecret: "s1", model: "HMI" },
      { machineCode: "KW-0002AB", devicePassword: "p2", deviceSecret: "s2", model: "" },
    ]);
    expect(csv.split("\r\n")).toEqual([
      "machineCode,devicePassword,deviceSecret,model",
      "KW-0001AB,p1,s1,HMI",
      "KW-0002AB,p2,s2,",
    ]);
  });
});

describe("machine helpers", () => {
  it("reads the online state from online or state", () => {
    expect(isOnline({ online: true, state: 0 })).toBe(true);
    expect(isOnline({ online: false, state: 1 })).toBe(true);
    expect(isOnline({ online: false, state: 0 })).toBe(false);
  });

  it("picks the machine's icon, then the icon map, then the default", () => {
    const map = {
      list: [
        { pattern: "[", image: "/bad.png", name: "broken", nameZh: "坏" },
        { pattern: "^HMI", image: "/hmi.png", name: "HMI", nameZh: "触摸屏" },
      ],
      default: { image: "/default.png" },
    };
    const base = { icon: "", model: "", machine_name: "Pump" };
    expect(machineIconUrl({ ...base, icon: "/own.png" }, map)).toBe("/own.png");
    expect(machineIconUrl({ ...base, model: "hmi-7" }, map)).toBe("/hmi.png");
    expect(machineIconUrl(base, map)).toBe("/default.png");
    expect(machineIconUrl(base, null)).toBeUndefined();
  });

  it("turns selected row keys into ids", () => {
    expect(toIds([1, "2", "x", 0])).toEqual([1, 2]);
  });
});

describe("device routes and navigation", () => {
  const pages = new Set(["/index", "/device", "/safety"]);

  it("lands on the personal device list", () => {
    expect(LANDING_ROUTE).toBe("/index?listType=list");
    expect(enterpriseDevicePath(2)).toBe("/device?type=2");
    expect(parseDeviceType("2")).toBe(2);
    expect(parseDeviceType("1")).toBe(1);
    expect(parseDeviceType(null)).toBe(1);
  });

  it("shows the personal entries in the personal context", () => {
    const keys = visibleEntries(pages, { user: null, context: PERSONAL_CONTEXT }).map((e) => e.key);
    expect(keys).toEqual(["index", "safety"]);
  });

  it("shows enterprise and maintenance devices in an enterprise context", () => {
    const context = { eid: 7, name: "Acme", enableProject: 0 as const };
    const entries = visibleEntries(pages, { user: null, context });
    expect(entries.map((e) => e.key)).toEqual(["device-1", "device-2"]);
    expect(entries.map((e) => entryDeviceType(e, context))).toEqual([1, 2]);
    expect(activeEntryKey(entries, "/device", "?type=2")).toBe("device-2");
  });
});

describe("device forms through the shared schemas", () => {
  it("checks the add-device form", () => {
    const ok = { machineName: "Press 7", machineCode: "KW-ABCDE-12345", machinePwd: "secret" };
    expect(zodFieldIssue(machineAddBody, ok, "machineCode")).toBeUndefined();
    expect(zodFieldIssue(machineAddBody, { ...ok, machineCode: "a b" }, "machineCode")).toBe(
      "v.machineCode",
    );
    expect(
      zodFieldIssue(machineAddBody, { ...ok, machineName: "x".repeat(21) }, "machineName"),
    ).toBe("v.machineName");
    expect(zodFieldIssue(machineAddBody, {}, "machinePwd")).toBe("v.required");
  });

  it("limits the remark to 50 characters and groups to 1-10", () => {
    const edit = machineUpdateBody.omit({ updateMachineID: true, updateMachineCode: true });
    const values = { updateMachineName: "Press", updateMachineRemark: "r".repeat(51) };
    expect(zodFieldIssue(edit, values, "updateMachineRemark")).toBe("v.remark");
    expect(zodFieldIssue(groupCreateBody, { name: "Hall with a long name" }, "name")).toBe(
      "v.groupName",
    );
  });

  it("provisions 1-1000 codes", () => {
    expect(zodFieldIssue(provisionBody, { count: 0 }, "count")).toBe("v.count");
    expect(zodFieldIssue(provisionBody, { count: 1001 }, "count")).toBe("v.count");
    expect(zodFieldIssue(provisionBody, { count: 5 }, "count")).toBeUndefined();
  });
});
