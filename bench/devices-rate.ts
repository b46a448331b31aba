import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO_ACCOUNTS } from "../apps/server/src/seed.ts";
import { PROFILE_FLAGS, percentile } from "./stats.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SELECT = "/api/machine/select";

/** A server as `npm start` runs it: main.ts, embedded defaults, a fresh data dir, the demo seed. */
export interface StartedServer {
  port: number;
  token: string;
  /** CPU time (user + system) the server's process has used so far, in ms. */
  cpuMs: () => number;
  stop: () => Promise<void>;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** A process's user + system CPU time in ms, from /proc (fields 14 and 15, after the name). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One POST over a kept-alive connection; resolves with the status and the body. */
function post(port: number, url: string, body: unknown, token?: string) {
  const payload = JSON.stringify(body);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: url,
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          ...(token && { cloudtoken: token }),
        },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          data += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${url}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Starts apps/server/src/main.ts in its own process; `logLevel` "info" is the default request
 * log (its lines go to a file, as a service's stdout goes to the journal), "silent" none.
 */
export async function startServer(logLevel: "info" | "silent"): Promise<StartedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "kw-bench-devices-"));
  const [port, mqttPort] = [await freePort(), await freePort()];
  const out = openSync(path.join(dataDir, "stdout.log"), "w");
  // The embedded defaults: no PostgreSQL or Redis of the calling shell.
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...env } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    // BENCH_PROFILE: the servers write CPU profiles (bench/stats.ts).
    [...PROFILE_FLAGS, "--import", "tsx", "apps/server/src/main.ts"],
    {
      cwd: ROOT,
      stdio: ["ignore", out, out],
      env: {
        ...env,
        DATA_DIR: dataDir,
        PORT: String(port),
        MQTT_PORT: String(mqttPort),
        HOST: "127.0.0.1",
        DEMO: "1",
        LOG_LEVEL: logLevel,
      },
    },
  );
  // A bench that fails or is stopped leaves no server behind.
  process.once("exit", () => child.kill("SIGKILL"));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(force);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  // Starting takes a while on a loaded machine (tsx compiles the server first).
  const giveUp = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server (${logLevel}) ended at start`);
    const login = await post(port, "/api/user/login", {
      loginName: DEMO_ACCOUNTS.user.email,
      loginPwd: DEMO_ACCOUNTS.user.password,
    }).catch(() => null);
    if (login?.status === 200) {
      const token = JSON.parse(login.body).hwdata?.result?.token as string | undefined;
      if (token) return { port, token, cpuMs: () => cpuMsOf(child.pid ?? 0), stop };
    }
    if (Date.now() > giveUp) {
      await stop();
      throw new Error(`server (${logLevel}) did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One personal device list call; throws on anything but a full answer. */
async function select(server: StartedServer) {
  const res = await post(server.port, SELECT, {}, server.token);
  if (res.status !== 200 || !res.body.startsWith('{"hwcode":0')) throw new Error("bad answer");
}

/**
 * Open loop at a fixed rate: a call starts every 1/rate s whatever the others do, and its
 * latency counts from when it was due (a stalled server is not hidden by waiting for it).
 */
export async function fixedRate(server: StartedServer, rate: number, seconds: number) {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  let failed = 0;
  const start = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    calls.push(
      select(server).then(
        () => void latencies.push(performance.now() - due),
        () => void failed++,
      ),
    );
  }
  await Promise.all(calls);
  // A failed or unanswered call counts as the slowest.
  for (let i = 0; i < failed; i++) latencies.push(Number.POSITIVE_INFINITY);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed };
}

/**
 * Closed loop: `concurrency` callers back to back; calls answered per second, and the server's
 * CPU time per call (steadier than the rate on a shared machine: others take wall time, not
 * the server's CPU time).
 */
export async function maxRate(server: StartedServer, concurrency: number, seconds: number) {
  let done = 0;
  const cpuBefore = server.cpuMs();
  const end = performance.now() + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      await select(server);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, caller));
  return {
    perSecond: done / ((performance.now() - start) / 1000),
    cpuMsPerCall: (server.cpuMs() - cpuBefore) / done,
  };
}
