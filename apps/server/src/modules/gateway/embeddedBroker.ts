import { createServer, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  type CommandPayload,
  deviceTopic,
  KEEPALIVE_MAX_SECONDS,
  KEEPALIVE_MIN_SECONDS,
  MQTT_MAX_CONNECT,
  MQTT_MAX_PACKET,
  watchPacketSizes,
} from "@keyway/protocol";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import type { FastifyBaseLogger } from "fastify";
import type { DeviceIdentity } from "./deviceLogin.ts";
import type { DeviceIngest } from "./ingest.ts";
import type { Transport } from "./transport.ts";

/**
 * Embedded Aedes. Alarms are stored inside authorizePublish, so PUBACK leaves only after the
 * row is written; a device is online while it holds at least one connection.
 */
export function embeddedBroker(ingest: DeviceIngest, log: FastifyBaseLogger): Transport {
  const broker = new Aedes({ drainTimeout: 30_000, maxClientsIdLength: 64 });
  const identities = new WeakMap<Client, DeviceIdentity>();
  const keepalives = new WeakMap<Client, number>();
  const connections = new Map<number, number>();
  /** What to do once a connection's device is logged in (MQTT over WebSocket only). */
  const afterLogins = new WeakMap<object, () => void>();
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
        afterLogins.get(client.conn)?.();
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

  /**
   * A connection for Aedes, closed the moment a packet above MQTT_MAX_PACKET is announced, or a
   * CONNECT above MQTT_MAX_CONNECT (before any login): Aedes would hold the bytes of any packet
   * MQTT allows (256 MiB) until it came whole. Aedes reads on 'readable', so the 'data'
   * listener sees each read's bytes just before Aedes parses them and does not set the stream
   * flowing.
   */
  const handle = (stream: Duplex, afterLogin?: () => void) => {
    if (afterLogin) afterLogins.set(stream, afterLogin);
    broker.handle(stream);
    // Only the watcher's own state is kept per connection (it holds 10,000s): the refusal is
    // one function for all, told which stream, and the peer's address is asked only then.
    stream.on("data", watchPacketSizes(MQTT_MAX_PACKET, refuseOversized, MQTT_MAX_CONNECT));
  };
  const refuseOversized = (announced: number, stream: Duplex) => {
    const peer = (stream as Partial<Socket>).remoteAddress;
    log.warn({ peer, announced }, "MQTT connection closed: a packet above the limit");
    stream.destroy();
  };

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
    handleStream: handle,
    sendCommand,
    async listenTcp(port, host) {
      tcp = createServer(handle);
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
