import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import {
  type AlarmPayload,
  type CommandPayload,
  commandPayload,
  type DeviceLocationWay,
  decodePayload,
  deviceTopic,
  type LocationPayload,
  limitMqttPackets,
  MQTT_MAX_PACKET,
  type StatePayload,
} from "@keyway/protocol";
import mqtt, { type MqttClient } from "mqtt";
import { backoffDelay } from "./backoff.ts";
import { DurableQueue } from "./queue.ts";
import { hostTimeZone } from "./timeZone.ts";

export type ConnectionState = "stopped" | "connecting" | "online" | "offline";

export interface AgentOptions {
  /** `mqtt://host:1883`, `mqtts://…`, `ws://host:8080/mqtt` or `wss://…`. */
  server: string;
  code: string;
  secret: string;
  /** Where the alarm queue lives. */
  dataDir: string;
  model?: string;
  version?: string;
  /** Seconds between location reports; 0 = only on request. Default 600. */
  locationEvery?: number;
  /**
   * Where the device is, found by `way` (the way the cloud asked for; the fix is reported as
   * that way), when it knows; without it no location is reported.
   */
  locationSource?: (way: LocationPayload["way"]) => LocationPayload | undefined;
  /** Reconnect back-off bounds in milliseconds (default 1 s doubling to 30 s). */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  log?: (message: string) => void;
}

export interface AlarmInput {
  type: string;
  content: string;
  variable?: string;
  level?: number;
  /** The id of an earlier alarm of this device that this message reports cleared. */
  clears?: string;
}

export interface AgentStatus {
  code: string;
  server: string;
  connection: ConnectionState;
  cloudSwitch: boolean;
  /** How the cloud wants the device located (`manual`: no reports). */
  locationWay: DeviceLocationWay;
  /** Alarms on disk not yet acknowledged by the cloud, oldest first. */
  queued: AlarmPayload[];
  /** Alarms acknowledged (PUBACK) since this process started. */
  delivered: number;
  lastError?: string;
  lastCommand?: CommandPayload;
}

const FLUSH_RETRY_MS = 5_000;

/**
 * The device side of the Keyway device protocol. Holds one MQTT connection to the cloud
 * (username = machine code, password = device secret), announces itself retained on `state`
 * with a last will of `{state:"offline"}`, follows commands on `cmd`, and delivers alarms
 * from a durable on-disk queue: an alarm is fsynced before any send and leaves the queue
 * only after the cloud's PUBACK, which the cloud sends only once the alarm is stored.
 */
export class Agent {
  readonly options: AgentOptions;
  private readonly topics: Record<"state" | "alarm" | "location" | "data" | "cmd", string>;
  private queue: DurableQueue<AlarmPayload> | undefined;
  private client: MqttClient | undefined;
  private connection: ConnectionState = "stopped";
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private locationTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushing = false;
  private delivered = 0;
  private cloudSwitch = true;
  private locationWay: DeviceLocationWay = "gps";
  private lastError: string | undefined;
  private lastCommand: CommandPayload | undefined;
  private readonly timeZone = hostTimeZone();
  /** Why the current connection went away, so the flush loop stops waiting on it. */
  private readonly lostSignals = new WeakMap<MqttClient, Promise<never>>();

  constructor(options: AgentOptions) {
    this.options = options;
    const code = options.code;
    this.topics = {
      state: deviceTopic(code, "state"),
      alarm: deviceTopic(code, "alarm"),
      location: deviceTopic(code, "location"),
      data: deviceTopic(code, "data"),
      cmd: deviceTopic(code, "cmd"),
    };
  }

  private log(message: string): void {
    (this.options.log ?? ((m: string) => console.log(`${new Date().toISOString()} ${m}`)))(message);
  }

  /** Reloads the alarm queue from disk and starts connecting. */
  start(): void {
    if (this.connection !== "stopped") return;
    this.queue = new DurableQueue<AlarmPayload>({
      file: join(this.options.dataDir, "alarms.jsonl"),
      idOf: (alarm) => alarm.id,
      onCorrupt: (line) => this.log(`alarm queue: skipped unreadable line ${line}`),
    });
    if (this.queue.size) this.log(`alarm queue: ${this.queue.size} alarm(s) waiting from before`);
    this.setConnection("connecting");
    this.connect();
    const every = this.options.locationEvery ?? 600;
    if (every > 0) {
      this.locationTimer = setInterval(() => void this.publishLocation(), every * 1000);
    }
    this.retryTimer = setInterval(() => void this.flush(), FLUSH_RETRY_MS);
  }

  /** Says goodbye (`offline`, retained) when connected, then closes everything. */
  async stop(): Promise<void> {
    if (this.connection === "stopped") return;
    this.setConnection("stopped");
    clearTimeout(this.reconnectTimer);
    clearInterval(this.locationTimer);
    clearInterval(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    if (client?.connected) {
      const offline: StatePayload = { state: "offline" };
      await withTimeout(
        client.publishAsync(this.topics.state, JSON.stringify(offline), { qos: 1, retain: true }),
        2000,
      ).catch(() => undefined);
      await withTimeout(client.endAsync(), 2000).catch(() => client.end(true));
    } else {
      client?.end(true);
    }
    this.queue?.close();
  }

  status(): AgentStatus {
    return {
      code: this.options.code,
      server: this.options.server,
      connection: this.connection,
      cloudSwitch: this.cloudSwitch,
      locationWay: this.locationWay,
      queued: this.queue?.list() ?? [],
      delivered: this.delivered,
      lastError: this.lastError,
      lastCommand: this.lastCommand,
    };
  }

  /**
   * Writes the alarm to the on-disk queue (fsync) and then tries to send it. Returns once it
   * is durable, not when it is delivered.
   */
  raiseAlarm(input: AlarmInput): AlarmPayload {
    if (!this.queue) throw new Error("agent not started");
    const alarm: AlarmPayload = {
      id: `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`,
      type: input.type,
      variable: input.variable ?? "",
      level: input.level ?? 1,
      content: input.content,
      time: Date.now(),
      timeZone: this.timeZone,
      ...(input.clears && { clears: input.clears }),
    };
    this.queue.append(alarm);
    this.log(`alarm ${alarm.id} queued (${alarm.type}: ${alarm.content})`);
    void this.flush();
    return alarm;
  }

  /**
   * Publishes tag values (QoS 1) for the device's project, if it reports. Readings taken
   * while offline are skipped, not queued: the next reading supersedes them (alarms, which
   * must not be lost, go through the durable queue instead). Returns whether it was sent.
   */
  async publishData(values: Record<string, number | string | boolean | null>): Promise<boolean> {
    const client = this.client;
    if (!client?.connected) return false;
    const now = Date.now();
    const point = {
      id: `${now.toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      time: now,
      values,
    };
    try {
      await client.publishAsync(this.topics.data, JSON.stringify(point), { qos: 1 });
      return true;
    } catch (error) {
      this.log(`data not sent: ${errorText(error)}`);
      return false;
    }
  }

  /**
   * Publishes the current location, by the way the cloud asked for, when connected and a
   * location is known; nothing while the cloud places the device by hand.
   */
  async publishLocation(): Promise<void> {
    const client = this.client;
    const way = this.locationWay;
    if (!client?.connected || way === "manual") return;
    const location = this.options.locationSource?.(way);
    if (!location) return;
    try {
      await client.publishAsync(this.topics.location, JSON.stringify({ ...location, way }), {
        qos: 1,
      });
    } catch (error) {
      this.log(`location not sent: ${errorText(error)}`);
    }
  }

  private setConnection(next: ConnectionState): void {
    if (this.connection === next) return;
    this.log(`connection: ${this.connection} -> ${next}`);
    this.connection = next;
  }

  private connect(): void {
    if (this.connection === "stopped") return;
    const offline: StatePayload = { state: "offline" };
    const client = mqtt.connect(this.options.server, {
      username: this.options.code,
      password: this.options.secret,
      clientId: `${this.options.code}-${randomBytes(4).toString("hex")}`,
      clean: true,
      keepalive: 30,
      connectTimeout: 10_000,
      // Reconnects are ours (exponential back-off); every attempt gets a fresh client.
      reconnectPeriod: 0,
      // mqtt-packet's default pre-builds a Buffer for each of the 65 536 packet ids (6 MiB,
      // a third of an idle agent's heap); a device sends a few packets a minute.
      writeCache: false,
      // Over ws(s):// one WebSocket message carries one packet: none may be larger.
      wsOptions: { maxPayload: MQTT_MAX_PACKET },
      will: {
        topic: this.topics.state,
        payload: Buffer.from(JSON.stringify(offline)),
        qos: 1,
        retain: true,
      },
    });
    this.client = client;
    // A packet above the limit is refused at its header, before mqtt.js holds its bytes (all
    // MQTT allows, 256 MiB: past a small gateway's memory) or waits for the rest of it until
    // the keepalive runs out; the connection closes and is dialled again.
    limitMqttPackets(client, (announced) =>
      this.log(`mqtt packet of ${announced} bytes refused (at most ${MQTT_MAX_PACKET})`),
    );
    const lost = new Promise<never>((_, reject) => {
      client.once("close", () => reject(new Error("connection lost")));
    });
    lost.catch(() => undefined);
    this.lostSignals.set(client, lost);

    client.on("connect", () => {
      if (this.client !== client) return;
      this.attempt = 0;
      this.lastError = undefined;
      this.setConnection("online");
      void this.onConnected(client);
    });
    client.on("message", (topic, payload) => {
      if (topic === this.topics.cmd) this.onCommand(payload);
    });
    client.on("error", (error) => {
      this.lastError = errorText(error);
      this.log(`mqtt error: ${this.lastError}`);
      // After bytes that are not MQTT the stream cannot be read on: MQTT says to close the
      // connection (4.8.0-1), mqtt.js only reports it. Closed, it is dialled again below.
      if (!client.disconnecting) client.end(true);
    });
    let closed = false;
    client.on("close", () => {
      if (closed) return;
      closed = true;
      // Fails whatever is in flight on this connection; the queue still holds it.
      client.end(true);
      if (this.client !== client || this.connection === "stopped") return;
      this.client = undefined;
      this.setConnection("offline");
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    const delay = backoffDelay(
      this.attempt,
      this.options.backoffMinMs ?? 1000,
      this.options.backoffMaxMs ?? 30_000,
    );
    this.attempt = Math.min(this.attempt + 1, 30);
    this.log(`reconnecting in ${(delay / 1000).toFixed(1)} s`);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.setConnection("connecting");
      this.connect();
    }, delay);
  }

  private async onConnected(client: MqttClient): Promise<void> {
    const online: StatePayload = {
      state: "online",
      model: this.options.model,
      version: this.options.version,
      ip: localIp(client),
    };
    try {
      // Listen for commands before announcing "online", so a command sent as soon as the
      // cloud sees the device is not lost in between.
      await client.subscribeAsync(this.topics.cmd, { qos: 1 });
      await client.publishAsync(this.topics.state, JSON.stringify(online), {
        qos: 1,
        retain: true,
      });
    } catch (error) {
      this.log(`announce failed: ${errorText(error)}`);
      return;
    }
    await this.flush();
    await this.publishLocation();
  }

  private onCommand(payload: Buffer): void {
    const command = decodePayload(commandPayload, payload);
    if (!command) {
      this.log(`ignored malformed command: ${payload.toString().slice(0, 200)}`);
      return;
    }
    this.lastCommand = command;
    switch (command.type) {
      case "cloudSwitch":
        if (command.open !== this.cloudSwitch)
          this.log(`cloud switch ${command.open ? "opened" : "closed"}`);
        this.cloudSwitch = command.open;
        break;
      case "locationWay":
        // Sent again on every reconnect: only a change is news worth a fresh fix.
        if (command.way !== this.locationWay) {
          this.locationWay = command.way;
          this.log(`location way: ${command.way}`);
          void this.publishLocation();
        }
        break;
      case "locationRefresh":
        this.log("location refresh requested");
        void this.publishLocation();
        break;
      case "openTunnel":
        this.log(`tunnel to ${command.target} requested: the tunnel is kept up by --tunnel`);
        break;
      case "config":
        this.log(`config received: ${Object.keys(command.values).join(", ") || "(empty)"}`);
        break;
    }
  }

  /** Sends queued alarms in order, one at a time, each removed only after its PUBACK. */
  private async flush(): Promise<void> {
    if (this.flushing || !this.queue) return;
    const client = this.client;
    if (!client?.connected) return;
    const lost = this.lostSignals.get(client)!;
    this.flushing = true;
    try {
      for (let alarm = this.queue.peek(); alarm; alarm = this.queue.peek()) {
        if (this.client !== client || !client.connected) break;
        await Promise.race([
          client.publishAsync(this.topics.alarm, JSON.stringify(alarm), { qos: 1 }),
          lost,
        ]);
        this.queue.ack(alarm.id);
        this.delivered += 1;
        this.log(`alarm ${alarm.id} delivered`);
      }
    } catch (error) {
      this.log(`alarm delivery interrupted: ${errorText(error)}`);
    } finally {
      this.flushing = false;
    }
    // A newer connection may have come up while this one was draining.
    if (this.client !== client && this.client?.connected && this.queue.size) void this.flush();
  }
}

function localIp(client: MqttClient): string | undefined {
  const local = (client.stream as Partial<Socket> | undefined)?.localAddress;
  if (local && local !== "::1" && !local.startsWith("127.")) return local.replace(/^::ffff:/, "");
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return local?.replace(/^::ffff:/, "");
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
