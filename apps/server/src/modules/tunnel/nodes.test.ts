import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deviceTopic } from "@keyway/protocol";
import { eq } from "drizzle-orm";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { App } from "../../app.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { startBalancer } from "../../testing/balancer.ts";
import { startMosquitto } from "../../testing/mosquitto.ts";
import { demoDeviceThrough, startTestNode } from "../../testing/nodes.ts";
import { freePort } from "../../testing/ports.ts";
import { startRedis } from "../../testing/redis.ts";
import { alarms } from "../alarms/schema.ts";

/**
 * Remote access on two nodes (issue 16) on one database, a real redis-server and Mosquitto,
 * behind a round-robin balancer, with a real agent process: a visit issued and used through
 * either node reaches the device whose tunnel the other holds; ending it through the node
 * that does not hold it cuts its stream within seconds; when the tunnel's node dies the
 * agent reconnects through the balancer to the other and a new visit works.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
let broker: Awaited<ReturnType<typeof startMosquitto>>;
let balancer: Awaited<ReturnType<typeof startBalancer>>;
const nodes: { app: App; port: number; closed: boolean }[] = [];
let web: http.Server;
let echo: Server;
let agent: ChildProcess;
let dataDir: string;
let token = "";
let machineID = 0;
let machineCode = "";

async function startNode(port: number) {
  const started = await startTestNode(database.db, port, {
    PUBLIC_URL: `http://localhost:${balancer.port}`,
    REDIS_URL: redis.url,
    MQTT_URL: broker.url,
  });
  const node = { ...started, closed: false };
  nodes.push(node);
  return node;
}

/** A call to one node (`port`), or through the balancer. */
async function call(
  port: number,
  path: string,
  form: Record<string, string | number> = {},
  // biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: {
      ...(token ? { cloudtoken: token } : {}),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams(
      Object.entries(form).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString(),
  });
  return res.json();
}

/** A GET through `port` with the Host of the visit URL (`<id>.visit.localhost`). */
function get(port: number, url: string, cookie?: string) {
  const target = new URL(url);
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>(
    (done, fail) => {
      const req = http.get(
        {
          host: "127.0.0.1",
          port,
          path: `${target.pathname}${target.search}`,
          headers: { host: target.host, ...(cookie ? { cookie } : {}) },
          agent: false,
        },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () => done({ status: res.statusCode ?? 0, body, headers: res.headers }));
        },
      );
      req.on("error", fail);
    },
  );
}

async function until(check: () => boolean | Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Which live node holds the device's tunnel. */
const holder = () => nodes.find((n) => !n.closed && n.app.services.tunnels.isOnline(machineID));

/** A visit asked through `port`, opened (ticket → cookie) and read through `port` too. */
async function visitThrough(port: number) {
  const visit = await call(port, "/api/v1/audit/getValidVisitUrl", { machineID });
  expect(visit.hwcode).toBe(0);
  const claimed = await get(port, visit.hwdata.url);
  expect(claimed.status).toBe(302);
  const cookie = (claimed.headers["set-cookie"]?.[0] ?? "").split(";")[0];
  expect(cookie).toMatch(/^kw_visit=/);
  // The ticket is spent: the visit's own root from here on.
  const url = (visit.hwdata.url as string).split("?")[0];
  return { url, id: visit.hwdata.visit_id as string, cookie };
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = await startRedis();
  broker = await startMosquitto();
  const ports = [await freePort(), await freePort()];
  balancer = await startBalancer(ports);
  const [a] = [await startNode(ports[0]), await startNode(ports[1])];
  const demo = await demoDeviceThrough(a);
  const { device } = demo;
  token = demo.token;
  machineID = demo.machineID;
  machineCode = device.machineCode;
  web = http.createServer((req, res) => res.end(`HMI home ${req.url}`));
  await new Promise<void>((done) => web.listen(0, "127.0.0.1", done));
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((done) => echo.listen(0, "127.0.0.1", done));
  dataDir = mkdtempSync(join(tmpdir(), "kw-nodes-"));
  agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "apps/agent/src/cli.ts",
      "run",
      "--server",
      broker.url,
      "--code",
      device.machineCode,
      "--tunnel",
      `ws://127.0.0.1:${balancer.port}/tunnel`,
      "--data-dir",
      dataDir,
      "--target",
      `127.0.0.1:${(web.address() as AddressInfo).port}`,
      "--allow",
      `127.0.0.1:${(echo.address() as AddressInfo).port}`,
      "--location-every",
      "0",
      "--backoff-max",
      "1",
    ],
    {
      cwd: ROOT,
      stdio: "ignore",
      env: { ...process.env, KEYWAY_AGENT_SECRET: device.deviceSecret },
    },
  );
  await until(() => Boolean(holder()?.app.services.tunnels.hello(machineID)));
}, 120_000);

afterAll(async () => {
  agent?.kill("SIGKILL");
  for (const node of nodes) if (!node.closed) await node.app.close();
  await balancer?.close();
  web?.close();
  echo?.close();
  await redis?.stop();
  broker?.stop();
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("remote access on two nodes", { timeout: 120_000 }, () => {
  it("works whichever node the browser reaches and whichever holds the tunnel", async () => {
    const owner = holder();
    const other = nodes.find((n) => n !== owner);
    if (!owner || !other) throw new Error("no tunnel");
    // The node without the tunnel issues the visit and carries its requests to the owner.
    const { url, cookie } = await visitThrough(other.port);
    expect((await get(other.port, url, cookie)).body).toBe("HMI home /");
    expect((await get(owner.port, url, cookie)).body).toBe("HMI home /");
    // Through the balancer, requests land on both nodes.
    for (let i = 0; i < 4; i++)
      expect((await get(balancer.port, `${url}page${i}`, cookie)).body).toBe(`HMI home /page${i}`);
  });

  it("carries a TCP forward from the other node and cuts it there when the visit is ended", async () => {
    const owner = holder();
    const other = nodes.find((n) => n !== owner);
    if (!owner || !other) throw new Error("no tunnel");
    const { id } = await visitThrough(owner.port);
    const target = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
    const socket = new WebSocket(
      `ws://127.0.0.1:${other.port}/visit-tcp/${id}?target=${encodeURIComponent(target)}`,
      { headers: { cloudtoken: token } },
    );
    const closed = new Promise<number>((done) => socket.once("close", (code) => done(code)));
    await new Promise((done, fail) => {
      socket.once("open", done);
      socket.once("error", fail);
    });
    const echoed = new Promise<string>((done) => socket.once("message", (d) => done(String(d))));
    socket.send(Buffer.from("ping"));
    expect(await echoed).toBe("ping");
    // Ended through the node that does not hold the stream: every node hears it.
    expect((await call(other.port, "/api/device/v1/visits/end", { visitId: id })).hwcode).toBe(0);
    expect(await closed).toBe(4410);
  });

  it("stores each alarm once although every node hears it", async () => {
    const sent = await publishAlarms("both", 10);
    await until(async () => (await storedAlarms(sent)).length === sent.length);
    await new Promise((r) => setTimeout(r, 500));
    expect((await storedAlarms(sent)).sort()).toEqual([...sent].sort());
  });

  it("survives the death of the tunnel's node: the agent reconnects to the other, visits resume", async () => {
    const owner = holder();
    const other = nodes.find((n) => n !== owner);
    if (!owner || !other) throw new Error("no tunnel");
    balancer.remove(owner.port);
    owner.closed = true;
    await owner.app.close();
    await until(() => other.app.services.tunnels.isOnline(machineID));
    const { url, cookie } = await visitThrough(balancer.port);
    expect((await get(balancer.port, url, cookie)).body).toBe("HMI home /");
    // Alarms sent now are not kept for the closed node's session: the live node stores them.
    const sent = await publishAlarms("one-left", 10);
    await until(async () => (await storedAlarms(sent)).length === sent.length);
    expect((await storedAlarms(sent)).sort()).toEqual([...sent].sort());
  });
});

/** `count` alarms published as the device (QoS 1, as the agent does); their ids. */
async function publishAlarms(label: string, count: number): Promise<string[]> {
  const client = mqtt.connect(broker.url, { clientId: `${machineCode}-${label}` });
  await new Promise<void>((done, fail) => {
    client.once("connect", () => done());
    client.once("error", fail);
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${label}-${i}`;
    ids.push(id);
    await client.publishAsync(
      deviceTopic(machineCode, "alarm"),
      JSON.stringify({ id, type: "raise", content: `alarm ${id}`, time: Date.now() }),
      { qos: 1 },
    );
  }
  await client.endAsync();
  return ids;
}

/** The stored alarms among `ids`, one entry per row. */
async function storedAlarms(ids: string[]): Promise<string[]> {
  const rows = await database.db
    .select({ uid: alarms.uid })
    .from(alarms)
    .where(eq(alarms.deviceId, machineID));
  return rows.map((r) => r.uid).filter((uid) => ids.includes(uid));
}
