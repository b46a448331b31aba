/**
 * Load generator for `npm run bench -- alarms`, in its own process: D devices connect over
 * MQTT and publish alarms (QoS 1) at a steady total rate for S seconds, while the devices'
 * owner listens on the push channel. Each alarm's content carries its number, so every push
 * that arrives is matched to its publish. Prints one JSON line with the figures.
 */
import { parseArgs } from "node:util";
import { decodePush, PING_FRAME, PUSH_SCENES } from "@keyway/protocol";
import { PUSH_HEARTBEAT_MS } from "@keyway/shared";
import { WebSocket } from "ws";
import { type DeviceConnection, openDevice, pool, publish } from "./mqttDevices.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    push: { type: "string" },
    devices: { type: "string" },
    secret: { type: "string" },
    prefix: { type: "string" },
    rate: { type: "string" },
    seconds: { type: "string" },
  },
});
const port = Number(values.port);
const deviceCount = Number(values.devices);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const total = rate * seconds;
const codeOf = (i: number) => `${values.prefix}${String(i).padStart(6, "0")}`;

const sentAt = new Float64Array(total);
const pushedAt = new Float64Array(total);
let pushed = 0;
let duplicates = 0;
const socket = new WebSocket(values.push ?? "");
socket.binaryType = "nodebuffer";
socket.on("message", (data: Buffer) => {
  const at = performance.now();
  const frame = decodePush(new Uint8Array(data));
  if (frame.scene !== PUSH_SCENES.deviceAlarm) return;
  const match = /Bench alarm (\d+)/.exec(JSON.stringify(frame.body));
  if (!match) return;
  const i = Number(match[1]);
  if (pushedAt[i]) duplicates++;
  else {
    pushedAt[i] = at;
    pushed++;
  }
});
await new Promise<void>((resolve, reject) => {
  socket.once("open", () => resolve());
  socket.once("error", reject);
});
// A listener that heartbeats as the apps do: a silent one is closed after 45 s and would
// miss the rest of the run's pushes.
const heartbeat = setInterval(() => socket.send(PING_FRAME), PUSH_HEARTBEAT_MS);
let closedEarly: number | null = null;
socket.once("close", (code) => {
  closedEarly = code;
});

const conns: DeviceConnection[] = await pool(deviceCount, 100, (i) =>
  openDevice(port, codeOf(i), values.secret ?? ""),
);

// Paced in 10 ms ticks; publishes are not awaited one by one (a device site does not wait
// for the cloud before its next alarm), each is timed to its PUBACK.
let acked = 0;
const ackLatencies: number[] = [];
const acks: Promise<void>[] = [];
const started = performance.now();
let next = 0;
while (next < total) {
  const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
  for (; next < due; next++) {
    const i = next;
    const payload = JSON.stringify({
      id: `bench-${i}`,
      type: "high",
      variable: "Tank.Level",
      level: (i % 3) + 1,
      content: `Bench alarm ${i}`,
      time: Date.now(),
    });
    sentAt[i] = performance.now();
    acks.push(
      publish(conns[i % conns.length], "alarm", payload).then(() => {
        acked++;
        ackLatencies.push(performance.now() - sentAt[i]);
      }),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const publishSeconds = (performance.now() - started) / 1000;
await Promise.race([Promise.all(acks), new Promise((resolve) => setTimeout(resolve, 120_000))]);
const ackedSeconds = (performance.now() - started) / 1000;
// Pushes still on their way: wait until none arrive for 5 s (or 2 minutes in all).
for (let last = -1, quiet = 0; quiet < 5 && pushed < total; ) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  quiet = pushed === last ? quiet + 1 : 0;
  last = pushed;
  if (performance.now() - started > publishSeconds * 1000 + 120_000) break;
}
const pushLatencies: number[] = [];
for (let i = 0; i < total; i++) if (pushedAt[i]) pushLatencies.push(pushedAt[i] - sentAt[i]);

console.log(
  JSON.stringify({
    published: total,
    publishSeconds,
    acked,
    ackedSeconds,
    ackP50: percentile(ackLatencies, 50),
    ackP99: percentile(ackLatencies, 99),
    pushed,
    duplicates,
    pushP50: percentile(pushLatencies, 50),
    pushP99: percentile(pushLatencies, 99),
    listenerClosed: closedEarly,
  }),
);
clearInterval(heartbeat);
for (const c of conns) c.socket.destroy();
socket.terminate();
process.exit(0);
