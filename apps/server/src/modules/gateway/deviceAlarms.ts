import type { AlarmPayload } from "@keyway/protocol";
import { and, eq, isNull } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { insertUnnest } from "../../db/unnest.ts";
import type { Events } from "../../events.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { alarms } from "../alarms/schema.ts";
import type { DeviceIdentity } from "./deviceLogin.ts";

/**
 * Devices' alarms as they arrive: stored once per (device, alarm id), the promise resolving
 * only after the row is written; a device's `clears` marks one cleared.
 */
export function createDeviceAlarms(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where stored alarms are told ("alarm.stored"). */
  events?: Pick<Events, "publish">;
}) {
  const { db, clock, log } = deps;

  /**
   * A device reports that one of its alarms has ended (`clears`): marked cleared once (a
   * repeat changes nothing); an unknown id is dropped.
   */
  async function clearAlarm(device: DeviceIdentity, alarm: AlarmPayload & { clears: string }) {
    const cleared = await db
      .update(alarms)
      .set({ clearedAt: new Date(alarm.time) })
      .where(
        and(eq(alarms.deviceId, device.id), eq(alarms.uid, alarm.clears), isNull(alarms.clearedAt)),
      )
      .returning({ id: alarms.id });
    if (cleared.length === 0)
      log.info({ device: device.code, clears: alarm.clears }, "alarm clear matched no open alarm");
  }

  type NewAlarm = typeof alarms.$inferInsert;
  /** Alarms arriving together are written in one statement (each still before its PUBACK). */
  const alarmWriter = createBatcher<NewAlarm, boolean>(async (batch) => {
    const rows = await insertUnnest(db, alarms, batch, { onConflictDoNothing: true });
    const stored = new Map(rows.map((row) => [`${row.deviceId}|${row.uid}`, row]));
    for (const row of rows) deps.events?.publish("alarm.stored", row);
    // A retried publish in the same batch as its first copy: only the first one is new.
    return batch.map((a) => stored.delete(`${a.deviceId}|${a.uid}`));
  });

  async function storeAlarm(device: DeviceIdentity, alarm: AlarmPayload): Promise<boolean> {
    return alarmWriter.submit({
      deviceId: device.id,
      uid: alarm.id,
      type: alarm.type,
      variable: alarm.variable,
      level: alarm.level,
      content: alarm.content,
      time: new Date(alarm.time),
      timeZone: alarm.timeZone,
      createdAt: clock.now(),
    });
  }

  return { storeAlarm, clearAlarm };
}
