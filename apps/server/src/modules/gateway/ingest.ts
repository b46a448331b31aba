import {
  alarmPayload,
  type CommandPayload,
  type DataPayload,
  DEVICE_LOCATION_WAYS,
  type DeviceTopic,
  dataPayload,
  decodePayload,
  locationPayload,
  statePayload,
} from "@keyway/protocol";
import { and, eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { unstorablePath } from "../../http/storableText.ts";
import type { Clock } from "../../infra/clock.ts";
import { devices } from "../devices/schema.ts";
import { createDeviceAlarms } from "./deviceAlarms.ts";
import { createDeviceLogin, type DeviceIdentity } from "./deviceLogin.ts";
import { createPresence } from "./presence.ts";

export type DeviceIngest = ReturnType<typeof createDeviceIngest>;

/**
 * What the cloud does with devices, whichever broker carries them: who may log in, which
 * topics each may use (deviceLogin.ts), what an uplink message changes, and whether devices
 * are online (presence.ts). Alarms are stored once per (device, alarm id) and the promise
 * resolves only after the row is written (deviceAlarms.ts).
 */
export function createDeviceIngest(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where stored alarms are told ("alarm.stored"). */
  events?: Pick<Events, "publish">;
  /** Queues a data message for the device's project (resolves once written). */
  storeData?: (device: DeviceIdentity, point: DataPayload) => Promise<void>;
  offlineAlarmMinutes?: number;
}) {
  const { db, clock, log } = deps;
  const login = createDeviceLogin({ db });
  const { storeAlarm, clearAlarm } = createDeviceAlarms(deps);
  const presence = createPresence({ ...deps, storeAlarm });

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

  /**
   * A payload with text the database cannot store (a NUL, a lone surrogate) is malformed:
   * written, it would fail its whole batch (other devices' alarms too) and, never
   * acknowledged, come back for ever.
   */
  function decodeStorable<T extends z.core.$ZodType>(
    schema: T,
    payload: Buffer,
  ): z.output<T> | null {
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
      if (opts.trustState && online) await presence.clearOfflineAlarms(device.id, now);
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

  return {
    identify: login.identify,
    onlineCount: presence.onlineCount,
    authenticate: login.authenticate,
    mayPublish: login.mayPublish,
    maySubscribe: login.maySubscribe,
    mayUseClientId: login.mayUseClientId,
    settingsOf,
    setOnline: presence.setOnline,
    handleUplink,
    sweepOffline: presence.sweepOffline,
    touchOnline: presence.touchOnline,
    resetOnline: presence.resetOnline,
  };
}
