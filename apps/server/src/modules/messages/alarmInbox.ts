import type { PushMessage } from "@keyway/protocol";
import { MESSAGE_TYPE } from "@keyway/shared";
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { awaitingInbox, claimForInbox } from "../alarms/marks.ts";
import { devices } from "../devices/schema.ts";
import type { Permissions } from "../permissions/service.ts";
import { toPushMessage } from "./pushEvents.ts";
import { messages } from "./schema.ts";
import type { MessageService } from "./service.ts";

interface RaisedAlarm {
  id: number;
  deviceId: number;
  content: string;
  level?: number;
}

/**
 * Stored alarms become inbox messages and live pushes for everyone on each device who
 * takes alarms (the permissions module's `audience`), each alarm exactly once.
 */
export function createAlarmInbox(deps: {
  db: Db;
  clock: Clock;
  push: (userId: number, message: PushMessage) => void;
  permissions: Pick<Permissions, "audience">;
  write: MessageService["write"];
}) {
  const { db, clock, write } = deps;

  /** Unread inbox totals of several users in one query. */
  async function unreadTotals(userIds: number[]): Promise<Map<number, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await db
      .select({ userId: messages.userId, n: count() })
      .from(messages)
      .where(
        and(inArray(messages.userId, userIds), eq(messages.box, "inbox"), isNull(messages.readAt)),
      )
      .groupBy(messages.userId);
    return new Map(rows.map((r) => [r.userId, r.n]));
  }

  /**
   * Alarms the gateway stored become inbox messages for everyone on each device who takes
   * alarms: personal members whose alarm level is on (visitors start without) and the
   * enterprise members of its lists. A batch costs the same few queries as one alarm.
   */
  async function alarmsRaised(batch: RaisedAlarm[]): Promise<void> {
    if (batch.length === 0) return;
    const deviceIds = [...new Set(batch.map((a) => a.deviceId))];
    // Per device: who is told, under the name they gave the device.
    const [recipients, deviceRows] = await Promise.all([
      deps.permissions.audience(deviceIds),
      db
        .select({ id: devices.id, code: devices.code })
        .from(devices)
        .where(anyOf(devices.id, deviceIds)),
    ]);
    const codes = new Map(deviceRows.map((d) => [d.id, d.code]));
    const told = await db.transaction(async (tx) => {
      // Claiming the alarms and writing their messages commit together: each is told once.
      const claimedIds = await claimForInbox(
        tx,
        batch.map((a) => a.id),
        clock.now(),
      );
      const list = batch.filter((a) => claimedIds.has(a.id) && codes.has(a.deviceId));
      await write(
        list.flatMap((alarm) =>
          [...(recipients.get(alarm.deviceId) ?? [])].map(([userId, name]) => ({
            userId,
            box: "inbox" as const,
            type: MESSAGE_TYPE.alarm,
            deviceId: alarm.deviceId,
            alarmId: alarm.id,
            content: alarm.content,
            params: { device: name || (codes.get(alarm.deviceId) ?? "") },
          })),
        ),
        tx,
      );
      return list;
    });
    if (told.length === 0) return;
    const totals = await unreadTotals([
      ...new Set(told.flatMap((a) => [...(recipients.get(a.deviceId)?.keys() ?? [])])),
    ]);
    for (const alarm of told) {
      const deviceCode = codes.get(alarm.deviceId) ?? "";
      for (const [userId, name] of recipients.get(alarm.deviceId) ?? []) {
        deps.push(
          userId,
          toPushMessage({
            kind: "inform",
            of: "alarm",
            deviceCode,
            deviceId: alarm.deviceId,
            totalUnreadMsg: totals.get(userId) ?? 0,
            alarmId: alarm.id,
            level: alarm.level,
            content: alarm.content,
            deviceName: name || deviceCode,
          }),
        );
      }
    }
  }

  // Up to 1,000 alarms a batch: a batch costs the same few round trips whatever its size, so
  // a burst is told in a few large batches instead of queueing behind many small ones (the
  // live pop-up waits for its batch: docs/architecture/alarms.md).
  const alarmBatcher = createBatcher<RaisedAlarm, void>(async (batch) => {
    await alarmsRaised(batch);
    return batch.map(() => undefined);
  }, 1000);

  /** One stored alarm; those arriving together are told in one batch. */
  function alarmRaised(alarm: RaisedAlarm): Promise<void> {
    return alarmBatcher.submit(alarm);
  }

  /** Alarms stored but not yet told (the process stopped in between): told now, oldest first. */
  async function catchUpAlarms(limit = 500): Promise<number> {
    const pending = await awaitingInbox(db, limit);
    for (let i = 0; i < pending.length; i += 100) await alarmsRaised(pending.slice(i, i + 100));
    return pending.length;
  }

  return { alarmRaised, catchUpAlarms };
}
