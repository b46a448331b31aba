import { type ChildProcess, fork } from "node:child_process";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import type { Db } from "../apps/server/src/db/client.ts";
import { hashToken } from "../apps/server/src/infra/crypto.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";
import { startPostgres } from "../tests/deploy/stack.ts";
import { adminSql, forkLoad } from "./fixtures.ts";
import { PROFILE_FLAGS, percentile } from "./stats.ts";

// `npm run bench -- gateway 2000` or BENCH_DEVICES=2000 (a flag such as --deploy is no count).
const DEVICES = Number(
  process.env.BENCH_DEVICES ?? process.argv.slice(3).find((a) => /^\d+$/.test(a)) ?? 10_000,
);
const ALARMS = Number(process.env.BENCH_ALARMS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The second alarm phase offers alarms at this fixed rate (the issue's 2,000/s). */
const RATE = Number(process.env.BENCH_RATE ?? 2000);

type System = "bare" | "pglite" | "postgres";

interface Figures {
  connections: number;
  connectPerSecond: number;
  alarmsPerSecond: number;
  p50: number;
  p99: number;
  /** Publish -> PUBACK at the fixed RATE, from when each alarm was due. */
  rateP50: number;
  rateP99: number;
  bytesPerDevice: number;
  online: number;
  stored: number;
}

/** The next IPC message of `child`. */
const reply = <T>(child: ChildProcess) =>
  new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));

/**
 * One round: the broker under test in a fresh process (bench/gateway-server.ts), then the
 * load generator against it; the broker's heap is read with every device connected.
 */
async function round(system: System, database?: string): Promise<Figures> {
  const server = fork(
    path.join(import.meta.dirname, "gateway-server.ts"),
    [
      "--system",
      system === "bare" ? "bare" : "keyway",
      "--devices",
      String(DEVICES),
      ...(database ? ["--database", database] : []),
    ],
    {
      // BENCH_PROFILE: each broker process writes a CPU profile (bench/stats.ts).
      execArgv: ["--expose-gc", ...PROFILE_FLAGS, "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const exited = new Promise((resolve) => server.on("exit", resolve));
  try {
    const ready = await reply<{ port: number; heap: number }>(server);
    const load = forkLoad<Omit<Figures, "bytesPerDevice" | "online" | "stored">>(
      "gateway-load.ts",
      { port: ready.port, devices: DEVICES, alarms: ALARMS, rate: RATE },
    );
    let connected = { heap: ready.heap, online: 0 };
    load.child.on("message", async () => {
      server.send("heap");
      connected = await reply(server);
      load.child.send("go");
    });
    const figures = await load.figures;
    server.send("stored");
    const { stored } = await reply<{ stored: number }>(server);
    return {
      ...figures,
      bytesPerDevice: (connected.heap - ready.heap) / DEVICES,
      online: connected.online,
      stored,
    };
  } finally {
    server.kill();
    await exited;
  }
}

/** A fresh database on the PostgreSQL server for one round, dropped after it. */
async function withDatabase<T>(adminUrl: string, r: number, use: (url: string) => Promise<T>) {
  const name = `kw_bench_gateway_${process.pid}_${r}`;
  const admin = (sql: string) => adminSql(adminUrl, sql);
  await admin(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    await admin(`drop database if exists ${name} with (force)`);
  }
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
 * against the database, per-device topic rules, each alarm stored before PUBACK), on PGlite
 * and on a PostgreSQL server (DATABASE_URL's, or one of its own), against a bare Aedes broker
 * with no Keyway logic as the baseline; BENCH_ROUNDS alternating rounds, medians. `--deploy`
 * (bench/gateway-deploy.ts): devices on Mosquitto and two server processes instead.
 */
export async function run(options: { deploy?: boolean } = {}) {
  if (options.deploy) return (await import("./gateway-deploy.ts")).runDeploy();
  const loadBefore = loadavg();
  const postgres = await startPostgres();
  const runs: Record<System, Figures[]> = { bare: [], pglite: [], postgres: [] };
  const systems: System[] = ["bare", "pglite", "postgres"];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // Each round starts with another system, so that none always follows the same one.
      for (const system of [...systems.slice(r % 3), ...systems.slice(0, r % 3)])
        runs[system].push(
          system === "postgres"
            ? await withDatabase(postgres.adminUrl, r, (url) => round(system, url))
            : await round(system),
        );
    }
  } finally {
    await postgres.close();
  }
  const loadAfter = loadavg();

  const med = (system: System, read: (f: Figures) => number) =>
    percentile(runs[system].map(read), 50);
  const row = (name: string, read: (f: Figures) => number, unit: string, digits = 0) => {
    const b = med("bare", read);
    const cell = (system: System) =>
      `${med(system, read).toFixed(digits).padStart(10)} ${(med(system, read) / b).toFixed(2).padStart(6)}x`;
    console.log(
      `  ${name.padEnd(26)} ${b.toFixed(digits).padStart(10)} ${cell("pglite")} ${cell("postgres")} ${unit}`,
    );
  };
  console.log(
    `gateway: ${DEVICES} devices, ${ALARMS} alarms (QoS 1) as fast as acknowledged (at most 200 awaiting PUBACK), then ${ALARMS} more offered at ${RATE}/s; median of ${ROUNDS} alternating rounds; load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} before, ${loadAfter.map((l) => l.toFixed(1)).join(" ")} after (1/5/15 min, ${cpus().length} cores)`,
  );
  console.log(
    "  each broker in a fresh process of its own, the load generator in another; Keyway on PGlite (in its process) and on a PostgreSQL server",
  );
  console.log(
    `  ${"".padEnd(26)} ${"bare aedes".padStart(10)} ${"keyway pglite".padStart(18)} ${"keyway postgres".padStart(18)}`,
  );
  row("connect rate", (f) => f.connectPerSecond, "/s");
  row("alarms stored (acked)", (f) => f.alarmsPerSecond, "/s");
  row("publish -> PUBACK p50", (f) => f.p50, "ms", 2);
  row("publish -> PUBACK p99", (f) => f.p99, "ms", 2);
  row(`at ${RATE}/s: PUBACK p50`, (f) => f.rateP50, "ms", 2);
  row(`at ${RATE}/s: PUBACK p99`, (f) => f.rateP99, "ms", 2);
  row("heap per connected device", (f) => f.bytesPerDevice / 1024, "KiB", 2);
  for (const system of ["pglite", "postgres"] as const)
    console.log(
      `  check, keyway ${system}, each round: devices connected / online while connected / alarm rows of ${2 * ALARMS}: ${runs[
        system
      ]
        .map((f) => `${f.connections} / ${f.online} / ${f.stored}`)
        .join(", ")}`,
    );
  console.log(
    "  bare aedes stores nothing: its PUBACK is the broker's; Keyway's follows the database row, so its PUBACK time is its publish -> row time. Heap: the broker process's JS heap after GC, counted from one device connected and gone",
  );
}
