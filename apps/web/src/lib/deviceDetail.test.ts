import { describe, expect, it } from "vitest";
import { formatInZone, formatRelative } from "./format.ts";

describe("time helpers", () => {
  const iso = "2025-03-04T05:06:07.000Z";

  it("formats an instant on the device's wall clock", () => {
    expect(formatInZone(iso, "UTC")).toBe("2025-03-04 05:06:07");
    expect(formatInZone(iso, "+08:00")).toBe("2025-03-04 13:06:07");
    expect(formatInZone(iso, "UTC-05:30")).toBe("2025-03-03 23:36:07");
    expect(formatInZone(iso, "Asia/Shanghai")).toBe("2025-03-04 13:06:07");
    expect(formatInZone(null, "UTC")).toBe("-");
  });

  it("says how long ago", () => {
    const now = Date.parse(iso) + 3 * 60_000;
    expect(formatRelative(iso, now)).toBe("3 minutes ago");
    expect(formatRelative(null, now)).toBeUndefined();
  });
});
