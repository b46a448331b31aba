import { describe, expect, it } from "vitest";
import { provisionCsv } from "./provisionCsv.ts";

describe("provisionCsv", () => {
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
