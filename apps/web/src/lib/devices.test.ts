import { groupCreateBody, machineAddBody, machineUpdateBody, provisionBody } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { provisionCsv } from "../pages/backManage/provisionCsv.ts";
import { isOnline, machineIconUrl, toIds } from "../pages/devices/machine.ts";
import { activeEntryKey, entryDeviceType, visibleEntries } from "../pages/layout/nav.tsx";
import { enterpriseDevicePath, LANDING_ROUTE, parseDeviceType } from "../paths.ts";
import { PERSONAL_CONTEXT } from "../store/app.ts";
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
