import { describe, expect, it } from "vitest";
import {
  alarmPayload,
  dataPayload,
  decodePayload,
  locationPayload,
  statePayload,
} from "./device.ts";
import { agentHello, tunnelControl } from "./tunnel.ts";

// The rules a device's (or an agent's) messages are held to, at each bound: what a hostile
// or broken device sends past them is dropped (decision 215 rewrote them in zod/mini).
const decode = (schema: Parameters<typeof decodePayload>[0], value: unknown) =>
  decodePayload(schema, JSON.stringify(value));
const alarm = { id: "a1", type: "temp", content: "hot", time: 1 };
const visit = "abcdefghijklmnopqrstuvwxyz";

describe("the device payloads", () => {
  it("take an alarm within its bounds, with its defaults, and refuse one past any", () => {
    expect(decode(alarmPayload, alarm)).toEqual({
      ...alarm,
      variable: "",
      level: 1,
      timeZone: "UTC",
    });
    expect(decode(alarmPayload, { ...alarm, level: 9, id: "x".repeat(64) })).not.toBeNull();
    for (const bad of [
      { ...alarm, id: "" },
      { ...alarm, id: "x".repeat(65) },
      { ...alarm, type: "x".repeat(33) },
      { ...alarm, level: 10 },
      { ...alarm, level: 1.5 },
      { ...alarm, time: 0 },
      { ...alarm, content: "x".repeat(501) },
      { ...alarm, clears: "" },
      { ...alarm, time: undefined },
    ])
      expect(decode(alarmPayload, bad)).toBeNull();
    expect(decodePayload(alarmPayload, "{not json")).toBeNull();
  });

  it("take a place, a state and tag values within bounds, and refuse them past", () => {
    expect(decode(locationPayload, { lat: 90, lng: -180, way: "gps" })).not.toBeNull();
    expect(decode(locationPayload, { lat: 90.1, lng: 0, way: "gps" })).toBeNull();
    expect(decode(locationPayload, { lat: 0, lng: 0, way: "manual" })).toBeNull();
    expect(decode(statePayload, { state: "online", iccid: "x".repeat(32) })).not.toBeNull();
    expect(decode(statePayload, { state: "online", iccid: "x".repeat(33) })).toBeNull();
    expect(decode(statePayload, { state: "away" })).toBeNull();
    const values = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`t${i}`, i]));
    expect(decode(dataPayload, { time: 1, values })).not.toBeNull();
    expect(decode(dataPayload, { time: 1, values: { ...values, t100: 1 } })).toBeNull();
    expect(decode(dataPayload, { time: 1, values: { "": 1 } })).toBeNull();
    expect(decode(dataPayload, { time: 1, values: { t: "x".repeat(257) } })).toBeNull();
    expect(decode(dataPayload, { time: 1, values: { t: [1] } })).toBeNull();
  });
});

describe("the agent's hello and control messages", () => {
  it("take a hello within its bounds and refuse one past any", () => {
    const hello = { target: "127.0.0.1:80", allow: ["127.0.0.1:80"] };
    expect(agentHello.safeParse(hello).data).toEqual({ ...hello, version: "" });
    expect(agentHello.safeParse({ ...hello, allow: Array(1001).fill("h:1") }).success).toBe(false);
    expect(agentHello.safeParse({ ...hello, features: Array(33).fill("x") }).success).toBe(false);
    expect(agentHello.safeParse({ ...hello, vnc: "x".repeat(301) }).success).toBe(false);
  });

  it("take a consent question for a well-formed visit only", () => {
    const ask = {
      t: "consent.ask",
      visit,
      visitor: "Ann",
      kind: "web",
      viewOnly: true,
      timeoutMs: 30_000,
    };
    expect(tunnelControl.safeParse(ask).data).toEqual({ ...ask, account: "" });
    expect(tunnelControl.safeParse({ ...ask, visit: visit.toUpperCase() }).success).toBe(false);
    expect(tunnelControl.safeParse({ ...ask, timeoutMs: 600_001 }).success).toBe(false);
    expect(tunnelControl.safeParse({ ...ask, kind: "shell" }).success).toBe(false);
    expect(tunnelControl.safeParse({ t: "visit.gone", visit }).success).toBe(false);
  });
});
