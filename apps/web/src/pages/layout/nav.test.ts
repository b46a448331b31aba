import { describe, expect, it } from "vitest";
import { PERSONAL_CONTEXT } from "../../store/app.ts";
import { activeEntryKey, entryDeviceType, visibleEntries } from "./nav.tsx";

describe("device navigation", () => {
  const pages = new Set(["/index", "/device", "/safety"]);

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
