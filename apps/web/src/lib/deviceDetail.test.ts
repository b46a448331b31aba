import type { MachineStateEntry } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { manualLocationForm } from "../pages/devices/locationForm.ts";
import {
  alarmLevelKey,
  formatLatLng,
  hasPosition,
  openStreetMapUrl,
  parseLocationWay,
  projectLatLng,
  toStateMap,
  withLiveState,
  withLiveStates,
} from "../pages/devices/machine.ts";
import { formatInZone, formatRelative } from "./format.ts";
import { zodFieldIssue } from "./zodIssue.ts";

const entry = (id: number, online: boolean): MachineStateEntry => ({
  machine_id: id,
  machine_code: `KW-${id}`,
  state: online ? 1 : 0,
  online,
  last_seen: "2025-01-01T00:00:00.000Z",
});

describe("live state", () => {
  const rows = [
    { machine_id: 1, online: false, state: 0 as const, name: "a" },
    { machine_id: 2, online: true, state: 1 as const, name: "b" },
    { machine_id: 3, online: false, state: 0 as const, name: "c" },
  ];

  it("applies polled states and keeps unchanged rows (and the array) identical", () => {
    const states = toStateMap({ list: [entry(1, true), entry(2, true)] });
    const next = withLiveStates(rows, states);
    expect(next).not.toBe(rows);
    expect(next[0]).toEqual({ ...rows[0], online: true, state: 1 });
    expect(next[1]).toBe(rows[1]);
    expect(next[2]).toBe(rows[2]);
    expect(withLiveStates(rows, toStateMap({ list: [entry(2, true)] }))).toBe(rows);
    expect(withLiveStates(rows, undefined)).toBe(rows);
  });

  it("turns an older state-1 payload offline", () => {
    const old = { machine_id: 4, online: false, state: 1 as const };
    expect(withLiveState(old, toStateMap({ list: [entry(4, false)] }))).toEqual({
      machine_id: 4,
      online: false,
      state: 0,
    });
  });

  it("tolerates a missing list", () => {
    expect(toStateMap({ list: null }).size).toBe(0);
  });
});

describe("alarms and location helpers", () => {
  it("maps alarm levels", () => {
    expect([0, 1, 2, 3, 9, -1].map(alarmLevelKey)).toEqual([
      "info",
      "minor",
      "major",
      "critical",
      "critical",
      "info",
    ]);
  });

  it("projects lat/lng onto the grid, clamped", () => {
    expect(projectLatLng(0, 0, 360, 180)).toEqual({ x: 180, y: 90 });
    expect(projectLatLng(90, -180, 360, 180)).toEqual({ x: 0, y: 0 });
    expect(projectLatLng(-100, 200, 360, 180)).toEqual({ x: 360, y: 180 });
  });

  it("builds the OpenStreetMap link and formats coordinates", () => {
    expect(openStreetMapUrl(31.2304, 121.4737)).toBe(
      "https://www.openstreetmap.org/?mlat=31.230400&mlon=121.473700#map=14/31.230400/121.473700",
    );
    expect(formatLatLng(-1.5, 2)).toBe("-1.500000, 2.000000");
  });

  it("reads ways and positions", () => {
    expect(parseLocationWay("base")).toBe("base");
    expect(parseLocationWay("satellite")).toBeUndefined();
    expect(hasPosition({ lat: 0, lng: 0 })).toBe(true);
    expect(hasPosition({ lat: null, lng: 3 })).toBe(false);
  });
});

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

describe("manual location form", () => {
  it("requires lat and lng in range and coerces text", () => {
    expect(zodFieldIssue(manualLocationForm, { lat: "", lng: "1" }, "lat")).toBe("v.required");
    expect(zodFieldIssue(manualLocationForm, { lat: "91", lng: "1" }, "lat")).toBe("v.latLng");
    expect(zodFieldIssue(manualLocationForm, { lat: "1", lng: "abc" }, "lng")).toBe("v.latLng");
    expect(manualLocationForm.parse({ lat: " 31.23 ", lng: "-121.5", address: " X " })).toEqual({
      lat: 31.23,
      lng: -121.5,
      address: "X",
    });
  });
});
