import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, kill9, spawnAgent } from "../../../../agent/src/testing.ts";
import type { App } from "../../app.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { demoDeviceThrough, startTestNode } from "../../testing/nodes.ts";
import { freePort } from "../../testing/ports.ts";
import { startRedis } from "../../testing/redis.ts";
import { openVisit, request, until } from "../visits/consentTesting.ts";

/**
 * On-site consent on two nodes sharing one database and a real redis-server: the agent's
 * tunnel is held by node B, the visit is asked through node A. The ask reaches the agent
 * through B, its answer (given on the agent's local consent page, `--consent-port`) comes
 * back to A, the visit is ended on site through B while A carries its requests, and A's
 * owner ending a consented visit reaches the agent through B.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
const nodes: Array<{ app: App; port: number }> = [];
let agent: AgentProcess;
let web: http.Server;
let dir: string;
let consentPort: number;
let token = "";
let machineID = 0;

async function startNode(port: number) {
  const node = await startTestNode(
    database.db,
    port,
    { PUBLIC_URL: `http://localhost:${port}`, REDIS_URL: redis.url },
    { consentTimeoutMs: 10_000 },
  );
  nodes.push(node);
  return node;
}

// biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
async function call(port: number, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { ...(token ? { cloudtoken: token } : {}), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

const page = (path: string, host?: string) =>
  new Promise<{ status: number; body: string }>((done, fail) => {
    const req = http.get(
      { host: "127.0.0.1", port: consentPort, path, headers: host ? { host } : {} },
      (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", fail);
  });

interface ConsentState {
  asks: Array<{ visit: string; visitor: string }>;
  running: Array<{ visit: string }>;
}
const state = async () => JSON.parse((await page("/api/consent")).body) as ConsentState;
const press = (visit: string, action: string) =>
  request(`http://127.0.0.1:${consentPort}/api/consent/${visit}/${action}`, {
    method: "POST",
    json: {},
  });

async function nextAsk() {
  let visit = "";
  await until(async () => {
    visit = (await state()).asks[0]?.visit ?? "";
    return visit !== "";
  }, 20_000);
  return visit;
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = await startRedis();
  const [a, b] = [await startNode(await freePort()), await startNode(await freePort())];
  const demo = await demoDeviceThrough(a);
  const { device } = demo;
  token = demo.token;
  machineID = demo.machineID;
  const on = await call(a.port, "/api/device/v1/remoteSettings", {
    deviceId: machineID,
    onsite_consent: true,
  });
  expect(on.hwcode).toBe(0);
  web = http.createServer((req, res) => res.end(`HMI home ${req.url}`));
  await new Promise<void>((done) => web.listen(0, "127.0.0.1", done));
  dir = mkdtempSync(join(tmpdir(), "kw-consent-nodes-"));
  consentPort = await freePort();
  // MQTT and the tunnel on node B only.
  agent = await spawnAgent(
    [
      "run",
      "--server",
      `ws://127.0.0.1:${b.port}/mqtt`,
      "--code",
      device.machineCode,
      "--data-dir",
      dir,
      "--target",
      `127.0.0.1:${(web.address() as { port: number }).port}`,
      "--consent-port",
      String(consentPort),
      "--location-every",
      "0",
    ],
    { env: { ...process.env, KEYWAY_AGENT_SECRET: device.deviceSecret } },
  );
  await until(() => Boolean(b.app.services.tunnels.hello(machineID)), 60_000);
  expect(a.app.services.tunnels.isOnline(machineID)).toBe(false);
}, 120_000);

afterAll(async () => {
  if (agent) await kill9(agent);
  for (const node of nodes) await node.app.close();
  web?.close();
  await redis?.stop();
  await database?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("on-site consent on two nodes", { timeout: 60_000 }, () => {
  it("serves its page at the machine only: not to another site's name", async () => {
    const shown = await page("/");
    expect(shown.status).toBe(200);
    expect(shown.body).toContain('data-testid="consent-panel"');
    // A page re-binding its own domain to this machine (DNS rebinding) gets nothing.
    expect((await page("/", "evil.example:80")).status).toBe(403);
    expect((await page("/api/consent", "evil.example")).status).toBe(403);
  });

  it("asked through the node without the tunnel, accepted, ended on site", async () => {
    const [a] = nodes;
    const asked = call(a.port, "/api/v1/audit/getValidVisitUrl", { machineID });
    const visit = await nextAsk();
    expect((await press(visit, "accept")).status).toBe(200);
    const issued = await asked;
    expect(issued.hwdata).toMatchObject({ visit_id: visit, consent: "accepted" });
    const { origin, cookie } = await openVisit(issued.hwdata.url);
    expect((await request(`${origin}/x`, { cookie })).body).toBe("HMI home /x");
    // Ended at the machine: node B ends it, node A's next request is refused.
    expect((await press(visit, "end")).status).toBe(200);
    await until(async () => (await request(`${origin}/`, { cookie })).status === 410, 10_000);
  });

  it("refused through the node without the tunnel", async () => {
    const [a] = nodes;
    const asked = call(a.port, "/api/v1/audit/getValidVisitUrl", { machineID });
    expect((await press(await nextAsk(), "refuse")).status).toBe(200);
    expect((await asked).hwcode).toBe(HW.CONSENT_REFUSED.code);
  });

  it("an owner's end on node A reaches the agent through node B", async () => {
    const [a] = nodes;
    const asked = call(a.port, "/api/v1/audit/getValidVisitUrl", { machineID });
    const visit = await nextAsk();
    await press(visit, "accept");
    await openVisit((await asked).hwdata.url);
    expect((await state()).running).toMatchObject([{ visit }]);
    expect((await call(a.port, "/api/device/v1/visits/end", { visitId: visit })).hwcode).toBe(0);
    await until(async () => (await state()).running.length === 0, 10_000);
  });
});
