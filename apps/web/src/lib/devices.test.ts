import { groupCreateBody, machineAddBody, machineUpdateBody, provisionBody } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { enterpriseDevicePath, LANDING_ROUTE, parseDeviceType } from "../paths.ts";
import { toCsv } from "./csv.ts";
import { zodFieldIssue } from "./zodIssue.ts";

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
});

describe("device routes", () => {
  it("lands on the personal device list", () => {
    expect(LANDING_ROUTE).toBe("/index?listType=list");
    expect(enterpriseDevicePath(2)).toBe("/device?type=2");
    expect(parseDeviceType("2")).toBe(2);
    expect(parseDeviceType("1")).toBe(1);
    expect(parseDeviceType(null)).toBe(1);
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
