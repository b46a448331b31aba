import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { percentile } from "./stats.ts";

/**
 * `npm run bench -- footprint`: memory as the kernel counts it (VmRSS, and VmHWM, the peak) of
 * - the server as `npm start` runs it (apps/server/dist/main.js on its embedded defaults: PGlite,
 *   embedded broker, demo seed): a first start on a fresh DATA_DIR (the data directory
 *   unpacked from dist/pglite-template.tar.br) and a second start on the same one, their peak
 *   and their RSS once idle; beside them the same build's first start without the template,
 *   which runs PGlite's own initdb (as every first start did before);
 * - the device agent with its MQTT session and its tunnel up and idle: its one build
 *   (dist/keyway-agent.mjs, with --max-semi-space-size=8 as the systemd unit and `npm start`
 *   run it, and plain), beside the agent as the tests run it (sources through tsx), and a bare
 *   mqtt.js client that only connects: the floor of any agent on Node.js and mqtt.js.
 *   (mosquitto_sub, a C client, is not a peer: it takes the password on its command line only.)
 * Agents run one at a time, in alternating rounds; each figure is a median, idle 15 s after the
 * agent is up (and 3 s after, as this bench measured before decision 221).
 */

const ROOT = resolve(import.meta.dirname, "..");
const ROUNDS = 3;
const SAMPLES = 5;
const SETTLE_MS = 3_000;
/**
 * An agent is idle once V8's memory reducer has run, 8 s after its start-up's last collection:
 * until then its RSS holds the start-up's garbage (about 2.5 MiB more, decision 221).
 */
const IDLE_MS = 15_000;

interface Demo {
  server: string;
  tunnel: string;
  machineCode: string;
  deviceSecret: string;
}

/** VmRSS and VmHWM of a process, in MiB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function until(check: () => boolean, what: string, timeoutMs: number, log: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not in ${timeoutMs} ms\n${log()}`);
    await sleep(50);
  }
}

/** The median RSS of a few samples, from `afterMs` after `since`. */
async function rssFrom(pid: number, since: number, afterMs: number): Promise<number> {
  await sleep(Math.max(0, since + afterMs - Date.now()));
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    samples.push(memory(pid).rss);
    await sleep(500);
  }
  return percentile(samples, 50);
}

const idleRss = (pid: number) => rssFrom(pid, Date.now(), SETTLE_MS);

function started(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A server start on `dataDir`: its peak until it is idle, and its idle RSS. */
async function serverStart(dataDir: string, main = "apps/server/dist/main.js") {
  const file = join(dataDir, "demo-agent.json");
  rmSync(file, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: "0",
    MQTT_PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    DEMO: "1",
  };
  for (const key of ["DATABASE_URL", "MQTT_URL", "REDIS_URL", "PUBLIC_URL", "WEB_DIST"]) {
    delete env[key];
  }
  const startedAt = Date.now();
  const server = started([main], env);
  // The server writes the demo device's credentials once it listens (as npm start waits).
  await until(() => existsSync(file), "server start", 300_000, server.output);
  const readyMs = Date.now() - startedAt;
  const pid = server.child.pid ?? 0;
  const rss = await idleRss(pid);
  const demo = JSON.parse(readFileSync(file, "utf8")) as Demo;
  return { child: server.child, readyMs, rss, hwm: memory(pid).hwm, demo };
}

interface Peer {
  name: string;
  start(demo: Demo, dataDir: string): { child: ChildProcess; up: () => boolean; log: () => string };
}

function agentPeer(name: string, program: string[]): Peer {
  return {
    name,
    start(demo, dataDir) {
      const args = [...program, "run", "--server", demo.server, "--code", demo.machineCode];
      args.push("--tunnel", demo.tunnel, "--data-dir", dataDir);
      // The secret in the environment, as a site gives it (not on the command line).
      const p = started(args, { ...process.env, KEYWAY_AGENT_SECRET: demo.deviceSecret });
      const up = () =>
        p.output().includes("connection: connecting -> online") &&
        p.output().includes("tunnel: connecting -> online");
      return { child: p.child, up, log: p.output };
    },
  };
}

/** mqtt.js connecting with the device's login, nothing more. */
const MQTT_ONLY = `import mqtt from "mqtt";
const { KW_SERVER, KW_CODE, KW_SECRET } = process.env;
const client = mqtt.connect(KW_SERVER, { username: KW_CODE, password: KW_SECRET, reconnectPeriod: 0 });
client.on("connect", () => console.log("connected"));
client.on("error", (error) => console.log(String(error)));`;

const bareMqtt: Peer = {
  name: "bare mqtt.js client (connect only, no tunnel)",
  start(demo) {
    const env = {
      ...process.env,
      KW_SERVER: demo.server,
      KW_CODE: demo.machineCode,
      KW_SECRET: demo.deviceSecret,
    };
    // From apps/agent, where `mqtt` resolves as the agent's own dependency.
    const args = ["--input-type=module", "-e", MQTT_ONLY];
    const p = started(args, env, join(ROOT, "apps/agent"));
    return { child: p.child, up: () => p.output().includes("connected"), log: p.output };
  },
};

/** The server and the agent built as a production install has them. */
function build() {
  const result = spawnSync(process.execPath, ["scripts/build.mjs"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`scripts/build.mjs failed:\n${result.stderr}`);
}

/**
 * The same server build in a folder without the template (inside apps/server, where it finds
 * its package.json and migrations): a first start there runs PGlite's initdb.
 */
function buildWithoutTemplate(): { main: string; dir: string } {
  const dir = join(ROOT, "apps/server/.bench-footprint-initdb");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const file of ["main.js", "node-check.js"]) {
    copyFileSync(join(ROOT, "apps/server/dist", file), join(dir, file));
  }
  return { main: join(dir, "main.js"), dir };
}

/** The RSS of Node.js doing nothing: the floor under every Node.js peer. */
async function bareNode(): Promise<number> {
  const p = started(["-e", "setInterval(() => {}, 1e3)"], process.env);
  try {
    return await idleRss(p.child.pid ?? 0);
  } finally {
    await stop(p.child);
  }
}

export async function run(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  const loadAtStart = load();
  build();
  const dataDir = mkdtempSync(join(tmpdir(), "kw-footprint-"));
  const initdbDataDir = mkdtempSync(join(tmpdir(), "kw-footprint-initdb-"));
  const initdbBuild = buildWithoutTemplate();
  const peers: Peer[] = [
    agentPeer("agent bundle, --max-semi-space-size=8 (keyway-agent.service, npm start)", [
      "--max-semi-space-size=8",
      "apps/agent/dist/keyway-agent.mjs",
    ]),
    agentPeer("agent bundle, --max-semi-space-size=1 (the flag before decision 208)", [
      "--max-semi-space-size=1",
      "apps/agent/dist/keyway-agent.mjs",
    ]),
    agentPeer("agent bundle, plain node (dist/keyway-agent.mjs)", [
      "apps/agent/dist/keyway-agent.mjs",
    ]),
    agentPeer("agent sources through tsx", ["--import", "tsx", "apps/agent/src/cli.ts"]),
    bareMqtt,
  ];
  const rss = new Map<string, number[]>(peers.map((peer) => [peer.name, []]));
  const early = new Map<string, number[]>(peers.map((peer) => [peer.name, []]));
  try {
    const initdb = await serverStart(initdbDataDir, initdbBuild.main);
    await stop(initdb.child);
    const first = await serverStart(dataDir);
    await stop(first.child);
    const second = await serverStart(dataDir);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const peer of round % 2 ? [...peers].reverse() : peers) {
          const agentDir = mkdtempSync(join(tmpdir(), "kw-footprint-agent-"));
          const p = peer.start(second.demo, agentDir);
          try {
            await until(p.up, peer.name, 60_000, p.log);
            const up = Date.now();
            early.get(peer.name)?.push(await rssFrom(p.child.pid ?? 0, up, SETTLE_MS));
            rss.get(peer.name)?.push(await rssFrom(p.child.pid ?? 0, up, IDLE_MS));
          } finally {
            await stop(p.child);
            rmSync(agentDir, { recursive: true, force: true });
          }
        }
      }
    } finally {
      await stop(second.child);
    }
    const floor = await bareNode();

    const mib = (n: number) => `${n.toFixed(1)} MiB`;
    console.log(
      `footprint: RSS from /proc/<pid>/status, medians of ${SAMPLES} samples, servers from ${SETTLE_MS / 1000} s after start, agents from ${IDLE_MS / 1000} s after up; agents in ${ROUNDS} alternating rounds, one process at a time; Node ${process.version}; load average ${loadAtStart} at start, ${load()} at end`,
    );
    console.log(
      "server (apps/server/dist/main.js on its embedded defaults, as npm start runs it):",
    );
    for (const [label, s] of [
      ["first start, fresh DATA_DIR (template)    ", first],
      ["second start, same DATA_DIR               ", second],
      ["first start without the template (initdb) ", initdb],
    ] as const) {
      console.log(
        `  ${label}: peak (VmHWM) ${mib(s.hwm)}, idle ${mib(s.rss)}, ready in ${(s.readyMs / 1000).toFixed(1)} s`,
      );
    }
    console.log(
      `  first start, template/initdb: peak ${(first.hwm / initdb.hwm).toFixed(2)}x, idle ${(first.rss / initdb.rss).toFixed(2)}x; first/second start: peak ${(first.hwm / second.hwm).toFixed(2)}x`,
    );
    const base = percentile(rss.get(bareMqtt.name) ?? [], 50);
    console.log(
      `device agent, MQTT session and tunnel up: idle (${IDLE_MS / 1000} s after up), and ${SETTLE_MS / 1000} s after up:`,
    );
    for (const peer of peers) {
      const samples = rss.get(peer.name) ?? [];
      const median = percentile(samples, 50);
      const earlier = percentile(early.get(peer.name) ?? [], 50);
      console.log(
        `  ${peer.name.padEnd(70)} ${mib(median)} (rounds ${samples.map((r) => r.toFixed(1)).join(", ")}); ${(median / base).toFixed(2)}x the bare client; ${mib(earlier)} at ${SETTLE_MS / 1000} s`,
      );
    }
    console.log(
      `  Node.js doing nothing (node -e "setInterval(...)")${" ".repeat(20)} ${mib(floor)}`,
    );
  } finally {
    for (const dir of [dataDir, initdbDataDir, initdbBuild.dir]) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
