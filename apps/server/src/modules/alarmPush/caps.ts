import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { type AlarmSend, smsDailyCounters } from "./schema.ts";

/** The UTC day of an instant: caps reset at 00:00 UTC of the injected clock. */
export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Counter key of the per-phone cap of a context. */
const phoneCapKey = (eid: number, recipient: string) => `p:${eid}:${recipient}`;

/** Counter key of the per-device cap: a person's (eid 0, the user) or an enterprise's (user 0). */
export const deviceCapKey = (eid: number, userId: number, deviceId: number) =>
  `d:${eid}:${userId}:${deviceId}`;

/** Counts one SMS against a cap unless it is reached: false when it is. */
async function countAgainst(tx: Db, day: string, key: string, cap: number): Promise<boolean> {
  if (cap <= 0) return false;
  const result = await tx.execute(sql`
    insert into ${smsDailyCounters} (day, key, count) values (${day}, ${key}, 1)
    on conflict (day, key) do update set count = ${smsDailyCounters.count} + 1
    where ${smsDailyCounters.count} + 1 <= ${cap}
    returning count`);
  return (result as unknown as { rows: unknown[] }).rows.length === 1;
}

/** Counts an SMS send against its two caps: the one reached, or null when both had room. */
export async function countSms(
  tx: Db,
  day: string,
  send: AlarmSend,
): Promise<"ALARM_SMS_DAILY_LIMIT" | "ALARM_SMS_DEVICE_DAILY_LIMIT" | null> {
  if (!(await countAgainst(tx, day, phoneCapKey(send.eid, send.recipient), send.phoneCap)))
    return "ALARM_SMS_DAILY_LIMIT";
  if (!(await countAgainst(tx, day, send.deviceCapKey, send.deviceCap)))
    return "ALARM_SMS_DEVICE_DAILY_LIMIT";
  return null;
}

/** Gives back the counts of a send that was not sent. */
export async function uncount(tx: Db, send: AlarmSend) {
  if (!send.day) return;
  const keys = [phoneCapKey(send.eid, send.recipient), send.deviceCapKey];
  await tx
    .update(smsDailyCounters)
    .set({ count: sql`greatest(${smsDailyCounters.count} - 1, 0)` })
    .where(and(eq(smsDailyCounters.day, send.day), inArray(smsDailyCounters.key, keys)));
}

/** SMS counted today (the day of `now`) against the per-device cap of a context, per device. */
export async function todayDeviceCounts(
  db: Db,
  now: Date,
  eid: number,
  userId: number,
  deviceIds: number[],
) {
  if (deviceIds.length === 0) return new Map<number, number>();
  const keys = deviceIds.map((id) => deviceCapKey(eid, userId, id));
  const rows = await db
    .select()
    .from(smsDailyCounters)
    .where(and(eq(smsDailyCounters.day, dayOf(now)), inArray(smsDailyCounters.key, keys)));
  return new Map(rows.map((r) => [Number(r.key.split(":")[3]), r.count]));
}
