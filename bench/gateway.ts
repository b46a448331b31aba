import { fork } from "node:child_process";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { Aedes } from "aedes";
import { count, eq } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import type { Db } from "../apps/server/src/db/client.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { hashToken } from "../apps/server/src/infra/crypto.ts";
import { alarms } from "../apps/server/src/modules/alarms/schema.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";

// `npm run bench -- gateway 2000` or BENCH_DEVICES=2000 (a flag such as --deploy is no count).
const DEVICES = Number(
  process.env.BENCH_DEVICES ?? process.argv.slice(3).find((a) => /^\d+$/.test(a)) ?? 10_000,
);
const ALARMS = Number(process.env.BENCH_ALARMS ?? 5000);

interface Figures {
  connections: number;
  connectPerSecond: number;
  alarmsPerSecond: number;
  p50: number;
  p99: number;
  bytesPerDevice: number;
}

const heap = () => {
  global.gc?.();
  // The JS heap only: the embedded database's WebAssembly memory is not per-connection.
  return process.memoryUsage().heapUsed;
};

/**
 * Runs the load generator against a broker on `port`; measures this process's heap (after a
 * forced GC) with every device connected, and runs `whileConnected` at that moment.
 */
async function load(
  port: number,
  whileConnected: () => Promise<void> = async () => {},
): Promise<Figures> {
  const before = heap();
  const child = fork(
    path.join(import.meta.dirname, "gateway-load.ts"),
    ["--port", String(port), "--devices", String(DEVICES), "--alarms", String(ALARMS)],
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  let bytesPerDevice = 0;
  child.on("message", async () => {
    bytesPerDevice = (heap() - before) / DEVICES;
    await whileConnected();
    child.send("go");
  });
  await new Promise((resolve) => child.on("exit", resolve));
  return { ...JSON.parse(out.trim().split("\n").at(-1) ?? "{}"), bytesPerDevice };
}

async function listen(
  handler: (socket: import("node:net").Socket) => void,
): Promise<[Server, number]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [server, (server.address() as { port: number }).port];
}

/** `count` provisioned devices KW-BENCH-000000…, each with device secret `secret-<code>`. */
export async function insertGatewayDevices(db: Db, count: number) {
  const now = new Date();
  for (let start = 0; start < count; start += 2000) {
    await db.insert(devices).values(
      Array.from({ length: Math.min(2000, count - start) }, (_, k) => {
        const code = `KW-BENCH-${String(start + k).padStart(6, "0")}`;
        return {
          code,
          secretHash: hashToken(`secret-${code}`),
          passwordHash: "unused",
          createdAt: now,
        };
      }),
    );
  }
}

/** Keyway's server on `db` in this process, its embedded broker on a loopback port. */
export async function startGateway(db: Db) {
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent" }),
    db,
    logger: false,
    sweepEveryMs: 0,
  });
  const port = await app.services.gateway.listenTcp(0, "127.0.0.1");
  return { app, port };
}

/**
 * N devices connect to one server, then publish alarms: Keyway's gateway (authentication
 * against the database, per-device topic rules, each alarm stored before PUBACK) against a
 * bare Aedes broker with no Keyway logic as the baseline. `--deploy`
 * (bench/gateway-deploy.ts): devices on Mosquitto and two server processes instead.
 */
export async function run(options: { deploy?: boolean } = {}) {
  if (options.deploy) return (await import("./gateway-deploy.ts")).runDeploy();
  const database = await createTestDatabase();
  await insertGatewayDevices(database.db, DEVICES);
  const { app, port: keywayPort } = await startGateway(database.db);
  let online = 0;
  const keyway = await load(keywayPort, async () => {
    // Online flags are written as connections arrive; wait (up to 30 s) for the last ones.
    for (let i = 0; i < 60 && online < DEVICES; i++) {
      const [row] = await database.db
        .select({ n: count() })
        .from(devices)
        .where(eq(devices.online, true));
      online = row.n;
      if (online < DEVICES) await new Promise((r) => setTimeout(r, 500));
    }
  });
  const [{ stored }] = await database.db.select({ stored: count() }).from(alarms);
  await app.close();
  await database.close();

  const bare = new Aedes();
  await bare.listen();
  const [bareServer, barePort] = await listen(bare.handle);
  const baseline = await load(barePort);
  await new Promise<void>((resolve) => bare.close(() => resolve()));
  bareServer.close();

  const row = (name: string, k: number, b: number, unit: string, digits = 0) =>
    console.log(
      `  ${name.padEnd(28)} ${k.toFixed(digits).padStart(10)} ${b.toFixed(digits).padStart(12)} ${unit.padEnd(10)} ${(k / b).toFixed(2)}x`,
    );
  console.log(
    `gateway: ${DEVICES} devices, ${ALARMS} alarms (QoS 1), ${database.kind}; load generator in its own process`,
  );
  console.log(
    `  ${"".padEnd(28)} ${"keyway".padStart(10)} ${"bare aedes".padStart(12)} ${"".padEnd(10)} ratio`,
  );
  row("connections held", keyway.connections, baseline.connections, "");
  row("connect rate", keyway.connectPerSecond, baseline.connectPerSecond, "/s");
  row("alarms stored (acked)", keyway.alarmsPerSecond, baseline.alarmsPerSecond, "/s");
  row("publish -> row p50", keyway.p50, baseline.p50, "ms", 2);
  row("publish -> row p99", keyway.p99, baseline.p99, "ms", 2);
  row(
    "heap per connected device",
    keyway.bytesPerDevice / 1024,
    baseline.bytesPerDevice / 1024,
    "KiB",
    1,
  );
  console.log(
    `  check: ${stored} alarm rows stored of ${ALARMS}; ${online} devices marked online while connected`,
  );
  console.log(
    "  (bare aedes stores nothing: its PUBACK is the broker's; Keyway's follows the database row)",
  );
}
