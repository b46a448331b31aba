import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { alarms } from "../../server/src/modules/alarms/schema.ts";
import { devices } from "../../server/src/modules/devices/schema.ts";
import { seedDemo } from "../../server/src/seed.ts";
import { createHarness, type Harness } from "../../server/src/testing/harness.ts";
import { LIVE_PATH } from "./simulator.ts";
import {
  type AgentProcess,
  hmiStatus,
  kill9,
  sleep,
  spawnAgent,
  spawnSimulatedDevice,
  until as untilOf,
} from "./testing.ts";

/**
 * The simulated HMI (`keyway-agent run --simulate`) as a real process against the real
 * server: its tags change, it reports its location again and again, it raises random alarms
 * at the rate asked for, and its page is on loopback only and takes JSON only.
 */

let h: Harness;
let brokerPort: number;
let operator: string;
const agents: AgentProcess[] = [];
const dirs: string[] = [];

async function provision(): Promise<{ machineCode: string; deviceSecret: string }> {
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  return res.body.hwdata.list[0];
}

async function startSimulator(extra: string[] = []) {
  const device = await provision();
  const dataDir = mkdtempSync(join(tmpdir(), "kw-sim-"));
  dirs.push(dataDir);
  const agent = await spawnSimulatedDevice({
    server: `mqtt://127.0.0.1:${brokerPort}`,
    device,
    dataDir,
    extra,
  });
  agents.push(agent);
  return { agent, device };
}

const until = (check: () => Promise<boolean> | boolean, timeoutMs?: number) =>
  untilOf(check, { timeoutMs, log: () => agents.at(-1)?.text() ?? "" });

async function deviceRow(code: string) {
  const [row] = await h.db.select().from(devices).where(eq(devices.code, code));
  return row;
}

async function alarmRowsOf(code: string) {
  const row = await deviceRow(code);
  return h.db.select().from(alarms).where(eq(alarms.deviceId, row.id)).orderBy(alarms.time);
}

/** This machine's first non-loopback IPv4 address, if it has one. */
function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return undefined;
}

async function reachable(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  brokerPort = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
});

afterEach(async () => {
  for (const agent of agents) await kill9(agent);
});

afterAll(async () => {
  for (const agent of agents) await kill9(agent);
  await h?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the simulated HMI", { timeout: 180_000 }, () => {
  it("shows tags that keep changing, on its status API and its page", async () => {
    const { agent } = await startSimulator();
    const seen = new Set<string>();
    await until(async () => {
      seen.add(JSON.stringify((await hmiStatus(agent)).tags));
      return seen.size >= 3;
    });
    const { tags } = await hmiStatus(agent);
    expect(Object.keys(tags).sort()).toEqual(["Line.Temperature", "Pump1.Speed", "Tank1.Level"]);
    expect(tags["Tank1.Level"]).toBeGreaterThanOrEqual(0);
    expect(tags["Tank1.Level"]).toBeLessThanOrEqual(100);
    const page = await (await fetch(`http://127.0.0.1:${agent.httpPort}/`)).text();
    expect(page).toContain('data-testid="tag-Tank1.Level"');
  });

  it("pushes its status every second on the page's live WebSocket, and only there", async () => {
    const { agent } = await startSimulator();
    await until(() => agent.text().includes("simulated HMI on"));
    const socket = new WebSocket(`ws://127.0.0.1:${agent.httpPort}${LIVE_PATH}`);
    const received: Array<{ tags: Record<string, number> }> = [];
    socket.on("message", (data) => received.push(JSON.parse(String(data))));
    await until(() => received.length >= 3);
    expect(Object.keys(received[0].tags).sort()).toEqual([
      "Line.Temperature",
      "Pump1.Speed",
      "Tank1.Level",
    ]);
    socket.close();
    const page = await (await fetch(`http://127.0.0.1:${agent.httpPort}/`)).text();
    expect(page).toContain('data-testid="hmi-live"');
    expect(page).toContain(LIVE_PATH);
    // Any other path refuses the upgrade.
    const other = new WebSocket(`ws://127.0.0.1:${agent.httpPort}/api/status`);
    const refused = await new Promise<string>((done) => {
      other.once("unexpected-response", (_req, res) => done(String(res.statusCode)));
      other.once("error", (error) => done(error.message));
    });
    expect(refused).toMatch(/404/);
  });

  it("reports its location again and again, not only once", async () => {
    const { device } = await startSimulator(["--location-every", "1"]);
    const fixes = new Set<string>();
    // Each fix jitters a little around the simulated site: distinct fixes are distinct reports.
    await until(async () => {
      const row = await deviceRow(device.machineCode);
      if (row.lat !== null && row.lng !== null) fixes.add(`${row.lat},${row.lng}`);
      return fixes.size >= 3;
    });
    const row = await deviceRow(device.machineCode);
    expect(row.lat).toBeCloseTo(31.23, 1);
    expect(row.lng).toBeCloseTo(121.47, 1);
  });

  it("raises random alarms at the rate --alarm-every sets, and none without it", async () => {
    const quiet = await startSimulator();
    const { agent, device } = await startSimulator(["--alarm-every", "2"]);
    await until(async () => (await alarmRowsOf(device.machineCode)).length >= 3, 60_000);
    const rows = await alarmRowsOf(device.machineCode);
    for (const row of rows) {
      expect(row.type).toBe("raise");
      expect(["Tank1.Level", "Pump1.Speed", "Line.Temperature"]).toContain(row.variable);
      expect(row.content).toMatch(/high|out of range/);
    }
    // Not faster than asked: the device stamps each alarm when it raises it, one per 2 s.
    const times = rows.map((r) => r.time.getTime());
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(1500);
    expect((await hmiStatus(agent)).alarms.length).toBeGreaterThanOrEqual(3);
    // The simulator started without --alarm-every raised nothing meanwhile.
    expect(await alarmRowsOf(quiet.device.machineCode)).toHaveLength(0);
    expect((await hmiStatus(quiet.agent)).alarms).toHaveLength(0);
  });

  it("takes alarms as JSON only: a form or text/plain post is refused", async () => {
    const { agent, device } = await startSimulator();
    await until(async () => (await deviceRow(device.machineCode)).online);
    const url = `http://127.0.0.1:${agent.httpPort}/api/alarms`;
    const refusedBodies: Array<[string | undefined, string]> = [
      ["text/plain", JSON.stringify({ content: "from another site" })],
      ["application/x-www-form-urlencoded", "content=from+another+site"],
      ["multipart/form-data; boundary=x", "--x\r\n\r\nfrom another site\r\n--x--"],
      [undefined, JSON.stringify({ content: "from another site" })],
    ];
    for (const [type, body] of refusedBodies) {
      const res = await fetch(url, {
        method: "POST",
        headers: type ? { "content-type": type } : {},
        body: type ? body : new Blob([body]),
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: string }).error).toMatch(/application\/json/);
    }
    const clear = await fetch(`${url}/clear`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(clear.status).toBe(415);
    expect((await hmiStatus(agent)).alarms).toHaveLength(0);

    // The page's own JSON post still raises one, and it reaches the cloud.
    const ok = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ content: "raised as JSON" }),
    });
    expect(ok.status).toBe(201);
    await until(async () => (await alarmRowsOf(device.machineCode)).length === 1);
    await sleep(500);
    const rows = await alarmRowsOf(device.machineCode);
    expect(rows.map((r) => r.content)).toEqual(["raised as JSON"]);
  });

  it("listens on loopback only unless --http-bind opens it", async () => {
    const lan = lanAddress();
    const closed = await startSimulator();
    await until(() =>
      closed.agent.text().includes(`simulated HMI on http://127.0.0.1:${closed.agent.httpPort}/`),
    );
    expect(await reachable(`http://127.0.0.1:${closed.agent.httpPort}/api/status`)).toBe(true);
    if (lan)
      expect(await reachable(`http://${lan}:${closed.agent.httpPort}/api/status`)).toBe(false);

    const open = await startSimulator(["--http-bind", "0.0.0.0"]);
    await until(() =>
      open.agent.text().includes(`simulated HMI on http://0.0.0.0:${open.agent.httpPort}/`),
    );
    if (lan) expect(await reachable(`http://${lan}:${open.agent.httpPort}/api/status`)).toBe(true);

    // A bad address is a usage error, not a crash.
    const bad = await spawnAgent([
      "run",
      "--server",
      "mqtt://127.0.0.1:1",
      "--code",
      "X",
      "--secret",
      "y",
      "--simulate",
      "--http-bind",
      "everywhere",
    ]);
    agents.push(bad);
    const code =
      bad.child.exitCode ??
      (await new Promise<number | null>((done) => bad.child.once("exit", done)));
    expect(code).toBe(64);
    expect(bad.text()).toContain("--http-bind must be an IP address");
  });
});
