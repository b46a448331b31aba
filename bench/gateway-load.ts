/**
 * Load generator for `npm run bench -- gateway`, run as its own process: N devices open raw
 * MQTT connections (mqtt-packet over net sockets: a real client's bytes, without a full
 * client's memory), then alarms are published with QoS 1 and timed to their PUBACK: first
 * as fast as the broker acknowledges (at most `concurrency` awaiting PUBACK), then at a
 * fixed `rate` per second whatever the answers (timed from when each was due, so that a
 * slow answer delays no later send and hides no wait). Prints one JSON line with the figures.
 */
import { parseArgs } from "node:util";
import { openDevice, pool, publish } from "./mqttDevices.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    devices: { type: "string", default: "10000" },
    alarms: { type: "string", default: "5000" },
    prefix: { type: "string", default: "KW-BENCH-" },
    concurrency: { type: "string", default: "200" },
    rate: { type: "string", default: "2000" },
  },
});
const port = Number(values.port);
const deviceCount = Number(values.devices);
const alarmCount = Number(values.alarms);
const concurrency = Number(values.concurrency);
const rate = Number(values.rate);

const codeOf = (i: number) => `${values.prefix}${String(i).padStart(6, "0")}`;

const connectStart = performance.now();
const conns = await pool(deviceCount, concurrency, (i) =>
  openDevice(port, codeOf(i), `secret-${codeOf(i)}`),
);
const connectSeconds = (performance.now() - connectStart) / 1000;
process.send?.({ phase: "connected" });
await new Promise((resolve) => process.once("message", resolve)); // the parent measured memory

const alarm = (id: string) =>
  JSON.stringify({
    id,
    type: "high",
    variable: "Tank.Level",
    level: 2,
    content: `Bench alarm ${id}`,
    time: Date.now(),
  });

const latencies: number[] = [];
const alarmStart = performance.now();
await pool(alarmCount, concurrency, async (i) => {
  const payload = alarm(`bench-${i}`);
  const sent = performance.now();
  await publish(conns[i % conns.length], "alarm", payload);
  latencies.push(performance.now() - sent);
});
const alarmSeconds = (performance.now() - alarmStart) / 1000;

const atRate: number[] = [];
const rateStart = performance.now();
await new Promise<void>((done) => {
  let sent = 0;
  const tick = () => {
    const due = Math.min(alarmCount, Math.floor(((performance.now() - rateStart) * rate) / 1000));
    for (; sent < due; sent++) {
      const dueAt = rateStart + (sent * 1000) / rate;
      void publish(conns[sent % conns.length], "alarm", alarm(`rate-${sent}`)).then(() => {
        atRate.push(performance.now() - dueAt);
        if (atRate.length === alarmCount) done();
      });
    }
    if (sent < alarmCount) setTimeout(tick, 1);
  };
  tick();
});

console.log(
  JSON.stringify({
    connections: conns.length,
    connectPerSecond: conns.length / connectSeconds,
    alarmsPerSecond: alarmCount / alarmSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rateP50: percentile(atRate, 50),
    rateP99: percentile(atRate, 99),
  }),
);
for (const c of conns) c.socket.destroy();
process.exit(0);
