import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import {
  type CommandPayload,
  type DataPayload,
  decodePayload,
  deviceTopic,
  KEEPALIVE_MAX_SECONDS,
  KEEPALIVE_MIN_SECONDS,
  parseDeviceTopic,
  statePayload,
  TOPIC_ROOT,
} from "@keyway/protocol";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import type { FastifyBaseLogger } from "fastify";
import mqtt, { type MqttClient } from "mqtt";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Alarm } from "../alarms/schema.ts";
import { createDeviceIngest, type DeviceIdentity, type DeviceIngest } from "./ingest.ts";

export type Gateway = ReturnType<typeof createGateway>;

interface Transport {
  start(): Promise<void>;
  sendCommand(machineCode: string, command: CommandPayload): Promise<void>;
  isConnected(deviceId: number): boolean;
  /** Whether devices can reach the server through the broker now (readiness). */
  brokerUp(): boolean;
  handleStream?(stream: Duplex): void;
  listenTcp?(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The device gateway: the embedded Aedes broker by default, or, with MQTT_URL, a client of
 * an external broker (EMQX, Mosquitto). The rules are the same either way (ingest.ts).
 */
export function createGateway(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  onAlarm?: (alarm: Alarm) => void;
  storeData?: (device: DeviceIdentity, point: DataPayload) => Promise<void>;
  offlineAlarmMinutes?: number;
  /** An external broker; unset: the embedded one. */
  mqttUrl?: string;
  /**
   * This node's HTTP port: with the host name it makes the node's own client id at the
   * external broker, so that several nodes on one host keep a session each.
   */
  nodePort?: number;
}) {
  const ingest = createDeviceIngest(deps);
  const transport = deps.mqttUrl
    ? externalBroker(deps.mqttUrl, ingest, deps.log, deps.nodePort ?? 0)
    : embeddedBroker(ingest, deps.log);
  const serverLogin = brokerLogin(deps.mqttUrl);
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = async () => {
    await ingest.touchOnline();
    return ingest.sweepOffline(transport.isConnected);
  };

  return {
    ingest,
    external: Boolean(deps.mqttUrl),
    sendCommand: (code: string, command: CommandPayload) => transport.sendCommand(code, command),
    isConnected: (deviceId: number) => transport.isConnected(deviceId),
    /** The embedded broker is running, or the link to the external one is up (/readyz). */
    brokerUp: () => transport.brokerUp(),
    sweepOffline: sweep,
    /**
     * Whether a broker-hook request comes from the external broker: it must present the
     * server's own broker login (MQTT_URL's user:password) as HTTP Basic. Without an external
     * broker, or without a login in MQTT_URL, nothing may call the hooks.
     */
    isHookCaller(authorization: string | undefined): boolean {
      if (!serverLogin || !authorization?.startsWith("Basic ")) return false;
      const given = Buffer.from(authorization.slice(6).trim(), "base64");
      const expected = Buffer.from(`${serverLogin.username}:${serverLogin.password}`);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    /** The server's own login at the external broker: the hooks answer it as superuser. */
    isServerLogin(username: string | undefined, password: string | undefined): boolean {
      if (!serverLogin || username === undefined || password === undefined) return false;
      const a = Buffer.from(`${username}:${password}`);
      const b = Buffer.from(`${serverLogin.username}:${serverLogin.password}`);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    serverUsername: serverLogin?.username,
    /** MQTT over a WebSocket (embedded broker only). */
    handleStream(stream: Duplex) {
      if (!transport.handleStream) return stream.destroy();
      transport.handleStream(stream);
    },
    async start(opts: { sweepEveryMs?: number } = {}) {
      await ingest.resetOnline();
      await transport.start();
      if (opts.sweepEveryMs) {
        sweeper = setInterval(() => {
          sweep().catch((error) => deps.log.error({ err: error }, "offline sweep failed"));
        }, opts.sweepEveryMs);
        sweeper.unref();
      }
    },
    /** The embedded broker's TCP listener (port 0 picks one); 0 with an external broker. */
    listenTcp: (port: number, host = "0.0.0.0") =>
      transport.listenTcp?.(port, host) ?? Promise.resolve(0),
    async close() {
      if (sweeper) clearInterval(sweeper);
      await transport.close();
    },
  };
}

/** The user and password in an mqtt:// URL, when it has them. */
function brokerLogin(url: string | undefined): { username: string; password: string } | null {
  if (!url) return null;
  const parsed = new URL(url);
  if (!parsed.username || !parsed.password) return null;
  return {
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

/**
 * Embedded Aedes. Alarms are stored inside authorizePublish, so PUBACK leaves only after the
 * row is written; a device is online while it holds at least one connection.
 */
function embeddedBroker(ingest: DeviceIngest, log: FastifyBaseLogger): Transport {
  const broker = new Aedes({ drainTimeout: 30_000, maxClientsIdLength: 64 });
  const identities = new WeakMap<Client, DeviceIdentity>();
  const keepalives = new WeakMap<Client, number>();
  const connections = new Map<number, number>();
  let tcp: Server | undefined;

  const sendCommand = (machineCode: string, command: CommandPayload) =>
    new Promise<void>((resolve, reject) => {
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

  const refuse = (
    callback: (e: AuthenticateError, ok: boolean) => void,
    why: string,
    code: 4 | 5,
  ) => {
    const error = new Error(why) as AuthenticateError;
    error.returnCode = code;
    callback(error, false);
  };

  // Aedes hands authenticate() no CONNECT packet: note the keepalive the device asked for.
  broker.preConnect = (client, packet, callback) => {
    keepalives.set(client, packet.keepalive ?? 0);
    callback(null, true);
  };

  broker.authenticate = (client, username, password, callback) => {
    const keepalive = keepalives.get(client) ?? 0;
    if (keepalive < KEEPALIVE_MIN_SECONDS || keepalive > KEEPALIVE_MAX_SECONDS) {
      // Keepalive 0 never times out: a half-open link would look online for ever.
      log.warn({ client: client.id, keepalive }, "connection refused: keepalive out of range");
      return refuse(callback, "keepalive out of range", 5);
    }
    ingest
      .authenticate(username, password?.toString())
      .then((device) => {
        if (!device) return refuse(callback, "bad machine code or device secret", 4);
        identities.set(client, device);
        // Every client id lives under the device's own machine code (registration follows
        // authentication in Aedes), so reusing another device's id takes nothing over.
        client.id = `${device.code}/${client.id}`;
        callback(null, true);
      })
      .catch((error) => {
        log.error({ err: error }, "device authentication failed");
        callback(error, false);
      });
  };

  broker.authorizeSubscribe = (client, subscription, callback) => {
    const device = identities.get(client);
    if (device && ingest.maySubscribe(device, subscription.topic))
      return callback(null, subscription);
    // A negative SUBACK (0x80): the device learns the refusal and stays connected.
    log.warn({ client: client.id, topic: subscription.topic }, "subscription refused");
    callback(null, null);
  };

  broker.authorizePublish = (client, packet, callback) => {
    // A will published after its client is gone arrives without a client; nothing to store.
    if (!client) return callback(null);
    const device = identities.get(client);
    const topic = device && ingest.mayPublish(device, packet.topic);
    if (!device || !topic) {
      log.warn({ client: client.id, topic: packet.topic }, "publish refused");
      return callback(new Error(`publish to ${packet.topic} refused`));
    }
    ingest.handleUplink(device, topic, packet.payload as Buffer).then(
      () => callback(null),
      (error) => {
        log.error({ err: error, device: device.code }, "uplink failed");
        callback(error as Error); // not acknowledged: the device will retry
      },
    );
  };

  const track = (client: Client, delta: 1 | -1) => {
    const device = identities.get(client);
    if (!device) return;
    const count = (connections.get(device.id) ?? 0) + delta;
    if (count > 0) connections.set(device.id, count);
    else connections.delete(device.id);
    // Online flips only on the first connection and after the last one.
    if ((delta === 1 && count === 1) || count <= 0) {
      ingest
        .setOnline(device, count > 0)
        .catch((error) => log.error({ err: error }, "state update failed"));
    }
  };
  broker.on("client", (client) => track(client, 1));
  broker.on("clientDisconnect", (client) => track(client, -1));

  // A device that (re)subscribes to its commands is told its settings: what changed while it
  // was away, or before a restart of the cloud or of the device, is not lost.
  broker.on("subscribe", (subscriptions, client) => {
    const device = client && identities.get(client);
    if (!device) return;
    const own = deviceTopic(device.code, "cmd");
    if (!subscriptions.some((s) => s.topic === own && (s.qos as number) !== 128)) return;
    ingest
      .settingsOf(device)
      .then((commands) => Promise.all(commands.map((c) => sendCommand(device.code, c))))
      .catch((error) => log.error({ err: error, device: device.code }, "settings not sent"));
  });

  return {
    start: () => broker.listen(),
    isConnected: (deviceId) => (connections.get(deviceId) ?? 0) > 0,
    brokerUp: () => !broker.closed,
    handleStream: (stream) => broker.handle(stream),
    sendCommand,
    async listenTcp(port, host) {
      tcp = createServer(broker.handle);
      await new Promise<void>((resolve, reject) => {
        tcp!.once("error", reject);
        tcp!.listen(port, host, () => resolve());
      });
      const address = tcp.address();
      return typeof address === "object" && address ? address.port : port;
    },
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      if (tcp) await new Promise<void>((resolve) => tcp!.close(() => resolve()));
    },
  };
}

/**
 * A client of an external broker, which authenticates devices itself (through the HTTP auth
 * hook, see routes.ts). Every node reads every uplink, alarms included, on a session of its
 * own: the database keeps each alarm once (unique device + alarm id), so an alarm is stored
 * while any node lives, and a device's raise and clear reach each node in order. A shared
 * subscription would split them, but Mosquitto hands a dead node's share to its session
 * until it comes back (docs/deploy.md "MQTT broker"). PUBACK is held until the row is stored.
 * Online state comes from the retained `state` messages and the devices' last wills.
 */
function externalBroker(
  url: string,
  ingest: DeviceIngest,
  log: FastifyBaseLogger,
  nodePort: number,
): Transport {
  let client: MqttClient | undefined;
  const uplinks = ["state", "location", "data", "alarm"].map((t) => `${TOPIC_ROOT}/+/${t}`);

  async function onMessage(topic: string, payload: Buffer) {
    const parsed = parseDeviceTopic(topic);
    if (!parsed || parsed.topic === "cmd") return;
    const device = await ingest.identify(parsed.machineCode);
    if (!device) return log.warn({ topic }, "message from an unknown device ignored");
    await ingest.handleUplink(device, parsed.topic, payload, { trustState: true });
    // The server sees no subscriptions here: a device announcing itself online (it subscribes
    // to `cmd` first) is told its settings; so is every device whose retained `online` this
    // server reads when it (re)starts.
    // Not awaited: mqtt.js reads no further packet (the PUBACK included) until this returns.
    if (parsed.topic === "state" && decodePayload(statePayload, payload)?.state === "online") {
      const commands = await ingest.settingsOf(device);
      Promise.all(commands.map((c) => publishCommand(device.code, c))).catch((error) =>
        log.error({ err: error, device: device.code }, "settings not sent"),
      );
    }
  }

  async function publishCommand(machineCode: string, command: CommandPayload) {
    await client?.publishAsync(deviceTopic(machineCode, "cmd"), JSON.stringify(command), {
      qos: 1,
    });
  }

  return {
    async start() {
      client = mqtt.connect(url, {
        // A stable id per node (host and port) and a persistent session: what was not
        // acknowledged is redelivered, also after a restart.
        clientId: `keyway-server-${hostname().slice(0, 40)}-${nodePort}`,
        clean: false,
        reconnectPeriod: 2000,
      });
      // mqtt.js sends PUBACK only after handleMessage calls back: store first, then ack;
      // on failure no PUBACK, so the broker redelivers the message to this session.
      client.handleMessage = (packet, callback) => {
        if (packet.cmd !== "publish") return callback();
        onMessage(packet.topic, packet.payload as Buffer).then(
          () => callback(),
          (error) => {
            log.error({ err: error, topic: packet.topic }, "uplink failed");
            callback(error as Error);
          },
        );
      };
      await new Promise<void>((resolve, reject) => {
        client!.once("connect", () => resolve());
        client!.once("error", reject);
      });
      await client.subscribeAsync(
        Object.fromEntries(uplinks.map((topic) => [topic, { qos: 1 as const }])),
      );
      log.info(
        { url: url.replace(/\/\/[^@]*@/, "//***@") },
        "connected to the external MQTT broker",
      );
    },
    // The broker knows the connections; the server only sees what devices say.
    isConnected: () => false,
    // mqtt.js reconnects by itself; while it does, no uplink reaches this node.
    brokerUp: () => client?.connected === true,
    sendCommand: publishCommand,
    async close() {
      await client?.endAsync();
    },
  };
}
