import { z } from "zod";
import { DAY_MS, PAGE_SIZE } from "./constants.ts";
import { machineCodeField } from "./devices.ts";
import { idField, idOrZeroField, pageField } from "./fields.ts";

/**
 * The alarm centre (SPEC §2 alarm center, §3 Alarm, §6, §7 "Alarms"): a device's alarms and
 * those of every device the caller sees in a context, their life (raised, confirmed,
 * cleared), statistics (alarmKanban) and the device reset (imageReset). Wire names as the
 * SPEC has them; `eid` 0 (or absent) is the personal context.
 */

// ---- Levels and states ----

/** Device alarm levels 0-9 (device protocol) in four named bands: 0 info, 1 minor, 2 major, 3+ critical. */
export const ALARM_LEVEL_KEYS = ["info", "minor", "major", "critical"] as const;
export type AlarmLevelKey = (typeof ALARM_LEVEL_KEYS)[number];
/** The levels of each band, inclusive. */
export const ALARM_LEVEL_RANGES: Record<AlarmLevelKey, readonly [number, number]> = {
  info: [0, 0],
  minor: [1, 1],
  major: [2, 2],
  critical: [3, 9],
};

export function alarmLevelKey(level: number): AlarmLevelKey {
  if (!Number.isFinite(level) || level <= 0) return "info";
  if (level === 1) return "minor";
  if (level === 2) return "major";
  return "critical";
}

/**
 * State filters. An alarm is raised, then confirmed by a user and/or cleared (by the device
 * or a reset), in either order: unconfirmed = not confirmed yet (cleared or not), confirmed,
 * cleared, active = not cleared yet.
 */
export const ALARM_STATES = ["unconfirmed", "confirmed", "cleared", "active"] as const;
export type AlarmStateFilter = (typeof ALARM_STATES)[number];

/** The longest statistics range, in days (one bar per day). */
export const ALARM_KANBAN_MAX_DAYS = 92;
/** Statistics range when none is given: the last 7 days. */
export const ALARM_KANBAN_DEFAULT_DAYS = 7;
/** How many devices the by-device statistics name (the most alarming first). */
export const ALARM_KANBAN_TOP_DEVICES = 10;

// ---- Fields ----

/** 0 (or absent): the personal context; otherwise the enterprise's eid. */
const contextEid = idOrZeroField.default(0);

/** An ISO 8601 date-time with a zone (what `Date.toISOString()` gives), or empty for none. */
const timeBound = z
  .string()
  .trim()
  .transform((v, ctx) => {
    if (v === "") return undefined;
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(v);
    const date = new Date(v);
    if (!ok || Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: "custom", message: "v.alarmTime" });
      return z.NEVER;
    }
    return date;
  })
  .optional();

/** An optional filter; an empty value (a cleared select) is no filter. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());
const levelFilter = optional(z.enum(ALARM_LEVEL_KEYS, { error: "v.alarmLevel" }));
const stateFilter = optional(z.enum(ALARM_STATES, { error: "v.alarmState" }));
const optionalCode = optional(machineCodeField);

function checkRange(
  v: { startTime?: Date; endTime?: Date },
  ctx: z.RefinementCtx,
  maxDays?: number,
) {
  if (!v.startTime || !v.endTime) return;
  const span = v.endTime.getTime() - v.startTime.getTime();
  if (span < 0 || (maxDays !== undefined && span > maxDays * DAY_MS)) {
    ctx.addIssue({ code: "custom", message: "v.alarmRange", path: ["endTime"] });
  }
}

const filterShape = {
  eid: contextEid,
  level: levelFilter,
  state: stateFilter,
  startTime: timeBound,
  endTime: timeBound,
  page: pageField.default(1),
  pageSize: pageField.max(100, { error: "v.page" }).default(PAGE_SIZE.alarms),
};

/** GET /api/v1/devices/alarms {deviceCode, page, pageSize 6}: one device's alarms. */
export const deviceAlarmsQuery = z
  .object({ deviceCode: machineCodeField, ...filterShape })
  .superRefine((v, ctx) => checkRange(v, ctx));

/** POST /api/v1/devices/alarmList: the alarm centre, every device the caller sees in `eid`. */
export const alarmListBody = z
  .object({ deviceCode: optionalCode, ...filterShape })
  .superRefine((v, ctx) => checkRange(v, ctx));

/** PUT /api/v1/devices/alarms: confirm one alarm. */
export const alarmConfirmBody = z.object({ id: idField, eid: contextEid });

/** PUT /api/v1/devices/imageReset: clear (and confirm) every alarm of a device still on. */
export const imageResetBody = z.object({ deviceCode: machineCodeField, eid: contextEid });

/** POST /api/v1/devices/alarmKanban: statistics over a range (default the last 7 days). */
export const alarmKanbanBody = z
  .object({
    eid: contextEid,
    deviceCode: optionalCode,
    level: levelFilter,
    state: stateFilter,
    startTime: timeBound,
    endTime: timeBound,
    /** The viewer's offset from UTC in minutes (UTC+8 is 480): where their days begin. */
    utcOffset: z.coerce
      .number({ error: "v.utcOffset" })
      .int({ error: "v.utcOffset" })
      .min(-840, { error: "v.utcOffset" })
      .max(840, { error: "v.utcOffset" })
      .default(0),
  })
  .superRefine((v, ctx) => checkRange(v, ctx, ALARM_KANBAN_MAX_DAYS));

export type AlarmListQuery = z.input<typeof alarmListBody>;
export type AlarmKanbanQuery = z.input<typeof alarmKanbanBody>;

// ---- Answers ----

/**
 * SPEC §3 Alarm, with the device it came from and its life. `time` is when the device
 * raised it (ISO), `created_at` when it was stored; confirmed/cleared are 0/1 with when and
 * by whom (a name; cleared_by is null when the device cleared it).
 */
export interface AlarmEntry {
  id: number;
  machine_id: number;
  machine_code: string;
  /** The device's name in the caller's list (personal or enterprise). */
  machine_name: string;
  type: string;
  variable: string;
  level: number;
  content: string;
  time: string;
  time_zone: string;
  created_at: string;
  confirmed: 0 | 1;
  confirmed_at: string | null;
  confirmed_by: string | null;
  cleared: 0 | 1;
  cleared_at: string | null;
  cleared_by: string | null;
}

/** What the caller may do with one device's alarms (given when the list names a device). */
export interface AlarmRights {
  /** Confirm one alarm (PUT /api/v1/devices/alarms). */
  confirm: boolean;
  /** Confirm all in one click (POST /api/machine/confirmMacAlarm, SPEC §6). */
  confirmAll: boolean;
  /** Reset the device's alarms (PUT /api/v1/devices/imageReset). */
  reset: boolean;
}

export interface AlarmListResult {
  list: AlarmEntry[];
  total: number;
  /** Present when the query named a device. */
  rights?: AlarmRights;
  machine_id?: number;
}

export interface AlarmKanban {
  /** The range counted (ISO), after defaults. */
  startTime: string;
  endTime: string;
  total: number;
  unconfirmed: number;
  cleared: number;
  byLevel: { level: AlarmLevelKey; count: number }[];
  /** The ALARM_KANBAN_TOP_DEVICES devices with the most alarms, most first. */
  byDevice: { machine_id: number; machine_code: string; machine_name: string; count: number }[];
  /** Every day of the range in the viewer's offset (YYYY-MM-DD), zeros included. */
  byDay: { day: string; count: number }[];
}

export interface AlarmResetResult {
  machine_id: number;
  cleared: number;
  confirmed: number;
}
