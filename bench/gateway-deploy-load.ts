/**
 * Load generator for `npm run bench -- gateway --deploy`, in its own process: N devices
 * connect (over TLS with `--ca`, as devices reach the deployed Mosquitto; plain MQTT to the
 * single node's embedded broker), then alarms go out with QoS 1 in two phases — a burst
 * (`--burst`, at most `--concurrency` awaiting their PUBACK) for the rate alarms are stored at,
 * and a steady `--rate` per second for `--seconds` (publishes not awaited one by one) for the
 * latency at a load that is kept up with. Behind Mosquitto a PUBACK is only the broker's, so
 * each alarm is timed to its row: this process polls the alarms table (`--database`) every
 * 10 ms for rows it has not seen, and re-reads the last 2,000 ids every 100 ms for rows
 * committed after rows with higher ids (two nodes insert side by side). Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { type DeviceConnection, openDevice, pool, publish } from "./mqttDevices.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    ca: { type: "string" },
    servername: { type: "string" },
    devices: { type: "string" },
    prefix: { type: "string", default: "KW-BENCH-" },
    burst: { type: "string" },
    rate: { type: "string" },
    seconds: { type: "string" },
    tag: { type: "string" },
    database: { type: "string" },
    concurrency: { type: "string", default: "200" },
  },
});
const port = Number(values.port);
const deviceCount = Number(values.devices);
const burst = Number(values.burst);
const rate = Number(values.rate);
const paced = rate * Number(values.seconds);
const concurrency = Number(values.concurrency);
const tag = values.tag ?? "bench";
const tls = values.ca
  ? { ca: readFileSync(values.ca), servername: values.servername ?? "" }
  : undefined;
const codeOf = (i: number) => `${values.prefix}${String(i).padStart(6, "0")}`;

const connectStart = performance.now();
const conns: DeviceConnection[] = await pool(deviceCount, concurrency, (i) =>
  openDevice(port, codeOf(i), `secret-${codeOf(i)}`, tls),
);
const connectSeconds = (performance.now() - connectStart) / 1000;
process.send?.({ phase: "connected" });
await new Promise((resolve) => process.once("message", resolve)); // the parent measured memory

// Alarm k of this run is `<tag>-<k>`: burst first (0 … burst-1), then the paced ones.
const total = burst + paced;
const sentAt = new Float64Array(total);
const ackedAt = new Float64Array(total);
const storedAt = new Float64Array(total);
const uidPrefix = `${tag}-`;

const db = new pg.Client({ connectionString: values.database });
await db.connect();
const [{ max }] = (await db.query("select coalesce(max(id), 0)::int as max from alarms")).rows;
let maxSeen = max as number;
let seen = 0;
let late = 0;
/** Rows read at `at`; one at or below `below` was committed after a higher id was seen. */
const note = (rows: Array<{ id: number; uid: string }>, at: number, below: number) => {
  for (const row of rows) {
    maxSeen = Math.max(maxSeen, row.id);
    if (!row.uid.startsWith(uidPrefix)) continue;
    const k = Number(row.uid.slice(uidPrefix.length));
    if (!storedAt[k]) {
      storedAt[k] = at;
      seen++;
      if (row.id <= below) late++;
    }
  }
};
let observing = true;
const observer = (async () => {
  let lastRescan = 0;
  while (observing) {
    const rescan = performance.now() - lastRescan > 100;
    const floor = rescan ? Math.max(0, maxSeen - 2000) : maxSeen;
    if (rescan) lastRescan = performance.now();
    const below = maxSeen;
    // A row in this read was committed before the read's snapshot: timed at the read's start.
    const at = performance.now();
    const { rows } = await db.query("select id, uid from alarms where id > $1 order by id", [
      floor,
    ]);
    note(rows, at, below);
    await new Promise((r) => setTimeout(r, 10));
  }
})();

function payload(k: number) {
  return JSON.stringify({
    id: `${tag}-${k}`,
    type: "high",
    variable: "Tank.Level",
    level: 2,
    content: `Bench alarm ${k}`,
    time: Date.now(),
  });
}

function send(k: number): Promise<void> {
  sentAt[k] = performance.now();
  return publish(conns[k % conns.length], "alarm", payload(k)).then(() => {
    ackedAt[k] = performance.now();
  });
}

/** Until alarms from..to-1 are all seen, or none arrives for 15 s. */
async function settle(from: number, to: number) {
  let last = -1;
  let quietSince = performance.now();
  for (;;) {
    let stored = 0;
    for (let k = from; k < to; k++) if (storedAt[k]) stored++;
    if (stored === to - from) return;
    if (stored !== last) {
      last = stored;
      quietSince = performance.now();
    } else if (performance.now() - quietSince > 15_000) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function figures(from: number, to: number) {
  const stored: number[] = [];
  const acked: number[] = [];
  let firstSent = Number.POSITIVE_INFINITY;
  let lastStored = 0;
  for (let k = from; k < to; k++) {
    firstSent = Math.min(firstSent, sentAt[k]);
    if (ackedAt[k]) acked.push(ackedAt[k] - sentAt[k]);
    if (storedAt[k]) {
      stored.push(storedAt[k] - sentAt[k]);
      lastStored = Math.max(lastStored, storedAt[k]);
    }
  }
  return {
    alarms: to - from,
    acked: acked.length,
    stored: stored.length,
    storedPerSecond: stored.length / ((lastStored - firstSent) / 1000),
    p50: percentile(stored, 50),
    p99: percentile(stored, 99),
    ackP50: percentile(acked, 50),
    ackP99: percentile(acked, 99),
  };
}

// The burst: as many in flight as the concurrency allows, each waiting for its PUBACK.
await pool(burst, concurrency, (k) => send(k));
await settle(0, burst);

// Paced in 10 ms ticks; publishes are not awaited one by one (a device site does not wait
// for the cloud before its next alarm).
const acks: Promise<void>[] = [];
const started = performance.now();
let next = 0;
while (next < paced) {
  const due = Math.min(paced, Math.floor(((performance.now() - started) / 1000) * rate));
  for (; next < due; next++) acks.push(send(burst + next));
  await new Promise((resolve) => setTimeout(resolve, 10));
}
await Promise.race([Promise.all(acks), new Promise((resolve) => setTimeout(resolve, 60_000))]);
await settle(burst, total);
observing = false;
await observer;

// Rows the observer missed would be stored but untimed: counted here.
const {
  rows: [{ n }],
} = await db.query("select count(*)::int as n from alarms where uid like $1", [`${uidPrefix}%`]);
await db.end();

console.log(
  JSON.stringify({
    connections: conns.length,
    connectPerSecond: conns.length / connectSeconds,
    burst: figures(0, burst),
    paced: figures(burst, total),
    rowsInTable: n,
    timed: seen,
    caughtByRescan: late,
  }),
);
for (const c of conns) c.socket.destroy();
process.exit(0);
