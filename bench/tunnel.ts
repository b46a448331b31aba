import { type ChildProcess, fork, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { systemClock } from "../apps/server/src/infra/clock.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";
import { DEMO_ACCOUNTS, seedDemo, seedDemoDevice } from "../apps/server/src/seed.ts";
import { percentile } from "./stats.ts";

export const BYTES = Number(process.env.BENCH_BYTES ?? 1024 ** 3);
export const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = path.resolve(import.meta.dirname, "..");
/** BENCH_PROFILE=<dir>: every process writes a CPU profile there (open in Chrome DevTools). */
const PROFILE = process.env.BENCH_PROFILE
  ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
  : [];

export interface Figures {
  mbPerSecond: number;
  p50: number;
  p99: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * Runs the client process against `url`; resolves with its figures. `onDownloaded` runs
 * between its download and its small requests.
 */
export function client(
  url: string,
  extra: string[] = [],
  options: { bytes?: number; onDownloaded?: () => void } = {},
): Promise<Figures> {
  const { bytes = BYTES, onDownloaded } = options;
  const child = fork(
    path.join(import.meta.dirname, "tunnel-client.ts"),
    ["--url", url, "--bytes", String(bytes), "--requests", String(REQUESTS), ...extra],
    { execArgv: ["--import", "tsx", ...PROFILE], stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  child.on("message", (message) => {
    if (message === "downloaded") onDownloaded?.();
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      // Killed or crashed: a rejection, never a throw in this handler.
      if (code !== 0) reject(new Error(`client exited with ${signal ?? code}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}"));
    });
  });
}

export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let out = "";
    child.stdout?.on("data", function onData(d) {
      out += d;
      if (out.includes("\n")) {
        child.stdout?.off("data", onData);
        resolve(out.split("\n")[0]);
      }
    });
  });
}

/** The device's web server (bench/tunnel-target.ts) in its own process. */
export async function startTarget(): Promise<{ port: number; stop(): void }> {
  const target = fork(path.join(import.meta.dirname, "tunnel-target.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const port = (JSON.parse(await firstLine(target)) as { port: number }).port;
  return { port, stop: () => target.kill("SIGTERM") };
}

export interface Relay {
  /** Where the client connects (plain HTTP on loopback), the visit host and its cookie. */
  port: number;
  host: string;
  cookie: string;
  stop(): Promise<void>;
}

/**
 * The single-node relay: the server in this process (+ PGlite), the real agent CLI in its own
 * process with its tunnel straight to it (ws://), and a visit issued to the demo user.
 */
export async function startSingleNode(targetPort: number): Promise<Relay> {
  const database = await createTestDatabase();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "kw-bench-tunnel-"));
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent", PUBLIC_URL: `http://localhost:${port}` }),
    db: database.db,
    logger: false,
    sweepEveryMs: 0,
  });
  await app.listen({ port, host: "127.0.0.1" });
  await seedDemo(app.services.accounts);
  const demo = await seedDemoDevice({
    db: database.db,
    clock: systemClock,
    accounts: app.services.accounts,
    devices: app.services.devices,
    dataDir,
  });
  const [device] = await database.db
    .select({ id: devices.id })
    .from(devices)
    .where(eq(devices.code, demo.machineCode));
  const agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      ...PROFILE,
      "apps/agent/src/cli.ts",
      "run",
      "--server",
      `ws://127.0.0.1:${port}/mqtt`,
      "--code",
      demo.machineCode,
      "--data-dir",
      dataDir,
      "--target",
      `127.0.0.1:${targetPort}`,
      "--location-every",
      "0",
    ],
    {
      cwd: ROOT,
      stdio: "ignore",
      // The secret in the environment, never on a command line (docs/security.md).
      env: { ...process.env, KEYWAY_AGENT_SECRET: demo.deviceSecret },
    },
  );
  const stop = async () => {
    agent.kill("SIGTERM");
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 600 && !app.services.tunnels.hello(device.id); i++)
      await new Promise((r) => setTimeout(r, 100));
    if (!app.services.tunnels.hello(device.id))
      throw new Error("the agent's tunnel did not come up");

    const login = await app.inject({
      method: "POST",
      url: "/api/user/login",
      payload: {
        loginName: DEMO_ACCOUNTS.user.email,
        loginPwd: DEMO_ACCOUNTS.user.password,
        terminalUUID: "bench",
        terminalName: "bench",
      },
    });
    const token = login.json().hwdata.result.token as string;
    const issued = await app.inject({
      method: "POST",
      url: "/api/v1/audit/getValidVisitUrl",
      headers: { cloudtoken: token },
      payload: { machineID: device.id },
    });
    const visit = new URL(issued.json().hwdata.url as string);
    const cookie = await new Promise<string>((resolve, reject) => {
      http
        .get(
          `http://127.0.0.1:${port}${visit.pathname}${visit.search}`,
          { headers: { host: visit.host } },
          (res) => {
            res.resume();
            resolve((res.headers["set-cookie"]?.[0] ?? "").split(";")[0]);
          },
        )
        .on("error", reject);
    });
    return { port, host: visit.host, cookie, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The median of each figure over rounds. */
export const median = (list: Figures[]): Figures => ({
  mbPerSecond: percentile(
    list.map((f) => f.mbPerSecond),
    50,
  ),
  p50: percentile(
    list.map((f) => f.p50),
    50,
  ),
  p99: percentile(
    list.map((f) => f.p99),
    50,
  ),
});

/**
 * Remote access throughput and latency: a 1 GB download and small requests from a client
 * process to a target process (the device's web server) three ways — directly over loopback,
 * through two bare TCP pipe processes (the floor for a relay of this shape), and through the
 * relay (server in this process, the real agent CLI in its own) with a visit cookie on a
 * visit host — in alternating rounds. Up to five processes share this machine's cores.
 * `--deploy` (bench/tunnel-deploy.ts): through nginx and two server processes instead.
 */
export async function run(options: { deploy?: boolean } = {}) {
  if (options.deploy) return (await import("./tunnel-deploy.ts")).runDeploy();
  const target = await startTarget();
  const targetPort = target.port;
  // The floor: two bare pipe processes where the server and the agent stand.
  const pipes: ChildProcess[] = [];
  let pipePort = targetPort;
  for (let i = 0; i < 2; i++) {
    const pipe = fork(
      path.join(import.meta.dirname, "tunnel-pipe.ts"),
      ["--to", String(pipePort)],
      {
        execArgv: ["--import", "tsx", ...PROFILE],
        stdio: ["ignore", "pipe", "inherit", "ipc"],
      },
    );
    pipes.push(pipe);
    pipePort = (JSON.parse(await firstLine(pipe)) as { port: number }).port;
  }
  const relayNode = await startSingleNode(targetPort);
  const { port } = relayNode;

  let peakRss = 0;
  const baseRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss - baseRss);
  }, 100);
  // Rounds alternate the three paths so that each sees the same load on this shared machine;
  // each figure is the median over the rounds.
  const runs: Record<"relay" | "direct" | "bare", Figures[]> = { relay: [], direct: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.direct.push(await client(`http://127.0.0.1:${targetPort}`));
    runs.bare.push(await client(`http://127.0.0.1:${pipePort}`));
    runs.relay.push(
      await client(`http://127.0.0.1:${port}`, [
        "--host",
        relayNode.host,
        "--cookie",
        relayNode.cookie,
      ]),
    );
  }
  clearInterval(sampler);
  for (const pipe of pipes) pipe.kill("SIGTERM");
  const relay = median(runs.relay);
  const direct = median(runs.direct);
  const bare = median(runs.bare);

  target.stop();
  await relayNode.stop();

  const row = (name: string, r: number, d: number, b: number, unit: string, digits: number) =>
    console.log(
      `  ${name.padEnd(20)} ${r.toFixed(digits).padStart(9)} ${d.toFixed(digits).padStart(9)} ${b.toFixed(digits).padStart(9)} ${unit.padEnd(5)} ${(r / d).toFixed(2).padStart(6)}x ${(r / b).toFixed(2).padStart(6)}x`,
    );
  console.log(
    `tunnel: ${(BYTES / 1024 ** 3).toFixed(2)} GiB download and ${REQUESTS} small requests on one keep-alive connection, median of ${ROUNDS} alternating rounds; client, server (+ PGlite), agent and target in 4 processes; load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `  ${"".padEnd(20)} ${"relay".padStart(9)} ${"direct".padStart(9)} ${"2 pipes".padStart(9)} ${"".padEnd(5)} ${"/direct".padStart(7)} ${"/pipes".padStart(7)}`,
  );
  row("throughput", relay.mbPerSecond, direct.mbPerSecond, bare.mbPerSecond, "MB/s", 0);
  row("small request p50", relay.p50, direct.p50, bare.p50, "ms", 3);
  row("small request p99", relay.p99, direct.p99, bare.p99, "ms", 3);
  console.log(
    `  added latency: p50 +${(relay.p50 - direct.p50).toFixed(3)} ms (two bare pipes: +${(bare.p50 - direct.p50).toFixed(3)} ms), p99 +${(relay.p99 - direct.p99).toFixed(3)} ms; server RSS growth during the relay run: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`,
  );
  console.log(
    '  "2 pipes": the same client and target with two bare TCP pipe processes between them, where the server and the agent stand: the floor for any relay of this shape on this machine',
  );
}
