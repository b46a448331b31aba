import { type ChildProcess, fork, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { systemClock } from "../apps/server/src/infra/clock.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";
import { DEMO_ACCOUNTS, seedDemo, seedDemoDevice } from "../apps/server/src/seed.ts";

const BYTES = Number(process.env.BENCH_BYTES ?? 1024 ** 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const ROOT = path.resolve(import.meta.dirname, "..");

interface Figures {
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

/** Runs the client process against `url`; resolves with its figures. */
function client(url: string, extra: string[] = []): Promise<Figures> {
  const child = fork(
    path.join(import.meta.dirname, "tunnel-client.ts"),
    ["--url", url, "--bytes", String(BYTES), "--requests", String(REQUESTS), ...extra],
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      if (code) reject(new Error(`client exited with ${code}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}"));
    });
  });
}

function firstLine(child: ChildProcess): Promise<string> {
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

/**
 * Remote access throughput and latency: a 1 GB download and small requests from a client
 * process to a target process (the device's web server), once directly over loopback and
 * once through the relay (server in this process, the real agent CLI in its own) with a
 * visit cookie on a visit host. Four processes share this machine's cores.
 */
export async function run() {
  const target = fork(path.join(import.meta.dirname, "tunnel-target.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const targetPort = (JSON.parse(await firstLine(target)) as { port: number }).port;
  const direct = await client(`http://127.0.0.1:${targetPort}`);

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
      "apps/agent/src/cli.ts",
      "run",
      "--server",
      `ws://127.0.0.1:${port}/mqtt`,
      "--code",
      demo.machineCode,
      `--secret=${demo.deviceSecret}`,
      "--data-dir",
      dataDir,
      "--target",
      `127.0.0.1:${targetPort}`,
      "--location-every",
      "0",
    ],
    { cwd: ROOT, stdio: "ignore" },
  );
  for (let i = 0; i < 600 && !app.services.tunnels.hello(device.id); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (!app.services.tunnels.hello(device.id)) throw new Error("the agent's tunnel did not come up");

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

  let peakRss = 0;
  const baseRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss - baseRss);
  }, 100);
  const relay = await client(`http://127.0.0.1:${port}`, [
    "--host",
    visit.host,
    "--cookie",
    cookie,
  ]);
  clearInterval(sampler);

  agent.kill("SIGTERM");
  target.kill("SIGTERM");
  await app.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });

  const row = (name: string, r: number, d: number, unit: string, digits: number) =>
    console.log(
      `  ${name.padEnd(26)} ${r.toFixed(digits).padStart(10)} ${d.toFixed(digits).padStart(10)} ${unit.padEnd(5)} ${(r / d).toFixed(2)}x`,
    );
  console.log(
    `tunnel: ${(BYTES / 1024 ** 3).toFixed(2)} GiB download, ${REQUESTS} small requests on one keep-alive connection; client, server (+ PGlite), agent and target in 4 processes`,
  );
  console.log(
    `  ${"".padEnd(26)} ${"relay".padStart(10)} ${"direct".padStart(10)} ${"".padEnd(5)} ratio`,
  );
  row("throughput", relay.mbPerSecond, direct.mbPerSecond, "MB/s", 0);
  row("small request p50", relay.p50, direct.p50, "ms", 3);
  row("small request p99", relay.p99, direct.p99, "ms", 3);
  console.log(
    `  added latency: p50 +${(relay.p50 - direct.p50).toFixed(3)} ms, p99 +${(relay.p99 - direct.p99).toFixed(3)} ms; server RSS growth during the relay run: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`,
  );
}
