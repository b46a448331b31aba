import { z } from "zod";
import { idOrZeroField } from "./fields.ts";

/**
 * The data centre's push statistics (ours; the SPEC lists the records, not the charts):
 *   POST /api/v1/alarm/push/statistics   pushStatsBody   PushStats
 * Personal (eid 0): the caller's own sends and stock. Enterprise: an admin sees the whole
 * enterprise's, a member their own (the sends billed to their allocation); a non-member is
 * refused like the other enterprise calls (NO_MANAGEMENT_ACCESS).
 */

/** Days the statistics cover (today and the days before it). */
export const PUSH_STATS_DAYS = 30;

export const pushStatsBody = z.object({
  eid: idOrZeroField.default(0),
  /** The viewer's offset from UTC in minutes (UTC+8 is 480): days are counted in theirs. */
  utcOffset: z.coerce
    .number({ error: "v.utcOffset" })
    .int({ error: "v.utcOffset" })
    .min(-840, { error: "v.utcOffset" })
    .max(840, { error: "v.utcOffset" })
    .default(0),
});

/** One day: sends delivered and not delivered, per channel, and the SMS stock it used. */
export interface PushStatsDay {
  /** YYYY-MM-DD in the viewer's offset. */
  day: string;
  smsSent: number;
  /** Refused by the provider, or stopped by a daily cap or an empty stock. */
  smsFailed: number;
  emailSent: number;
  emailFailed: number;
  /** SMS billed that day (a long SMS is several). */
  smsUsed: number;
}

export interface PushStats {
  eid: number;
  /** "mine": the caller's own sends; "enterprise": every send of the enterprise (admin). */
  scope: "mine" | "enterprise";
  byDay: PushStatsDay[];
  totals: Omit<PushStatsDay, "day">;
  /** The stock now: what is left, and what was used in all. */
  stock: { balance: number; used: number };
}
