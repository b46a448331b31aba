import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";
import { LOGOUT_REASON, PUSH_SCENES, type PushMessage } from "@keyway/protocol";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabaseUrl } from "../../config.ts";
import { createRedisBus } from "../../infra/redisBus.ts";
import { freePort } from "../../testing/ports.ts";
import { startRedis } from "../../testing/redis.ts";
import { PUSH_CLOSE } from "./service.ts";
import { PushClient } from "./testClient.ts";

const root = path.resolve(import.meta.dirname, "../../../../..");

interface Node {
  child: ChildProcess;
  port: number;
  userId: number;
  terminalIds: number[];
  tokens: string[];
  /** Sends one command and waits for its answer line. */
  command(value: object): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** One Keyway server process (push.node.fixture.ts). */
async function startNode(options: {
  redisUrl: string;
  seed: boolean;
  databaseUrl?: string;
}): Promise<Node> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(import.meta.dirname, "push.node.fixture.ts"),
      JSON.stringify(options),
    ],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
  );
  const answers: Array<(line: string) => void> = [];
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = once(child, "exit");
  lines.on("line", (line) => answers.shift()?.(line));
  const nextLine = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      answers.push((line) => resolve(JSON.parse(line)));
      void exited.then(([code]) => reject(new Error(`node exited (${code})`)));
    });
  const ready = (await nextLine()) as unknown as Omit<Node, "child" | "command" | "stop">;
  return {
    ...ready,
    child,
    command(value) {
      const answer = nextLine();
      child.stdin?.write(`${JSON.stringify(value)}\n`);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Two server processes sharing one Redis: a push made on one node reaches the sockets held
 * by the other. They share the PostgreSQL database of DATABASE_URL when it is set; without
 * it each has its own in-memory PGlite with the same user, terminals and tokens seeded.
 */
describe("push fan-out across nodes through Redis", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let a: Node;
  let b: Node;
  let dropDatabase = async () => {};
  const clients: PushClient[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const serverUrl = testDatabaseUrl();
    let shared: { databaseUrl?: string } = {};
    if (serverUrl) {
      const name = `kw_test_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      shared = { databaseUrl: url.toString() };
      dropDatabase = async () => {
        const cleanup = new pg.Client({ connectionString: serverUrl });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`);
        await cleanup.end();
      };
    }
    const nodeA = startNode({ redisUrl: redis.url, seed: true, ...shared });
    // A shared database is seeded once, by A, before B starts; private ones both at once.
    if (serverUrl) await nodeA;
    const nodeB = startNode({
      redisUrl: redis.url,
      seed: !serverUrl,
      ...shared,
    });
    [a, b] = await Promise.all([nodeA, nodeB]);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase();
    await redis?.stop();
  });

  async function open(node: Node, token: string) {
    const client = await PushClient.open(
      `ws://127.0.0.1:${node.port}/ws?token=${encodeURIComponent(token)}`,
    );
    clients.push(client);
    await client.ready();
    return client;
  }

  it("both nodes know the same user and terminals", () => {
    expect(b.userId).toBe(a.userId);
    expect(b.terminalIds).toEqual(a.terminalIds);
    expect(a.terminalIds.every((id) => typeof id === "number")).toBe(true);
  });

  it("a push made on node A reaches a socket held on node B, and A's own", async () => {
    const onB = await open(b, b.tokens[0]);
    const onA = await open(a, a.tokens[1]);
    expect(await b.command({ op: "count" })).toEqual({ count: 1 });
    const push: PushMessage = {
      scene: PUSH_SCENES.deviceBind,
      body: {
        deviceCode: "KW-NODES-00001",
        deviceId: 11,
        isResult: 1,
        auditState: 5,
        totalUnreadMsg: 2,
      },
    };
    await a.command({ op: "toUser", id: a.userId, push });
    for (const client of [onB, onA]) {
      expect(await client.next()).toMatchObject({
        scene: PUSH_SCENES.deviceBind,
        body: push.body,
      });
    }
    onA.close();
    onB.close();
  });

  it("toTerminal from node B reaches only that terminal, on node A", async () => {
    const phoneOnA = await open(a, a.tokens[0]);
    const tabletOnA = await open(a, a.tokens[1]);
    await b.command({
      op: "toTerminal",
      id: b.terminalIds[1],
      push: {
        scene: PUSH_SCENES.deviceAlarm,
        body: { deviceCode: "KW-NODES-00002", deviceId: 12, totalUnreadMsg: 3 },
      },
    });
    expect(await tabletOnA.next()).toMatchObject({
      scene: PUSH_SCENES.deviceAlarm,
      body: { deviceCode: "KW-NODES-00002", deviceId: 12, totalUnreadMsg: 3 },
    });
    await phoneOnA.ready();
    expect(phoneOnA.frames).toEqual([]);
    phoneOnA.close();
    tabletOnA.close();
  });

  it("a logout pushed on node A closes that terminal's socket on node B", async () => {
    const onB = await open(b, b.tokens[0]);
    await a.command({
      op: "toTerminal",
      id: a.terminalIds[0],
      push: {
        scene: PUSH_SCENES.userLogout,
        body: { loginIp: "198.51.100.7", reason: LOGOUT_REASON.passwordChanged },
      },
    });
    expect(await onB.next()).toMatchObject({
      scene: PUSH_SCENES.userLogout,
      body: { loginIp: "198.51.100.7", reason: LOGOUT_REASON.passwordChanged },
    });
    expect((await onB.closedWith()).code).toBe(PUSH_CLOSE.loggedOut);
  });

  it("the Redis bus keeps node-local topics in the process", async () => {
    const one = createRedisBus(redis.url);
    const two = createRedisBus(redis.url);
    try {
      const heard: string[] = [];
      one.subscribe<{ n: number }>("alarm.stored", (p) => heard.push(`one local ${p.n}`));
      two.subscribe<{ n: number }>("alarm.stored", (p) => heard.push(`two local ${p.n}`));
      one.subscribe<{ n: number }>("push", (p) => heard.push(`one push ${p.n}`));
      two.subscribe<{ n: number }>("push", (p) => heard.push(`two push ${p.n}`));
      await Promise.all([one.ready(), two.ready()]);
      one.publish("alarm.stored", { n: 1 });
      one.publish("push", { n: 2 });
      for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard.sort()).toEqual(["one local 1", "one push 2", "two push 2"]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it("refuses to start when Redis cannot be reached", async () => {
    const port = await freePort();
    const bus = createRedisBus(`redis://127.0.0.1:${port}`, {
      readyTimeoutMs: 500,
      log: { warn: () => {} },
    });
    await expect(bus.ready()).rejects.toThrow(/not reachable/);
    await bus.close();
  });
});
