/**
 * `npm run bench -- gateway --deploy`: the device gateway as deployed (docs/deploy.md "MQTT
 * broker") — devices speak MQTT over TLS to Mosquitto (deploy/mosquitto, their logins in its
 * password file), and two server processes (the production build from
 * keyway-server@.service) each read every uplink from it and store each alarm once in a
 * PostgreSQL server. No nginx: devices do not pass through it. Peer in the same run, in
 * alternating rounds: the single-node gateway of `bench -- gateway` (the server in this
 * process, its embedded broker, devices over plain MQTT) on a database of the same
 * PostgreSQL server. Each round connects BENCH_DEVICES devices (default 2,000), sends a burst
 * of BENCH_ALARMS alarms (default 2,000; at most 200 awaiting their PUBACK) and then
 * BENCH_RATE alarms/s (default 50) for BENCH_SECONDS (default 10), and times each alarm from
 * its publish to its row (bench/gateway-deploy-load.ts); BENCH_ROUNDS rounds (default 3).
 * The defaults finish in about four minutes on the 2-core reference machine under load.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "../apps/server/src/db/client.ts";
import { HOST, until } from "../tests/deploy/stack.ts";
import { type DeployStack, startDeployStack } from "./deploy-stack.ts";
import { adminSql, forkLoad } from "./fixtures.ts";
import { insertGatewayDevices, startGateway } from "./gateway.ts";
import { openDevice } from "./mqttDevices.ts";
import { cpuSeconds, percentile, rssOf } from "./stats.ts";

const DEVICES = Number(process.env.BENCH_DEVICES ?? 2000);
const BURST = Number(process.env.BENCH_ALARMS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Phase {
  alarms: number;
  acked: number;
  stored: number;
  storedPerSecond: number;
  p50: number;
  p99: number;
  ackP50: number;
  ackP99: number;
}

interface Figures {
  connections: number;
  connectPerSecond: number;
  burst: Phase;
  paced: Phase;
  rowsInTable: number;
  timed: number;
  caughtByRescan: number;
  /** Memory growth of the broker's process while the devices are connected, per device. */
  bytesPerDevice: number;
  /** CPU seconds each process used over the round. */
  cpu: Record<string, number>;
}

/** The load generator of the round under way: stopped with the stack if the run is cut short. */
let running: { child: ChildProcess } | undefined;

/**
 * One round of the load generator against a broker on `port`: `memory` reads the broker's
 * memory (counted from `before`, read once before the first round: an allocator keeps what
 * the last round's devices freed), `processes` the CPU seconds of the processes at work.
 */
async function round(
  args: Record<string, string | number>,
  memory: () => number,
  before: number,
  processes: Record<string, () => number>,
): Promise<Figures> {
  const cpuBefore = Object.fromEntries(Object.entries(processes).map(([k, read]) => [k, read()]));
  let bytesPerDevice = 0;
  const load = forkLoad<Omit<Figures, "bytesPerDevice" | "cpu">>("gateway-deploy-load.ts", {
    devices: DEVICES,
    burst: BURST,
    rate: RATE,
    seconds: SECONDS,
    ...args,
  });
  running = load;
  const { child, figures } = load;
  child.on("message", () => {
    bytesPerDevice = (memory() - before) / DEVICES;
    child.send("go");
  });
  const result = await figures;
  if (!result.burst) throw new Error("the load generator printed no figures");
  const cpu = Object.fromEntries(
    Object.entries(processes).map(([k, read]) => [k, read() - cpuBefore[k]]),
  );
  return { ...result, bytesPerDevice, cpu };
}

/** This process's JS heap after a forced GC (what `bench -- gateway` counts per device). */
const heap = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

/** The PostgreSQL server's main process (its backends are its children), when it is local. */
async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("show data_directory");
    return Number(readFileSync(`${rows[0].data_directory}/postmaster.pid`, "utf8").split("\n")[0]);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** A database of its own on the stack's PostgreSQL server, dropped with the stack. */
async function sideDatabase(stack: DeployStack): Promise<string> {
  const name = `kw_bench_single_${Date.now()}`;
  const admin = (sql: string) => adminSql(stack.postgres.adminUrl, sql);
  await admin(`create database ${name}`);
  stack.onClose(() => admin(`drop database if exists ${name} with (force)`));
  const url = new URL(stack.postgres.adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function runDeploy() {
  const began = Date.now();
  const loadBefore = loadavg();
  let stack: DeployStack | undefined;
  try {
    stack = await startDeployStack({ label: "bench-gateway", nginx: false, demo: false });
    const s = stack;

    // The devices: rows in the deployed database, and their broker logins as docs/deploy.md
    // "First start" adds them (machine code and device secret, hashed by mosquitto_passwd).
    // Not through `keyway devices provision`: it hashes each device password with argon2,
    // minutes for thousands of devices on this machine.
    const deployed = await openDatabase({ url: s.postgres.url });
    s.onClose(() => deployed.close());
    await insertGatewayDevices(deployed.db, DEVICES);
    const logins = path.join(s.layout.root, "work/new.passwd");
    writeFileSync(
      logins,
      Array.from({ length: DEVICES }, (_, i) => {
        const code = `KW-BENCH-${String(i).padStart(6, "0")}`;
        return `${code}:secret-${code}\n`;
      }).join(""),
      { mode: 0o600 },
    );
    execFileSync("mosquitto_passwd", ["-U", logins]);
    appendFileSync(s.etc("/etc/mosquitto/keyway.passwd"), readFileSync(logins));
    rmSync(logins);
    s.broker.reload();
    const tls = { ca: readFileSync(s.certs.ca), servername: `mqtt.${HOST}` };
    const last = `KW-BENCH-${String(DEVICES - 1).padStart(6, "0")}`;
    await until(
      () =>
        openDevice(s.ports.mqtts, last, `secret-${last}`, tls).then(
          (c) => {
            c.socket.destroy();
            return true;
          },
          () => false,
        ),
      () => `a device's login at the broker: ${s.broker.output()}`,
      30_000,
    );

    // The peer: the single-node gateway, in this process, on a database of the same server.
    const singleUrl = await sideDatabase(s);
    const single = await openDatabase({ url: singleUrl });
    s.onClose(() => single.close());
    await insertGatewayDevices(single.db, DEVICES);
    const gateway = await startGateway(single.db);
    s.onClose(() => gateway.app.close());
    const setUpSeconds = (Date.now() - began) / 1000;

    const postgresPid = await postmasterPid(s.postgres.url);
    const [nodeA, nodeB] = s.nodes.map((n) => n.process.child.pid);
    const deployCpu = {
      mosquitto: () => cpuSeconds(s.broker.child.pid),
      "node 1": () => cpuSeconds(nodeA),
      "node 2": () => cpuSeconds(nodeB),
      postgres: () => cpuSeconds(postgresPid),
    };
    const singleCpu = {
      // Its own only: its reaped children are the load generators.
      "this process (1 node)": () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      },
      postgres: () => cpuSeconds(postgresPid),
    };
    s.onClose(() => running?.child.kill());
    const mosquittoRss = () => rssOf(s.broker.child.pid);
    const memoryBefore = { deploy: mosquittoRss(), single: heap() };
    const runs: Record<"deploy" | "single", Figures[]> = { deploy: [], single: [] };
    const roundsBegan = Date.now();
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so that neither always follows the other's leftovers.
      const order = r % 2 === 0 ? (["deploy", "single"] as const) : (["single", "deploy"] as const);
      for (const system of order) {
        if (system === "deploy")
          runs.deploy.push(
            await round(
              {
                port: s.ports.mqtts,
                ca: s.certs.ca,
                servername: `mqtt.${HOST}`,
                tag: `r${r}d`,
                database: s.postgres.url,
              },
              mosquittoRss,
              memoryBefore.deploy,
              deployCpu,
            ),
          );
        else
          runs.single.push(
            await round(
              { port: gateway.port, tag: `r${r}s`, database: singleUrl },
              heap,
              memoryBefore.single,
              singleCpu,
            ),
          );
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    const roundsSeconds = (Date.now() - roundsBegan) / 1000;

    const med = (system: "deploy" | "single", read: (f: Figures) => number) =>
      percentile(runs[system].map(read), 50);
    const row = (name: string, read: (f: Figures) => number, unit: string, digits = 0) => {
      const d = med("deploy", read);
      const o = med("single", read);
      console.log(
        `  ${name.padEnd(34)} ${d.toFixed(digits).padStart(10)} ${o.toFixed(digits).padStart(10)} ${unit.padEnd(4)} ${(d / o).toFixed(2).padStart(6)}x`,
      );
    };
    const loadAfter = loadavg();
    console.log(
      `gateway --deploy: ${DEVICES} devices; a burst of ${BURST} alarms (QoS 1, at most 200 awaiting PUBACK), then ${RATE} alarms/s for ${SECONDS} s; median of ${ROUNDS} alternating rounds; load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} before, ${loadAfter.map((l) => l.toFixed(1)).join(" ")} after (1/5/15 min, ${cpus().length} cores)`,
    );
    console.log(
      "  2 nodes: devices -mqtts-> Mosquitto -> two server processes (production build, each reads every uplink) -> PostgreSQL server; 1 node: devices -mqtt-> the server's embedded broker (in this process) -> a database on the same PostgreSQL server",
    );
    console.log(
      `  ${"".padEnd(34)} ${"2 nodes".padStart(10)} ${"1 node".padStart(10)} ${"".padEnd(4)}  ratio`,
    );
    row("connect rate (2 nodes: TLS)", (f) => f.connectPerSecond, "/s");
    row("burst: alarms stored", (f) => f.burst.storedPerSecond, "/s");
    row("burst: publish -> row p50", (f) => f.burst.p50, "ms", 1);
    row("burst: publish -> row p99", (f) => f.burst.p99, "ms", 1);
    row("burst: publish -> PUBACK p50", (f) => f.burst.ackP50, "ms", 1);
    row("burst: publish -> PUBACK p99", (f) => f.burst.ackP99, "ms", 1);
    row(`${RATE}/s: alarms stored`, (f) => f.paced.storedPerSecond, "/s");
    row(`${RATE}/s: publish -> row p50`, (f) => f.paced.p50, "ms", 1);
    row(`${RATE}/s: publish -> row p99`, (f) => f.paced.p99, "ms", 1);
    row("memory per connected device", (f) => f.bytesPerDevice / 1024, "KiB", 1);
    for (const system of ["deploy", "single"] as const)
      console.log(
        `  check, ${system === "deploy" ? "2 nodes" : "1 node"}, each round: devices connected / alarms timed to their row of sent / rows in the table / seen only by the re-read: ${runs[
          system
        ]
          .map(
            (f) =>
              `${f.connections} / ${f.burst.stored + f.paced.stored} of ${f.burst.alarms + f.paced.alarms} / ${f.rowsInTable} / ${f.caughtByRescan}`,
          )
          .join(", ")}`,
      );
    for (const system of ["deploy", "single"] as const) {
      const cpu = runs[system][0].cpu;
      console.log(
        `  CPU seconds per round (median), ${system === "deploy" ? "2 nodes" : "1 node"}: ${Object.keys(
          cpu,
        )
          .map((k) => `${k} ${med(system, (f) => f.cpu[k]).toFixed(1)}`)
          .join(", ")}`,
      );
    }
    console.log(
      "  behind Mosquitto a PUBACK is the broker's own (before any node has the alarm); the row is what counts: polled every 10 ms, so a row time is late by up to ~10 ms plus a query. 1 node: PUBACK follows the row. Memory: Mosquitto's RSS (2 nodes) / the server's JS heap after GC (1 node, as bench -- gateway counts it)",
    );
    console.log(
      `  timing: set-up ${setUpSeconds.toFixed(0)} s, rounds ${roundsSeconds.toFixed(0)} s, whole run ${((Date.now() - began) / 1000).toFixed(0)} s`,
    );
  } finally {
    await stack?.close();
  }
}
