import type { AlarmPayload } from "@keyway/protocol";
import { and, count, eq, inArray, isNotNull, isNull, lt, notExists, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceIdentity } from "./deviceLogin.ts";

/**
 * Whether devices are online, and the cloud's own offline alarms for those that stay away
 * (raised by the sweeps, cleared when the device is back).
 */
export function createPresence(deps: {
  db: Db;
  clock: Clock;
  offlineAlarmMinutes?: number;
  storeAlarm: (device: DeviceIdentity, alarm: AlarmPayload) => Promise<boolean>;
}) {
  const { db, clock, storeAlarm } = deps;
  const offlineAlarmMs = (deps.offlineAlarmMinutes ?? 15) * 60_000;
  /** When this server started following devices (resetOnline): the offline-alarm grace. */
  let startedAt = clock.now();

  /** Back online: the cloud's own offline alarms of the device have ended. */
  async function clearOfflineAlarms(deviceId: number, now: Date) {
    await db
      .update(alarms)
      .set({ clearedAt: now })
      .where(
        and(eq(alarms.deviceId, deviceId), eq(alarms.type, "offline"), isNull(alarms.clearedAt)),
      );
  }

  /**
   * Connections and disconnections arriving together are written together: a reconnect storm
   * (a site's router back, the cloud restarted) is thousands at once. Within a batch the last
   * news of a device wins, as the batches run in arrival order. A device seen online has its
   * offline alarms cleared by the same statement, so no reader sees one without the other.
   */
  const onlineWriter = createBatcher<{ deviceId: number; online: boolean }, void>(
    async (changes) => {
      const latest = new Map(changes.map((c) => [c.deviceId, c.online]));
      const idsOf = (online: boolean) =>
        [...latest].filter(([, o]) => o === online).map(([id]) => id);
      const now = clock.now();
      const back = idsOf(true);
      const gone = idsOf(false);
      if (back.length > 0)
        await db.execute(sql`
          with cleared as (
            update ${alarms} set cleared_at = ${now.toISOString()}
            where ${and(inArray(alarms.deviceId, back), eq(alarms.type, "offline"), isNull(alarms.clearedAt))}
          )
          update ${devices} set online = true, last_seen_at = ${now.toISOString()}
          where ${inArray(devices.id, back)}`);
      if (gone.length > 0)
        await db
          .update(devices)
          .set({ online: false, lastSeenAt: now })
          .where(inArray(devices.id, gone));
      return changes.map(() => undefined);
    },
    1000,
  );

  function setOnline(device: DeviceIdentity, online: boolean): Promise<void> {
    return onlineWriter.submit({ deviceId: device.id, online });
  }

  /**
   * Keeps last seen fresh for the devices online now (run with every sweep), so that after a
   * crash their last-seen time is at most one sweep old.
   */
  async function touchOnline() {
    await db.update(devices).set({ lastSeenAt: clock.now() }).where(eq(devices.online, true));
  }

  /**
   * Raises one offline alarm for each device silent for longer than the offline-alarm time,
   * counted from its last-seen time or this server's start, whichever is later (devices get
   * that long to come back after a restart). A device already alarmed for this absence (its
   * offline alarm still open; a reconnection clears it) is skipped, and the alarm's uid is
   * tied to the last-seen time, so a repeated sweep adds none.
   */
  async function sweepOffline(isConnected: (deviceId: number) => boolean): Promise<number> {
    const now = clock.now().getTime();
    if (now - startedAt.getTime() < offlineAlarmMs) return 0;
    const cutoff = new Date(now - offlineAlarmMs);
    const silent = await db
      .select({ id: devices.id, code: devices.code, lastSeenAt: devices.lastSeenAt })
      .from(devices)
      .where(
        and(
          eq(devices.online, false),
          isNotNull(devices.lastSeenAt),
          lt(devices.lastSeenAt, cutoff),
          notExists(
            db
              .select({ one: sql`1` })
              .from(alarms)
              .where(
                and(
                  eq(alarms.deviceId, devices.id),
                  eq(alarms.type, "offline"),
                  isNull(alarms.clearedAt),
                ),
              ),
          ),
        ),
      );
    const minutes = Math.round(offlineAlarmMs / 60_000);
    let raised = 0;
    for (const device of silent) {
      if (isConnected(device.id)) continue;
      const lastSeen = device.lastSeenAt as Date;
      const since = Math.max(lastSeen.getTime(), startedAt.getTime());
      const stored = await storeAlarm(device, {
        id: `offline-${lastSeen.getTime()}`,
        type: "offline",
        variable: "",
        level: 2,
        content: `Device offline for more than ${minutes} minutes (last seen ${lastSeen.toISOString()})`,
        time: since + offlineAlarmMs,
        timeZone: "UTC",
      });
      if (stored) raised++;
    }
    return raised;
  }

  /**
   * No connection survives a restart: devices start offline. Their last-seen time stays what
   * it was; the offline-alarm clock starts again now (see sweepOffline).
   */
  async function resetOnline() {
    startedAt = clock.now();
    await db.update(devices).set({ online: false }).where(eq(devices.online, true));
  }

  /** Devices online now, on every node (the column the app shows): for /metrics. */
  async function onlineCount(): Promise<number> {
    const [row] = await db.select({ n: count() }).from(devices).where(eq(devices.online, true));
    return row?.n ?? 0;
  }

  return { clearOfflineAlarms, setOnline, touchOnline, sweepOffline, resetOnline, onlineCount };
}
