import { z } from "zod";
import { IOT_CARD_WARNING } from "./constants.ts";
import { idField, idOrZeroField, pageField } from "./fields.ts";

/**
 * 4G IoT cards (SPEC §1, §2 "IoT card details", §4 "IoT card", §7 "IoT card", §9 "IoT card
 * info lag"). A card is the SIM whose ICCID a device reports in its `state` message; the
 * carrier's figures (state, plan, traffic, expiry) are read by the server every few hours.
 * Paths → request → answer (hwdata). `eid` is the context (0 personal):
 *   POST /api/iotcard/iotCard/getIotCard     iotCardListBody     { list: IotCardView[], total }
 *   GET  /api/v1/iotcard/info                iotCardInfoQuery    IotCardDetail
 *   GET  /api/iotcard/iotCard/qrCode         iotCardQuery        IotCardQr (a QR of the card)
 *   POST /api/v1/iotcard/qrCode              iotCardScanBody     IotCardView (a scanned QR or ICCID)
 *   POST /api/v1/iotcard/alarm/device/log    iotCardLogBody      { list: IotCardWarningView[], total }
 *   POST /api/v1/iotcard/refresh             iotCardQuery        IotCardView (throttled per card)
 *   POST /api/v1/iotcard/traffic             iotCardTrafficBody  IotCardTraffic (data centre)
 */

/** SPEC §4 "IoT card": the states a card can be in. */
export const IOT_CARD_STATES = [
  "unactivated",
  "outOfService",
  "suspended",
  "disconnected",
  "activationPending",
  "working",
  "expired",
  "cancelled",
  "unknown",
  "deleted",
] as const;
export type IotCardState = (typeof IOT_CARD_STATES)[number];

/** The carrier adapters the server can use (config IOT_CARRIER). */
export const IOT_CARRIERS = ["simulator", "onelink"] as const;
export type IotCarrier = (typeof IOT_CARRIERS)[number];

/** Alarm types of the card warnings (stored with the device's alarms). */
export const IOT_CARD_ALARM_TYPES = {
  lowTraffic: "iotCardTraffic",
  expiry: "iotCardExpiry",
} as const;
export type IotCardWarningKind = keyof typeof IOT_CARD_ALARM_TYPES;

/** ICCIDs are 19-20 characters; China Mobile's carry letters in the issuer part. */
export const iccidField = z
  .string({ error: "v.iccid" })
  .trim()
  .regex(/^[0-9A-Za-z]{19,20}$/, { error: "v.iccid" })
  .transform((v) => v.toUpperCase());

const contextEid = idOrZeroField;

const pageSize = pageField.max(100, { error: "v.page" }).default(20);

/** The card list of a context: `blur` matches ICCID, MSISDN, device code or name. */
export const iotCardListBody = z.object({
  eid: contextEid.default(0),
  blur: z.coerce.string().trim().max(50, { error: "v.text" }).default(""),
  state: z.union([z.literal(""), z.enum(IOT_CARD_STATES)], { error: "v.iotCardState" }).optional(),
  page: pageField.default(1),
  pageSize,
});

/** One card by ICCID in a context. */
export const iotCardQuery = z.object({ eid: contextEid.default(0), iccid: iccidField });

/** One card by ICCID or by the device it is in (machineId). */
export const iotCardInfoQuery = z
  .object({
    eid: contextEid.default(0),
    iccid: iccidField.optional(),
    machineId: idField.optional(),
  })
  .refine((v) => v.iccid !== undefined || v.machineId !== undefined, {
    error: "v.iccid",
    path: ["iccid"],
  });

/** What the phone app scanned: the card's QR (a link to the card) or the ICCID bar code. */
export const iotCardScanBody = z.object({
  eid: contextEid.default(0),
  content: z.coerce
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(500, { error: "v.text" }),
});

/** The warning log: of one device (machineId), one card (iccid) or every card of the context. */
export const iotCardLogBody = z.object({
  eid: contextEid.default(0),
  machineId: idField.optional(),
  iccid: iccidField.optional().or(z.literal("").transform(() => undefined)),
  page: pageField.default(1),
  pageSize,
});

/** Data centre traffic: the last `days` days, counted in the viewer's days (utcOffset minutes). */
export const iotCardTrafficBody = z.object({
  eid: contextEid.default(0),
  days: z.coerce.number({ error: "v.id" }).int({ error: "v.id" }).min(1).max(92).default(30),
  utcOffset: z.coerce
    .number({ error: "v.utcOffset" })
    .int({ error: "v.utcOffset" })
    .min(-840, { error: "v.utcOffset" })
    .max(840, { error: "v.utcOffset" })
    .default(0),
});

export type IotCardListQuery = z.input<typeof iotCardListBody>;

// ---- Answers ----

/** A card as lists show it. Traffic is in KB (what carriers report); null when unknown. */
export interface IotCardView {
  iccid: string;
  msisdn: string;
  imsi: string;
  carrier: IotCarrier;
  card_state: IotCardState;
  machine_id: number;
  machine_code: string;
  /** The device's name in the caller's context. */
  machine_name: string;
  plan_name: string;
  total_kb: number | null;
  used_kb: number | null;
  left_kb: number | null;
  /** Used share of the plan, 0-100 (one decimal); null without a plan total. */
  used_percent: number | null;
  /** Plan expiry and first activation (ISO), when the carrier gives them. */
  expire_time: string | null;
  active_time: string | null;
  /** Whole days to the plan expiry (negative once passed). */
  days_left: number | null;
  /** When the carrier was last read successfully (its figures lag 6-12 hours behind). */
  refreshed_at: string | null;
  /**
   * Why the last read failed, "" when it worked: an IotCardReadError code ("unreachable",
   * "invalid", "refused:<carrier status>" or "failed"), never the carrier's own text; clients
   * show it with readErrorOf.
   */
  last_error: string;
  /** Earliest time an on-demand refresh is accepted again (ISO); null: now. */
  refresh_after: string | null;
  low_traffic: 0 | 1;
  expiring: 0 | 1;
}

/** A card warning that became an alarm of its device. */
export interface IotCardWarningView {
  id: number;
  kind: IotCardWarningKind;
  iccid: string;
  machine_id: number;
  machine_code: string;
  machine_name: string;
  level: number;
  content: string;
  time: string;
  cleared: 0 | 1;
  cleared_at: string | null;
  confirmed: 0 | 1;
}

export interface IotCardDetail {
  card: IotCardView;
  /** Readings of the last 30 days, oldest first. */
  history: { time: string; used_kb: number | null; total_kb: number | null; state: IotCardState }[];
  /** The latest warnings of the card. */
  warnings: IotCardWarningView[];
  lag_hours: { min: number; max: number };
}

export interface IotCardQr {
  iccid: string;
  /** What the QR holds: the card's page (the phone app resolves it with POST qrCode). */
  content: string;
  /** PNG data URL. */
  image: string;
}

export interface IotCardTraffic {
  cards: number;
  total_kb: number;
  used_kb: number;
  left_kb: number;
  low_traffic: number;
  expiring: number;
  byState: { state: IotCardState; count: number }[];
  /** Traffic used per day of the range (viewer's days, YYYY-MM-DD), zeros included. */
  byDay: { day: string; used_kb: number }[];
  /** Cards by traffic used this cycle, most first (at most 10). */
  byCard: {
    iccid: string;
    machine_name: string;
    used_kb: number;
    left_kb: number | null;
    total_kb: number | null;
  }[];
  lag_hours: { min: number; max: number };
}

// ---- Rules both sides use ----

/** Low traffic: at most IOT_CARD_WARNING.lowTrafficPercent of the plan left. */
export function isLowTraffic(totalKb: number | null, usedKb: number | null): boolean {
  if (totalKb === null || usedKb === null || totalKb <= 0) return false;
  return ((totalKb - usedKb) / totalKb) * 100 <= IOT_CARD_WARNING.lowTrafficPercent;
}

/** Expiring: the plan ends within IOT_CARD_WARNING.expiryDays (or has ended). */
export function isExpiring(expiresAt: Date | null, now: Date): boolean {
  if (!expiresAt) return false;
  return expiresAt.getTime() - now.getTime() <= IOT_CARD_WARNING.expiryDays * 86_400_000;
}

/** "512 KB", "12.3 MB", "1.50 GB" from KB. */
export function formatTrafficKb(kb: number | null | undefined): string {
  if (kb === null || kb === undefined || !Number.isFinite(kb)) return "-";
  const sign = kb < 0 ? "-" : "";
  const v = Math.abs(kb);
  if (v < 1024) return `${sign}${Math.round(v)} KB`;
  if (v < 1024 * 1024) return `${sign}${(v / 1024).toFixed(1)} MB`;
  return `${sign}${(v / 1024 / 1024).toFixed(2)} GB`;
}

// ---- Read errors ----

/** Kinds of a failed carrier read (the card's last_error, language-neutral). */
export type IotCardReadError = "unreachable" | "invalid" | "refused" | "failed";

/** Splits a last_error code into its kind and the carrier's status code (refusals). */
export function readErrorOf(lastError: string): { kind: IotCardReadError; status: string } | null {
  if (!lastError) return null;
  const [kind, status = ""] = lastError.split(":");
  const known: IotCardReadError[] = ["unreachable", "invalid", "refused", "failed"];
  return {
    kind: known.includes(kind as IotCardReadError) ? (kind as IotCardReadError) : "failed",
    status,
  };
}
