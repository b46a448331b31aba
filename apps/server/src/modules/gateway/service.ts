import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:net";
import type { Duplex } from "node:stream";
import {
  type AlarmPayload,
  alarmPayload,
  type CommandPayload,
  decodePayload,
  deviceTopic,
  locationPayload,
  parseDeviceTopic,
  statePayload,
  UPLINK_TOPICS,
} from "@keyway/protocol";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { and, eq, isNotNull, lt, ne } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken } from "../../infra/crypto.ts";
import { type Alarm, alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

interface DeviceIdentity {
  id: number;
  code: string;
}

export type Gateway = ReturnType<typeof createGateway>;

/**
 * The device gateway on an embedded Aedes broker. Devices log in with machine code and
 * device secret and may only publish their own uplink topics and subscribe to their own
 * `cmd`. An alarm is written to the database before the broker acknowledges it (PUBACK),
 * and a retried publish of the same alarm id is stored once. A device is online while it
 * holds at least one connection.
 */
export function createGateway(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  onAlarm?: (alarm: Alarm) => void;
  /** Minutes offline before an offline alarm (OFFLINE_ALARM_MINUTES). */
  offlineAlarmMinutes?: number;
}) {
  const { db, clock, log } = deps;
  const offlineAlarmMs = (deps.offlineAlarmMinutes ?? 15) * 60_000;
  let sweeper: NodeJS.Timeout | undefined;
  const broker = new Aedes({ drainTimeout: 30_000, maxClientsIdLength: 64 });
  const identities = new WeakMap<Client, DeviceIdentity>();
  const connections = new Map<number, number>();
  let tcp: Server | undefined;

  broker.authenticate = (client, username, password, callback) => {
    const refuse = () => {
      const error = new Error("bad machine code or device secret") as AuthenticateError;
      error.returnCode = 4;
      callback(error, false);
    };
    const code = (username ?? "").trim().toUpperCase();
    if (!code || !password) return refuse();
    db.select({ id: devices.id, code: devices.code, secretHash: devices.secretHash })
      .from(devices)
      .where(eq(devices.code, code))
      .limit(1)
      .then(([device]) => {
        const given = Buffer.from(hashToken(password.toString()));
        if (!device || !timingSafeEqual(given, Buffer.from(device.secretHash))) return refuse();
        identities.set(client, { id: device.id, code: device.code });
        callback(null, true);
      })
      .catch((error) => {
        log.error({ err: error }, "device authentication failed");
        refuse();
      });
  };

  broker.authorizeSubscribe = (client, subscription, callback) => {
    const device = identities.get(client);
    if (device && subscription.topic === deviceTopic(device.code, "cmd")) {
      return callback(null, subscription);
    }
    // A negative SUBACK (0x80): the device learns the refusal and stays connected.
    log.warn({ client: client.id, topic: subscription.topic }, "subscription refused");
    callback(null, null);
  };

  broker.authorizePublish = (client, packet, callback) => {
    // A will published after its client is gone arrives without a client; nothing to store.
    if (!client) return callback(null);
    const device = identities.get(client);
    const parsed = parseDeviceTopic(packet.topic);
    if (
      !device ||
      !parsed ||
      parsed.machineCode !== device.code ||
      !UPLINK_TOPICS.includes(parsed.topic)
    ) {
      log.warn({ client: client.id, topic: packet.topic }, "publish refused");
      return callback(new Error(`publish to ${packet.topic} refused`));
    }
    handleUplink(device, parsed.topic, packet.payload as Buffer).then(
      () => callback(null),
      (error) => {
        log.error({ err: error, device: device.code }, "uplink failed");
        callback(error as Error); // not acknowledged: the device will retry
      },
    );
  };

  broker.on("client", (client) => {
    const device = identities.get(client);
    if (!device) return;
    connections.set(device.id, (connections.get(device.id) ?? 0) + 1);
    void setOnline(device, true);
  });

  broker.on("clientDisconnect", (client) => {
    const device = identities.get(client);
    if (!device) return;
    const left = (connections.get(device.id) ?? 1) - 1;
    if (left > 0) connections.set(device.id, left);
    else {
      connections.delete(device.id);
      void setOnline(device, false);
    }
  });

  async function setOnline(device: DeviceIdentity, online: boolean) {
    try {
      await db
        .update(devices)
        .set({ online, lastSeenAt: clock.now() })
        .where(eq(devices.id, device.id));
    } catch (error) {
      log.error({ err: error, device: device.code }, "state update failed");
    }
  }

  async function handleUplink(device: DeviceIdentity, topic: string, payload: Buffer) {
    const now = clock.now();
    if (topic === "alarm") {
      const alarm = decodePayload(alarmPayload, payload);
      if (!alarm) {
        // Acknowledged and dropped: a malformed alarm would otherwise be retried forever.
        log.warn({ device: device.code }, "malformed alarm dropped");
        return;
      }
      await storeAlarm(device, alarm, now);
    } else if (topic === "state") {
      const state = decodePayload(statePayload, payload);
      if (!state) return;
      await db
        .update(devices)
        .set({
          lastSeenAt: now,
          ...(state.model !== undefined && { model: state.model }),
          ...(state.version !== undefined && { version: state.version }),
          ...(state.ip !== undefined && { ip: state.ip }),
          ...(state.iccid !== undefined && { iccid: state.iccid }),
        })
        .where(eq(devices.id, device.id));
    } else if (topic === "location") {
      const location = decodePayload(locationPayload, payload);
      if (!location) return;
      // A manually placed device keeps its place.
      await db
        .update(devices)
        .set({
          lat: location.lat,
          lng: location.lng,
          address: location.address ?? "",
          locationWay: location.way,
          lastSeenAt: now,
        })
        .where(and(eq(devices.id, device.id), ne(devices.locationWay, "manual")));
    } else {
      await db.update(devices).set({ lastSeenAt: now }).where(eq(devices.id, device.id));
    }
  }

  async function storeAlarm(device: DeviceIdentity, alarm: AlarmPayload, now: Date) {
    const [row] = await db
      .insert(alarms)
      .values({
        deviceId: device.id,
        uid: alarm.id,
        type: alarm.type,
        variable: alarm.variable,
        level: alarm.level,
        content: alarm.content,
        time: new Date(alarm.time),
        timeZone: alarm.timeZone,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (row) deps.onAlarm?.(row);
    return Boolean(row);
  }

  /**
   * Raises one offline alarm for each device silent for longer than the offline-alarm time
   * (its uid is tied to the last-seen time, so a sweep repeated after a restart adds none).
   */
  async function sweepOffline(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - offlineAlarmMs);
    const silent = await db
      .select({ id: devices.id, code: devices.code, lastSeenAt: devices.lastSeenAt })
      .from(devices)
      .where(
        and(
          eq(devices.online, false),
          isNotNull(devices.lastSeenAt),
          lt(devices.lastSeenAt, cutoff),
        ),
      );
    let raised = 0;
    for (const device of silent) {
      if (connections.get(device.id)) continue;
      const lastSeen = device.lastSeenAt as Date;
      const minutes = Math.round(offlineAlarmMs / 60_000);
      const stored = await storeAlarm(
        device,
        {
          id: `offline-${lastSeen.getTime()}`,
          type: "offline",
          variable: "",
          level: 2,
          content: `Device offline for more than ${minutes} minutes (last seen ${lastSeen.toISOString()})`,
          time: lastSeen.getTime() + offlineAlarmMs,
          timeZone: "UTC",
        },
        clock.now(),
      );
      if (stored) raised++;
    }
    return raised;
  }

  /** Sends a command to a device (QoS 1); it arrives when the device is subscribed. */
  function sendCommand(machineCode: string, command: CommandPayload): Promise<void> {
    return new Promise((resolve, reject) => {
      broker.publish(
        {
          cmd: "publish",
          topic: deviceTopic(machineCode, "cmd"),
          payload: Buffer.from(JSON.stringify(command)),
          qos: 1,
          retain: false,
          dup: false,
        },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  }

  return {
    broker,
    sendCommand,
    isConnected: (deviceId: number) => (connections.get(deviceId) ?? 0) > 0,
    /** MQTT over a WebSocket (or any duplex stream). */
    handleStream: (stream: Duplex) => broker.handle(stream),
    sweepOffline,
    /**
     * Starts the broker (no network yet: streams and listenTcp feed it). Devices marked
     * online by an earlier run hold no connection here any more: they start offline.
     */
    async start(opts: { sweepEveryMs?: number } = {}) {
      await broker.listen();
      await db.update(devices).set({ online: false }).where(eq(devices.online, true));
      if (opts.sweepEveryMs) {
        sweeper = setInterval(() => {
          sweepOffline().catch((error) => log.error({ err: error }, "offline sweep failed"));
        }, opts.sweepEveryMs);
        sweeper.unref();
      }
    },
    /** The broker's own TCP listener; port 0 picks a free one. Returns the port. */
    async listenTcp(port: number, host = "0.0.0.0"): Promise<number> {
      tcp = createServer(broker.handle);
      await new Promise<void>((resolve, reject) => {
        tcp!.once("error", reject);
        tcp!.listen(port, host, () => resolve());
      });
      const address = tcp.address();
      return typeof address === "object" && address ? address.port : port;
    },
    async close(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      if (tcp) await new Promise<void>((resolve) => tcp!.close(() => resolve()));
    },
  };
}
