import { hostname } from "node:os";
import {
  type CommandPayload,
  decodePayload,
  deviceTopic,
  parseDeviceTopic,
  statePayload,
  TOPIC_ROOT,
} from "@keyway/protocol";
import type { FastifyBaseLogger } from "fastify";
import mqtt, { type MqttClient } from "mqtt";
import type { DeviceIngest } from "./ingest.ts";
import type { Transport } from "./transport.ts";

/**
 * A client of an external broker, which authenticates devices itself (through the HTTP auth
 * hook, see routes.ts). Every node reads every uplink, alarms included, on a session of its
 * own: the database keeps each alarm once (unique device + alarm id), so an alarm is stored
 * while any node lives, and a device's raise and clear reach each node in order. A shared
 * subscription would split them, but Mosquitto hands a dead node's share to its session
 * until it comes back (docs/deploy.md "MQTT broker"). PUBACK is held until the row is stored.
 * Online state comes from the retained `state` messages and the devices' last wills.
 */
export function externalBroker(
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
