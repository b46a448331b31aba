import { timingSafeEqual } from "node:crypto";
import {
  type CommandPayload,
  type DataPayload,
  MQTT_MAX_CONNECT,
  MQTT_MAX_PACKET,
} from "@keyway/protocol";
import type { FastifyBaseLogger } from "fastify";
import { createWebSocketStream, type WebSocket } from "ws";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { limitMessages } from "../../http/websocketLimits.ts";
import type { Clock } from "../../infra/clock.ts";
import type { DeviceIdentity } from "./deviceLogin.ts";
import { embeddedBroker } from "./embeddedBroker.ts";
import { externalBroker } from "./externalBroker.ts";
import { createDeviceIngest } from "./ingest.ts";

export type Gateway = ReturnType<typeof createGateway>;

/**
 * The device gateway: the embedded Aedes broker by default, or, with MQTT_URL, a client of
 * an external broker (EMQX, Mosquitto). The rules are the same either way (ingest.ts).
 */
export function createGateway(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where stored alarms are told ("alarm.stored"). */
  events?: Pick<Events, "publish">;
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
  /** Whether `given` is the server's own "user:password", compared in constant time. */
  const isServerPair = (given: Buffer) => {
    if (!serverLogin) return false;
    const expected = Buffer.from(`${serverLogin.username}:${serverLogin.password}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
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
      return isServerPair(Buffer.from(authorization.slice(6).trim(), "base64"));
    },
    /** The server's own login at the external broker: the hooks answer it as superuser. */
    isServerLogin(username: string | undefined, password: string | undefined): boolean {
      if (!serverLogin || username === undefined || password === undefined) return false;
      return isServerPair(Buffer.from(`${username}:${password}`));
    },
    serverUsername: serverLogin?.username,
    /** MQTT over a WebSocket (embedded broker only), each message bounded like a packet. */
    handleWebSocket(socket: WebSocket): void {
      const stream = createWebSocketStream(socket);
      if (!transport.handleStream) {
        stream.destroy();
        return;
      }
      // Before login a stranger's message may be as large as a CONNECT; after, as any packet.
      limitMessages(socket, MQTT_MAX_CONNECT);
      transport.handleStream(stream, () => limitMessages(socket, MQTT_MAX_PACKET));
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
