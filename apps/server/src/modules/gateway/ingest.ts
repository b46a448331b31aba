import { timingSafeEqual } from "node:crypto";
import {
  type AlarmPayload,
  alarmPayload,
  type CommandPayload,
  type DataPayload,
  DEVICE_LOCATION_WAYS,
  type DeviceTopic,
  dataPayload,
  decodePayload,
  deviceTopic,
  locationPayload,
  parseDeviceTopic,
  statePayload,
  UPLINK_TOPICS,
} from "@keyway/protocol";
import { and, count, eq, inArray, isNotNull, isNull, lt, notExists, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { Db } from "../../db/client.ts";
import { isStorableText, unstorablePath } from "../../http/storableText.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken } from "../../infra/crypto.ts";
import { type Alarm, alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

export interface DeviceIdentity {
  id: number;
  code: string;
}

export type DeviceIngest = ReturnType<typeof createDeviceIngest>;

/**
 * What the cloud does with devices, whichever broker carries them: who may log in, which
 * topics each may use, and what an uplink message changes. Alarms are stored once per
 * (device, alarm id) and the promise resolves only after the row is written.
 */
export function createDeviceIngest(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  onAlarm?: (alarm: Alarm) => void;
  /** Queues a data message for the device's project (resolves once written). */
  storeData?: (device: DeviceIdentity, point: DataPayload) => Promise<void>;
  offlineAlarmMinutes?: number;
}) {
  const { db, clock, log } = deps;
  const offlineAlarmMs = (deps.offlineAlarmMinutes ?? 15) * 60_000;
  /** When this server started following devices (resetOnline): the offline-alarm grace. */
  let startedAt = clock.now();

  async function identify(code: string): Promise<DeviceIdentity | null> {
    if (!isStorableText(code)) return null;
    const [device] = await db
      .select({ id: devices.id, code: devices.code })
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
    return device ?? null;
  }

  async function authenticate(code: string | undefined, secret: string | undefined) {
    // A NUL in the code (MQTT CONNECT, the tunnel's Basic credentials) names no device; sent
    // to the database it would be an error, not a refusal.
    if (!code || !secret || !isStorableText(code)) return null;
    const [device] = await db
      .select({ id: devices.id, code: devices.code, secretHash: devices.secretHash })
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
    const given = Buffer.from(hashToken(secret));
    if (!device || !timingSafeEqual(given, Buffer.from(device.secretHash))) return null;
    return { id: device.id, code: device.code };
  }

  function mayPublish(device: DeviceIdentity, topic: string): DeviceTopic | null {
    const parsed = parseDeviceTopic(topic);
    if (!parsed || parsed.machineCode !== device.code || !UPLINK_TOPICS.includes(parsed.topic))
      return null;
    return parsed.topic;
  }

  function maySubscribe(device: DeviceIdentity, topic: string): boolean {
    return topic === deviceTopic(device.code, "cmd");
  }

  /**
   * The MQTT client ids a device may use with a broker that cannot rename them (the external
   * broker's auth hook): its machine code, `<code>-anything`, or none (the broker picks one).
   * Another device's id would let it take over (disconnect) that device's session.
   */
  function mayUseClientId(device: DeviceIdentity, clientId: string | undefined): boolean {
    const id = (clientId ?? "").toUpperCase();
    return id === "" || id === device.code || id.startsWith(`${device.code}-`);
  }

  /** The settings a device follows, sent on every (re)connection: see `commandPayload`. */
  async function settingsOf(device: DeviceIdentity): Promise<CommandPayload[]> {
    const [row] = await db
      .select({ cloudService: devices.cloudService, locationWay: devices.locationWay })
      .from(devices)
      .where(eq(devices.id, device.id))
      .limit(1);
    if (!row) return [];
    const way = DEVICE_LOCATION_WAYS.find((w) => w === row.locationWay) ?? "gps";
    return [
      { type: "cloudSwitch", open: row.cloudService },
      { type: "locationWay", way },
    ];
  }

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
    const rows = await db.insert(alarms).values(batch).onConflictDoNothing().returning();
    const stored = new Map(rows.map((row) => [`${row.deviceId}|${row.uid}`, row]));
    for (const row of rows) deps.onAlarm?.(row);
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

  /**
   * A payload with text the database cannot store (a NUL, a lone surrogate) is malformed:
   * written, it would fail its whole batch (other devices' alarms too) and, never
   * acknowledged, come back for ever.
   */
  function decodeStorable<T extends z.ZodType>(schema: T, payload: Buffer): z.infer<T> | null {
    const decoded = decodePayload(schema, payload);
    return decoded !== null && unstorablePath(decoded) === undefined ? decoded : null;
  }

  /**
   * One uplink message. `trustState`: with an external broker the retained state and the
   * last will are the only news of (dis)connection, so `state` decides online.
   */
  async function handleUplink(
    device: DeviceIdentity,
    topic: DeviceTopic,
    payload: Buffer,
    opts: { trustState?: boolean } = {},
  ) {
    const now = clock.now();
    if (topic === "alarm") {
      const alarm = decodeStorable(alarmPayload, payload);
      // Acknowledged and dropped: a malformed alarm would otherwise be retried forever.
      if (!alarm) return log.warn({ device: device.code }, "malformed alarm dropped");
      if (alarm.clears) await clearAlarm(device, { ...alarm, clears: alarm.clears });
      else await storeAlarm(device, alarm);
    } else if (topic === "data") {
      const point = decodeStorable(dataPayload, payload);
      if (!point) return log.warn({ device: device.code }, "malformed data dropped");
      await deps.storeData?.(device, point);
    } else if (topic === "state") {
      const state = decodeStorable(statePayload, payload);
      if (!state) return;
      const online = state.state === "online";
      const changes = {
        // A retained `offline` read again after a restart is old news: last seen stays.
        ...((online || !opts.trustState) && { lastSeenAt: now }),
        ...(opts.trustState && online && { online: true }),
        ...(state.model !== undefined && { model: state.model }),
        ...(state.version !== undefined && { version: state.version }),
        ...(state.ip !== undefined && { ip: state.ip }),
        ...(state.iccid !== undefined && { iccid: state.iccid }),
      };
      if (Object.keys(changes).length > 0)
        await db.update(devices).set(changes).where(eq(devices.id, device.id));
      if (opts.trustState && online) await clearOfflineAlarms(device.id, now);
      if (opts.trustState && !online)
        await db
          .update(devices)
          .set({ online: false, lastSeenAt: now })
          .where(and(eq(devices.id, device.id), eq(devices.online, true)));
    } else if (topic === "location") {
      const location = decodeStorable(locationPayload, payload);
      if (!location) return;
      // The way is the user's choice (location service), never the device's: a fix by another
      // way (sent before the device learnt its way) and any fix of a device placed by hand
      // are dropped.
      const placed = await db
        .update(devices)
        .set({
          lat: location.lat,
          lng: location.lng,
          address: location.address ?? "",
          lastSeenAt: now,
        })
        .where(and(eq(devices.id, device.id), eq(devices.locationWay, location.way)))
        .returning({ id: devices.id });
      if (placed.length === 0)
        log.info({ device: device.code, way: location.way }, "location by another way dropped");
    } else {
      await db.update(devices).set({ lastSeenAt: now }).where(eq(devices.id, device.id));
    }
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

  return {
    identify,
    onlineCount,
    authenticate,
    mayPublish,
    maySubscribe,
    mayUseClientId,
    settingsOf,
    setOnline,
    handleUplink,
    sweepOffline,
    touchOnline,
    resetOnline,
  };
}
