/**
 * Load generator for `npm run bench -- gateway`, run as its own process: N devices open raw
 * MQTT connections (mqtt-packet over net sockets: a real client's bytes, without a full
 * client's memory), then alarms are published with QoS 1 and timed to their PUBACK.
 * Prints one JSON line with the figures.
 */
import { type Socket, connect as tcpConnect } from "node:net";
import { parseArgs } from "node:util";
import mqttPacket from "mqtt-packet";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    devices: { type: "string", default: "10000" },
    alarms: { type: "string", default: "5000" },
    prefix: { type: "string", default: "KW-BENCH-" },
    concurrency: { type: "string", default: "200" },
  },
});
const port = Number(values.port);
const deviceCount = Number(values.devices);
const alarmCount = Number(values.alarms);
const concurrency = Number(values.concurrency);

interface Conn {
  socket: Socket;
  code: string;
  pending: Map<number, () => void>;
}

const codeOf = (i: number) => `${values.prefix}${String(i).padStart(6, "0")}`;

function open(i: number): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const code = codeOf(i);
    const socket = tcpConnect(port, "127.0.0.1");
    const parser = mqttPacket.parser();
    const conn: Conn = { socket, code, pending: new Map() };
    parser.on("packet", (packet) => {
      if (packet.cmd === "connack") {
        if (packet.returnCode === 0 || packet.reasonCode === 0) resolve(conn);
        else reject(new Error(`connack ${packet.returnCode}`));
      } else if (packet.cmd === "puback" && packet.messageId !== undefined) {
        conn.pending.get(packet.messageId)?.();
        conn.pending.delete(packet.messageId);
      }
    });
    socket.on("data", (chunk) => parser.parse(chunk));
    socket.on("error", reject);
    socket.write(
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        clientId: code,
        keepalive: 600,
        username: code,
        password: Buffer.from(`secret-${code}`),
      }),
    );
  });
}

async function pool<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

const connectStart = performance.now();
const conns = await pool(deviceCount, concurrency, open);
const connectSeconds = (performance.now() - connectStart) / 1000;
process.send?.({ phase: "connected" });
await new Promise((resolve) => process.once("message", resolve)); // the parent measured memory

let messageId = 0;
const latencies: number[] = [];
const alarmStart = performance.now();
await pool(alarmCount, concurrency, async (i) => {
  const conn = conns[i % conns.length];
  messageId = (messageId % 65000) + 1;
  const id = messageId;
  const payload = JSON.stringify({
    id: `bench-${i}`,
    type: "high",
    variable: "Tank.Level",
    level: 2,
    content: `Bench alarm ${i}`,
    time: Date.now(),
  });
  const sent = performance.now();
  await new Promise<void>((resolve) => {
    conn.pending.set(id, resolve);
    conn.socket.write(
      mqttPacket.generate({
        cmd: "publish",
        topic: `kw/v1/${conn.code}/alarm`,
        payload,
        qos: 1,
        messageId: id,
        retain: false,
        dup: false,
      }),
    );
  });
  latencies.push(performance.now() - sent);
});
const alarmSeconds = (performance.now() - alarmStart) / 1000;

console.log(
  JSON.stringify({
    connections: conns.length,
    connectPerSecond: conns.length / connectSeconds,
    alarmsPerSecond: alarmCount / alarmSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }),
);
for (const c of conns) c.socket.destroy();
process.exit(0);
