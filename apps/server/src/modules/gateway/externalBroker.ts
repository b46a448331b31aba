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
import { createOrderedInFlight } from "./orderedInFlight.ts";
import type { Transport } from "./transport.ts";

/**
 * Uplinks a node stores at once. The broker sends at most its `max_inflight_messages`
 * unacknowledged (deploy/mosquitto/keyway.conf); past this many the node reads no further.
 */
const IN_FLIGHT = 200;

/** mqtt.js's own (private) packet writer. */
interface PacketWriter {
  _writePacket(packet: { cmd: "puback"; messageId: number }): void;
}

/** Tells mqtt.js not to send its own PUBACK: ours follows the row (see handleMessage). */
const ACK_LATER = new Error("acknowledged once stored");

/**
 * A client of an external broker, which authenticates devices itself (through the HTTP auth
 * hook, see routes.ts). Every node reads every uplink, alarms included, on a session of its
 * own: the database keeps each alarm once (unique device + alarm id), so an alarm is stored
 * while any node lives, and a device's raise and clear reach each node in order. A shared
 * subscription would split them, but Mosquitto hands a dead node's share to its session
 * until it comes back (docs/deploy.md "MQTT broker"). PUBACK is held until the row is stored;
 * several uplinks are stored at once, each device's in order (orderedInFlight.ts). Online
 * state comes from the retained `state` messages and the devices' last wills.
 */
export function externalBroker(
  url: string,
  ingest: DeviceIngest,
  log: FastifyBaseLogger,
  nodePort: number,
): Transport {
  let client: MqttClient | undefined;
  const uplinks = ["state", "location", "data", "alarm"].map((t) => `${TOPIC_ROOT}/+/${t}`);
  const inFlight = createOrderedInFlight(IN_FLIGHT);

  async function onMessage(topic: string, payload: Buffer) {
    const parsed = parseDeviceTopic(topic);
    if (!parsed || parsed.topic === "cmd") return;
    const device = await ingest.identify(parsed.machineCode);
    if (!device) return log.warn({ topic }, "message from an unknown device ignored");
    await ingest.handleUplink(device, parsed.topic, payload, { trustState: true });
    // The server sees no subscriptions here: a device announcing itself online (it subscribes
    // to `cmd` first) is told its settings; so is every device whose retained `online` this
    // server reads when it (re)starts.
    // Not awaited: the device's next uplink waits for this one.
    if (parsed.topic === "state" && decodePayload(statePayload, payload)?.state === "online") {
      const commands = await ingest.settingsOf(device);
      Promise.all(commands.map((c) => publishCommand(device.code, c))).catch((error) =>
        log.error({ err: error, device: device.code }, "settings not sent"),
      );
    }
  }

  /**
   * A PUBACK on the connection the message came on. After a reconnect the broker sends the
   * message again (persistent session): that copy is stored (once, by its unique key) and
   * acknowledged instead.
   */
  function acknowledge(stream: MqttClient["stream"], messageId: number) {
    if (client?.stream !== stream || !client.connected) return;
    // mqtt.js has no public call for a PUBACK of its own: its writer, as its handlers use it.
    (client as unknown as PacketWriter)._writePacket({ cmd: "puback", messageId });
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
      // mqtt.js reads the next packet only once handleMessage calls back, and then sends its
      // PUBACK: this calls back as soon as the message holds a slot, with ACK_LATER so that
      // mqtt.js sends none, and acknowledges it itself once stored. On failure no PUBACK: the
      // broker redelivers the message to this session when it reconnects.
      client.handleMessage = (packet, callback) => {
        if (packet.cmd !== "publish") return callback();
        const { topic, messageId, qos } = packet;
        const stream = client!.stream;
        const store = async () => {
          try {
            await onMessage(topic, packet.payload as Buffer);
            if (qos > 0) acknowledge(stream, messageId!);
          } catch (error) {
            log.error({ err: error, topic }, "uplink failed");
          }
        };
        const device = parseDeviceTopic(topic)?.machineCode ?? topic;
        inFlight.run(device, store, () => callback(qos > 0 ? ACK_LATER : undefined));
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
