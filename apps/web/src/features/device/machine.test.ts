import type { MachineStateEntry } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import {
  alarmLevelKey,
  formatLatLng,
  hasPosition,
  isOnline,
  machineIconUrl,
  openStreetMapUrl,
  parseLocationWay,
  projectLatLng,
  toIds,
  toStateMap,
  withLiveState,
  withLiveStates,
} from "./machine.ts";

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
