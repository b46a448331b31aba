import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import { alarms } from "./schema.ts";

/**
 * The marks other modules set on stored alarms, kept here so that only the alarms module
 * writes its table: a confirmation of all of a device's alarms (confirm-all, reset), and
 * "its inbox messages are written" (the message centre, told exactly once).
 */

/** Confirms every alarm of the device not yet confirmed; answers their ids. */
export async function confirmAllOfDevice(db: Db, deviceId: number, userId: number, now: Date) {
  return db
    .update(alarms)
    .set({ confirmedAt: now, confirmedBy: userId })
    .where(and(eq(alarms.deviceId, deviceId), isNull(alarms.confirmedAt)))
    .returning({ id: alarms.id });
}

/**
 * Claims alarms for their inbox messages, in the caller's transaction (the messages commit
 * with the claim): answers the ids not claimed before, so each alarm is told once.
 */
export async function claimForInbox(tx: Db, alarmIds: number[], now: Date): Promise<Set<number>> {
  const claimed = await tx
    .update(alarms)
    .set({ messagedAt: now })
    .where(and(anyOf(alarms.id, alarmIds), isNull(alarms.messagedAt)))
    .returning({ id: alarms.id });
  return new Set(claimed.map((c) => c.id));
}

/** Alarms stored but not yet told (the process stopped in between), oldest first. */
export async function awaitingInbox(db: Db, limit: number) {
  return db
    .select({
      id: alarms.id,
      deviceId: alarms.deviceId,
      content: alarms.content,
      level: alarms.level,
    })
    .from(alarms)
    .where(isNull(alarms.messagedAt))
    .orderBy(alarms.id)
    .limit(limit);
}
