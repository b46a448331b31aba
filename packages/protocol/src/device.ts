import * as z from "zod/mini";
import { text } from "./schemaText.ts";

/**
 * The device protocol (ARCHITECTURE "Device protocol"): MQTT topics under
 * `kw/v1/<machineCode>/` and their JSON payloads. Devices authenticate with
 * username = machine code, password = device secret.
 */
export const TOPIC_ROOT = "kw/v1";

export const DEVICE_TOPICS = ["state", "alarm", "location", "data", "cmd"] as const;
export type DeviceTopic = (typeof DEVICE_TOPICS)[number];
/** What a device may publish; `cmd` is the cloud's to the device. */
export const UPLINK_TOPICS: readonly DeviceTopic[] = ["state", "alarm", "location", "data"];

export function deviceTopic(machineCode: string, topic: DeviceTopic): string {
  return `${TOPIC_ROOT}/${machineCode}/${topic}`;
}

export function parseDeviceTopic(
  topic: string,
): { machineCode: string; topic: DeviceTopic } | null {
  const parts = topic.split("/");
  if (parts.length !== 4 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return null;
  const kind = parts[3] as DeviceTopic;
  if (!DEVICE_TOPICS.includes(kind) || !parts[2]) return null;
  return { machineCode: parts[2], topic: kind };
}

/** `state`, retained; the last will publishes `{ state: "offline" }`. */
export const statePayload = z.object({
  state: z.enum(["online", "offline"]),
  model: z.optional(text(64)),
  version: z.optional(text(64)),
  ip: z.optional(text(64)),
  iccid: z.optional(text(32)),
});
export type StatePayload = z.infer<typeof statePayload>;

/**
 * `alarm`, QoS 1. `id` is the device's own id for this alarm: a retried publish with the
 * same id is stored once. A message with `clears` reports that the alarm the device raised
 * with that id has ended (the cloud marks it cleared and stores no new alarm); devices that
 * never send it stay valid.
 */
export const alarmPayload = z.object({
  id: text(64, 1),
  type: text(32, 1),
  variable: z._default(text(64), ""),
  level: z._default(z.int().check(z.gte(0), z.lte(9)), 1),
  content: text(500),
  /** Epoch milliseconds at the device. */
  time: z.int().check(z.positive()),
  /** IANA zone or UTC offset of the device, e.g. "Asia/Shanghai" or "+08:00". */
  timeZone: z._default(text(64), "UTC"),
  /** The id of an earlier alarm of this device that has now cleared. */
  clears: z.optional(text(64, 1)),
});
export type AlarmPayload = z.infer<typeof alarmPayload>;

export const LOCATION_WAYS = ["gps", "base", "ip"] as const;
/** How the cloud places a device: one of the automatic ways, or by hand (`manual`). */
export const DEVICE_LOCATION_WAYS = [...LOCATION_WAYS, "manual"] as const;
export type DeviceLocationWay = (typeof DEVICE_LOCATION_WAYS)[number];

/**
 * The keepalive (seconds) a device must ask for at CONNECT: 0 (never time out) would let a
 * half-open connection look online for ever; above the maximum a dead link goes unnoticed
 * too long. The broker drops a device silent for 1.5 times its keepalive.
 */
export const KEEPALIVE_MIN_SECONDS = 1;
export const KEEPALIVE_MAX_SECONDS = 1200;
export const locationPayload = z.object({
  lat: z.number().check(z.gte(-90), z.lte(90)),
  lng: z.number().check(z.gte(-180), z.lte(180)),
  way: z.enum(LOCATION_WAYS),
  address: z.optional(text(200)),
});
export type LocationPayload = z.infer<typeof locationPayload>;

/** A tag value a device reports: a number, a string, a switch, or null (no reading). */
export const dataValue = z.union([z.number(), text(256), z.boolean(), z.null()]);

/**
 * `data`, QoS 1: tag values read at one moment, forwarded to the reporting server of the
 * project the device belongs to (when it reports). `id`, when given, makes a retried publish
 * count once.
 */
export const dataPayload = z.object({
  id: z.optional(text(64, 1)),
  /** Epoch milliseconds at the device. */
  time: z.int().check(z.positive()),
  values: z
    .record(text(64, 1), dataValue)
    .check(z.refine((values) => Object.keys(values).length <= 100, "at most 100 tags a message")),
});
export type DataPayload = z.infer<typeof dataPayload>;

/**
 * `cmd`: what the cloud asks of a device. `cloudSwitch` and `locationWay` are settings: the
 * cloud sends them when they change and again each time the device subscribes to `cmd` (or,
 * with an external broker, announces `online`), so a device that was away follows them.
 * `locationWay`: report fixes by that way (`manual`: stop reporting, the place is set by hand).
 */
export const commandPayload = z.discriminatedUnion("type", [
  z.object({ type: z.literal("cloudSwitch"), open: z.boolean() }),
  z.object({ type: z.literal("locationWay"), way: z.enum(DEVICE_LOCATION_WAYS) }),
  z.object({ type: z.literal("locationRefresh") }),
  z.object({ type: z.literal("openTunnel"), url: z.string(), target: z.string() }),
  z.object({ type: z.literal("config"), values: z.record(z.string(), z.unknown()) }),
]);
export type CommandPayload = z.infer<typeof commandPayload>;

/** Parses a JSON payload buffer against a schema (zod's or zod/mini's); null when it is not valid. */
export function decodePayload<T extends z.core.$ZodType>(
  schema: T,
  payload: Buffer | Uint8Array | string,
): z.output<T> | null {
  try {
    const parsed = z.safeParse(schema, JSON.parse(payload.toString()));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
