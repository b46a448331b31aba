/**
 * `npm run bench -- push [sockets]`: N open `/ws` sockets (default 10,000) on one server,
 * then one push fanned out to all of them, several times: Keyway's push hub (token check
 * against the database on connect, one terminal token per socket, delivery through the bus
 * by user) against a bare `ws` server sending the same frame to every client as the
 * baseline. Both servers live in this process and are measured in alternating rounds; the
 * figures are medians over the rounds. The clients run in two child processes of this file
 * (`--push-load`), so that they use the second core; like real clients they send a
 * heartbeat every 15 s.
 */
import { type ChildProcess, execSync, fork } from "node:child_process";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { encodePush, PING_FRAME, PONG_FRAME, PUSH_SCENES } from "@keyway/protocol";
import { PUSH_HEARTBEAT_MS } from "@keyway/shared";
import { WebSocket, WebSocketServer } from "ws";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { hashToken, newToken } from "../apps/server/src/infra/crypto.ts";
import { terminals } from "../apps/server/src/modules/accounts/schema.ts";
import { percentile } from "./stats.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? process.argv[3] ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Alternating rounds: each connects all the sockets to one server, then pushes ROUNDS times. */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const WARMUP = 3;
const CHILDREN = 2;
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------
// Load generator (child process): opens its share of the sockets, reports arrival times.

type ToChild = { type: "connect"; urls: string[] } | { type: "close" };
type FromChild =
  | { type: "ready" }
  | { type: "connected"; opened: number; failed: number }
  | { type: "arrivals"; times: number[] };

async function loadMain() {
  const sockets: WebSocket[] = [];
  let arrivals: number[] = [];
  let expected = 0;
  const tell = (message: FromChild) => process.send?.(message);
  const heartbeats: NodeJS.Timeout[] = [];

  function open(url: string): Promise<WebSocket | null> {
    return new Promise((resolve) => {
      const socket = new WebSocket(url);
      socket.binaryType = "nodebuffer";
      socket.on("message", (data: Buffer) => {
        const at = now();
        if (data.length === PONG_FRAME.length && data.equals(PONG_FRAME)) return;
        arrivals.push(at);
        if (arrivals.length === expected) {
          tell({ type: "arrivals", times: arrivals });
          arrivals = [];
        }
      });
      socket.once("open", () => {
        // Heartbeats from the start, spread over the period as independent clients send
        // them: a slow connect phase must not leave the first sockets silent past the timeout.
        const start = setTimeout(
          () => {
            socket.send(PING_FRAME);
            heartbeats.push(setInterval(() => socket.send(PING_FRAME), PUSH_HEARTBEAT_MS));
          },
          Math.floor(Math.random() * PUSH_HEARTBEAT_MS),
        );
        heartbeats.push(start);
        resolve(socket);
      });
      socket.once("error", () => resolve(null));
    });
  }

  process.on("message", async (message: ToChild) => {
    if (message.type === "close") {
      for (const timer of heartbeats) clearInterval(timer);
      for (const socket of sockets) socket.terminate();
      process.exit(0);
    }
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < message.urls.length) {
          const socket = await open(message.urls[next++]);
          if (socket) sockets.push(socket);
          else failed++;
        }
      }),
    );
    expected = sockets.length;
    tell({ type: "connected", opened: sockets.length, failed });
  });
  tell({ type: "ready" });
}

// ---------------------------------------------------------------------------------------
// The benchmark (parent process).

interface Figures {
  held: number;
  connectPerSecond: number;
  p50: number;
  p99: number;
  /** Until the last socket of a round had the push; median over the rounds. */
  lastMedian: number;
  /** The fan-out call itself (every frame handed to its socket); median over the rounds. */
  sendMedian: number;
  /** JS heap plus memory outside it (Buffers), after a forced GC. */
  bytesPerSocket: number;
}

/** Lets closed sockets' timers run out, then collects. */
async function memory() {
  await new Promise((r) => setTimeout(r, 2500));
  global.gc?.();
  global.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

const nextMessage = (child: ChildProcess) =>
  new Promise<FromChild>((resolve) => child.once("message", resolve));

async function startChildren(): Promise<ChildProcess[]> {
  const children = Array.from({ length: CHILDREN }, () =>
    fork(import.meta.filename, ["--push-load"], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  await Promise.all(children.map(nextMessage));
  return children;
}

/**
 * Connects a client to each of `urls`, waits until the server `held` them all, then runs
 * ROUNDS fan-outs with `fanOut` and times every delivery.
 */
async function measure(urls: string[], held: () => number, fanOut: () => void): Promise<Figures> {
  const children = await startChildren();
  const before = await memory();
  const started = performance.now();
  const share = Math.ceil(urls.length / CHILDREN);
  const connected = await Promise.all(
    children.map((child, i) => {
      const answer = nextMessage(child);
      child.send({
        type: "connect",
        urls: urls.slice(i * share, (i + 1) * share),
      } satisfies ToChild);
      return answer;
    }),
  );
  for (let i = 0; i < 2400 && held() < urls.length; i++)
    await new Promise((r) => setTimeout(r, 50));
  const connectSeconds = (performance.now() - started) / 1000;
  const failed = connected.reduce((n, c) => n + (c.type === "connected" ? c.failed : 0), 0);
  if (failed) console.warn(`  ${failed} sockets failed to open`);
  const after = await memory();
  const count = held();

  const latencies: number[] = [];
  const lasts: number[] = [];
  const sends: number[] = [];
  for (let round = -WARMUP; round < ROUNDS; round++) {
    const answers = children.map(nextMessage);
    const t0 = now();
    fanOut();
    if (round >= 0) sends.push(now() - t0);
    const got = await Promise.all(answers);
    let last = 0;
    for (const message of got) {
      if (message.type !== "arrivals") continue;
      for (const at of message.times) {
        if (round >= 0) latencies.push(at - t0);
        last = Math.max(last, at - t0);
      }
    }
    if (round >= 0) lasts.push(last);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const child of children) child.send({ type: "close" } satisfies ToChild);
  await Promise.all(children.map((child) => new Promise((r) => child.once("exit", r))));
  return {
    held: count,
    connectPerSecond: count / connectSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    lastMedian: percentile(lasts, 50),
    sendMedian: percentile(sends, 50),
    bytesPerSocket: (after - before) / count,
  };
}

export async function run() {
  const limit = Number(execSync("sh -c 'ulimit -n'").toString().trim());
  if (Number.isFinite(limit) && limit < SOCKETS + 500) {
    console.error(
      `push bench: ulimit -n is ${limit}; ${SOCKETS} sockets need more (ulimit -n ${SOCKETS + 1000}, or BENCH_SOCKETS=${limit - 500})`,
    );
    process.exit(1);
  }
  const frame = encodePush(PUSH_SCENES.deviceAlarm, {
    deviceCode: "KW-BENCH-00001",
    deviceId: 1,
    totalUnreadMsg: 3,
  });

  // Keyway: the whole app, one user with a terminal (a token of its own) for every socket.
  const database = await createTestDatabase();
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent" }),
    db: database.db,
    logger: false,
    sweepEveryMs: 0,
  });
  const user = await app.services.accounts.createActivatedUser({
    account: { channel: "email", email: "push-bench@example.com" },
    password: "bench123",
    name: "Bench",
  });
  const tokens = Array.from({ length: SOCKETS }, () => newToken());
  for (let i = 0; i < tokens.length; i += 1000) {
    await database.db.insert(terminals).values(
      tokens.slice(i, i + 1000).map((token, j) => ({
        userId: user.id,
        tokenHash: hashToken(token),
        uuid: `push-bench-${i + j}`,
        type: "web",
        name: "bench",
        loginTime: new Date(),
        expiresAt: new Date(Date.now() + 86_400_000),
      })),
    );
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  const push = app.services.push;
  const keywayUrls = tokens.map((token) => `ws://127.0.0.1:${port}/ws?token=${token}`);

  // Baseline: a bare ws server that answers heartbeats and sends the same frame to all.
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => wss.once("listening", resolve));
  wss.on("connection", (socket) => {
    socket.on("message", () => socket.send(PONG_FRAME));
  });
  const barePort = (wss.address() as AddressInfo).port;
  const bareUrls = tokens.map(() => `ws://127.0.0.1:${barePort}/ws`);

  const keyway: Figures[] = [];
  const baseline: Figures[] = [];
  const loads: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const measureKeyway = async () =>
      keyway.push(
        await measure(
          keywayUrls,
          () => push.socketCount(),
          () =>
            push.toUser(user.id, {
              scene: PUSH_SCENES.deviceAlarm,
              body: { deviceCode: "KW-BENCH-00001", deviceId: 1, totalUnreadMsg: 3 },
            }),
        ),
      );
    const measureBare = async () =>
      baseline.push(
        await measure(
          bareUrls,
          () => wss.clients.size,
          () => {
            for (const client of wss.clients) client.send(frame);
          },
        ),
      );
    loads.push(loadavg()[0]);
    // Which goes first alternates, so neither always runs on a machine the other warmed.
    if (pair % 2 === 0) {
      await measureKeyway();
      await measureBare();
    } else {
      await measureBare();
      await measureKeyway();
    }
  }
  await new Promise((resolve) => wss.close(resolve));
  await app.close();
  await database.close();

  const median = (runs: Figures[], key: keyof Figures) =>
    percentile(
      runs.map((r) => r[key]),
      50,
    );
  const row = (name: string, key: keyof Figures, unit: string, digits = 0, scale = 1) => {
    const k = median(keyway, key) / scale;
    const b = median(baseline, key) / scale;
    console.log(
      `  ${name.padEnd(30)} ${k.toFixed(digits).padStart(10)} ${b.toFixed(digits).padStart(10)} ${unit.padEnd(6)} ${(k / b).toFixed(2)}x`,
    );
  };
  console.log(
    `push: ${SOCKETS} sockets on one server (one terminal token each), ${ROUNDS} pushes each fanned out to all of them (${database.kind}); clients in ${CHILDREN} processes; median of ${PAIRS} alternating rounds per server; load average ${percentile(loads, 50).toFixed(1)} (median of rounds; ${loadavg()[0].toFixed(1)} at the end)`,
  );
  console.log(
    `  ${"".padEnd(30)} ${"keyway".padStart(10)} ${"bare ws".padStart(10)} ${"".padEnd(6)} ratio`,
  );
  row("sockets held", "held", "");
  row("connect rate", "connectPerSecond", "/s");
  row("fan-out call (median)", "sendMedian", "ms", 1);
  row("push -> socket p50", "p50", "ms", 1);
  row("push -> socket p99", "p99", "ms", 1);
  row("push -> last socket (median)", "lastMedian", "ms", 1);
  row("memory per socket", "bytesPerSocket", "KiB", 1, 1024);
  console.log(
    "  (latency: toUser() or the bare loop called -> frame read by a client process; connect rate includes Keyway's token check; memory: heap + Buffers after GC)",
  );
}

if (process.argv.includes("--push-load")) await loadMain();
