/**
 * Load generator and receiver for `npm run bench -- reporting`, in their own process: a
 * customer's HTTP report server (checks each batch's signature with its project's key, keeps
 * each point once by seq) and D devices publishing data (QoS 1) at a steady total rate.
 * Phases: steady (receiver up), outage (receiver closed — connections refused — while
 * devices keep publishing; then listening again on the same port), recovery (receiver up, devices quiet: the backlog drains). Each point carries
 * its number and its publish time, so delay is measured on one clock. Talks to the parent
 * over IPC: { port } out, { keys } in; prints one JSON line with the figures at the end.
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { type DeviceConnection, openDevice, pool, publish } from "./mqttDevices.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    devices: { type: "string" },
    secret: { type: "string" },
    prefix: { type: "string" },
    rate: { type: "string" },
    seconds: { type: "string" },
    outage: { type: "string" },
  },
});
const mqttPort = Number(values.port);
const deviceCount = Number(values.devices);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const outageSeconds = Number(values.outage);
const steadyTotal = rate * seconds;
const outageTotal = rate * outageSeconds;
const total = steadyTotal + outageTotal;
const codeOf = (i: number) => `${values.prefix}${String(i).padStart(6, "0")}`;

const receivedAt = new Float64Array(total);
const sentAt = new Float64Array(total);
let received = 0;
let duplicates = 0;
let refused = 0;
let batches = 0;
/** When the first batch after the outage was taken (the backoff's last wait ends). */
let resumedAt = 0;
let keys: Record<string, string> = {};
let recovering = false;
const lastSeqOfDevice = new Map<string, number>();
let outOfOrder = 0;

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const batch = JSON.parse(body) as {
      project: { id: number };
      points: Array<{ seq: number; machineCode: string; values: { n: number } }>;
    };
    const ts = String(req.headers["x-keyway-timestamp"]);
    const expected = createHmac("sha256", keys[batch.project.id] ?? "")
      .update(`${ts}.${body}`)
      .digest("hex");
    if (req.headers["x-keyway-signature"] !== `sha256=${expected}`) {
      refused++;
      return res.writeHead(401).end("bad signature");
    }
    batches++;
    const at = performance.now();
    if (recovering && !resumedAt) resumedAt = at;
    for (const point of batch.points) {
      const i = point.values.n;
      if (receivedAt[i]) {
        duplicates++;
        continue;
      }
      receivedAt[i] = at;
      received++;
      const last = lastSeqOfDevice.get(point.machineCode) ?? 0;
      if (point.seq < last) outOfOrder++;
      lastSeqOfDevice.set(point.machineCode, point.seq);
    }
    res.writeHead(200).end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverPort = (receiver.address() as { port: number }).port;
const gotKeys = new Promise<void>((resolve) =>
  process.once("message", (message: { keys: Record<string, string> }) => {
    keys = message.keys;
    resolve();
  }),
);
process.send?.({ port: receiverPort });
await gotKeys;

const conns: DeviceConnection[] = await pool(deviceCount, 100, (i) =>
  openDevice(mqttPort, codeOf(i), values.secret ?? ""),
);

let acked = 0;
const ackDelays: number[] = [];
const acks: Promise<void>[] = [];
/** Publishes points [from, to) paced at `rate`, each timed from its publish. */
async function publishRange(from: number, to: number) {
  const started = performance.now();
  let next = from;
  while (next < to) {
    const due = Math.min(to, from + Math.floor(((performance.now() - started) / 1000) * rate));
    for (; next < due; next++) {
      const i = next;
      sentAt[i] = performance.now();
      const payload = JSON.stringify({
        id: `p-${i}`,
        time: Date.now(),
        values: { n: i, level: 50 + (i % 40), running: i % 2 === 0 },
      });
      acks.push(
        publish(conns[i % conns.length], "data", payload).then(() => {
          acked++;
          if (i < steadyTotal) ackDelays.push(performance.now() - sentAt[i]);
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const waitFor = async (check: () => boolean, limitMs: number) => {
  const deadline = performance.now() + limitMs;
  while (!check() && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
};

// Steady state.
const steadyStart = performance.now();
await publishRange(0, steadyTotal);
await waitFor(() => received >= steadyTotal, 60_000);
const steadySeconds = (performance.now() - steadyStart) / 1000;
const steadyReceived = received;

// Outage: the receiver is down for real (its port refuses) while devices keep publishing.
await new Promise<void>((resolve) => {
  receiver.closeAllConnections();
  receiver.close(() => resolve());
});
await publishRange(steadyTotal, total);
await Promise.race([Promise.all(acks), new Promise((resolve) => setTimeout(resolve, 60_000))]);
const backlogAtRecovery = total - received;
recovering = true;
await new Promise<void>((resolve) => receiver.listen(receiverPort, "127.0.0.1", resolve));
const recoveryStart = performance.now();
await waitFor(() => received >= total, 180_000);
const drainedAt = performance.now();
const resumeSeconds = ((resumedAt || drainedAt) - recoveryStart) / 1000;
const drainSeconds = (drainedAt - (resumedAt || recoveryStart)) / 1000;

const delays: number[] = [];
for (let i = 0; i < steadyTotal; i++) if (receivedAt[i]) delays.push(receivedAt[i] - sentAt[i]);

console.log(
  JSON.stringify({
    published: total,
    acked,
    steadyReceived,
    steadySeconds,
    ackP50: percentile(ackDelays, 50),
    ackP99: percentile(ackDelays, 99),
    delayP50: percentile(delays, 50),
    delayP99: percentile(delays, 99),
    backlogAtRecovery,
    resumeSeconds,
    drainSeconds,
    received,
    duplicates,
    refused,
    outOfOrder,
    batches,
  }),
);
for (const c of conns) c.socket.destroy();
receiver.close();
process.exit(0);
