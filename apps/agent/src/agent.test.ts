import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { alarms } from "../../server/src/modules/alarms/schema.ts";
import { devices } from "../../server/src/modules/devices/schema.ts";
import { seedDemo } from "../../server/src/seed.ts";
import { createHarness, type Harness } from "../../server/src/testing/harness.ts";
import { AGENT_BUNDLE, buildAgent } from "../build.mjs";
import {
  type AgentProcess as Agent,
  CloudLink,
  kill9,
  ROOT,
  spawnSimulatedDevice,
  hmiStatus as status,
  until as untilOf,
} from "./testing.ts";

/**
 * End to end: the real server (on a fresh database) and the real agent as a device runs it (its
 * bundle, built here from the current sources, with keyway-agent.service's flag) in a child
 * process, talking through a TCP proxy the test can cut to play "the cloud is down". The
 * bundle has Node's streams in place of mqtt.js's own copy (build.mjs, decision 221): these
 * are its MQTT session, commands and QoS 1 alarms.
 */

let h: Harness;
let brokerPort: number;
let proxy: CloudLink;
let device: { machineCode: string; deviceSecret: string };
let dataDir: string;
const agents: Agent[] = [];

async function startAgent(): Promise<Agent> {
  const agent = await spawnSimulatedDevice({
    server: `mqtt://127.0.0.1:${proxy.port}`,
    device,
    dataDir,
    extra: ["--backoff-max", "2"],
    command: [process.execPath, "--max-semi-space-size=8", relative(ROOT, AGENT_BUNDLE)],
    // The device's zone, which its alarms carry (read from the zone files, not from Intl).
    env: { TZ: "Asia/Shanghai" },
  });
  agents.push(agent);
  return agent;
}

async function raise(agent: Agent, content: string) {
  const res = await fetch(`http://127.0.0.1:${agent.httpPort}/api/alarms`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content, variable: "Tank1.Level", level: 3 }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

async function deviceRow() {
  const [row] = await h.db.select().from(devices).where(eq(devices.code, device.machineCode));
  return row;
}

const alarmRows = (content: string) =>
  h.db.select().from(alarms).where(eq(alarms.content, content));

const until = (check: () => Promise<boolean>, timeoutMs?: number) =>
  untilOf(check, { timeoutMs, log: () => agents.at(-1)?.text() ?? "" });

const isOnline = async () => (await deviceRow()).online;
const isOffline = async () => !(await deviceRow()).online;

beforeAll(async () => {
  await buildAgent();
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123");
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  device = res.body.hwdata.list[0];
  brokerPort = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
  proxy = new CloudLink(brokerPort);
  await proxy.open();
  dataDir = mkdtempSync(join(tmpdir(), "kw-agent-"));
});

// A failed test must not leave its agent connected for the next one.
afterEach(async () => {
  for (const agent of agents) await kill9(agent);
});

afterAll(async () => {
  for (const agent of agents) await kill9(agent);
  await proxy?.close();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("keyway-agent against the real server", { timeout: 240_000 }, () => {
  it("goes online, offline on kill -9, and online again on restart", async () => {
    const first = await startAgent();
    await until(isOnline);
    await until(async () => (await deviceRow()).lat !== null); // the first location report
    const row = await deviceRow();
    expect(row.model).toBe("Simulated HMI");
    expect(row.version).toBe("0.1.0");
    expect(row.locationWay).toBe("gps");
    expect(row.lat).toBeCloseTo(31.23, 1);

    await kill9(first);
    await until(isOffline);

    const second = await startAgent();
    await until(isOnline);
    // The server counts the device online when it sends CONNACK; the agent says so once it
    // has read it, a moment later on a loaded machine.
    await until(async () => (await status(second)).connection === "online");

    // A cloud command reaches the agent: the cloud switch shows up in the simulator. The
    // server counts the device online at CONNACK, a moment before its SUBACK, so a command
    // is sent again until it lands (commands reach subscribed devices only).
    await until(async () => {
      await h.app.services.gateway.sendCommand(device.machineCode, {
        type: "cloudSwitch",
        open: false,
      });
      const s = (await (await fetch(`http://127.0.0.1:${second.httpPort}/api/status`)).json()) as {
        cloudSwitch: boolean;
      };
      return s.cloudSwitch === false;
    });
    await kill9(second);
    await until(isOffline);
  });

  it("delivers an alarm raised while the cloud is down exactly once when it returns", async () => {
    const agent = await startAgent();
    await until(isOnline);

    await proxy.close();
    await until(async () => (await status(agent)).connection !== "online");
    await until(isOffline);

    const content = `raised while the cloud is down ${Date.now()}`;
    await raise(agent, content);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await alarmRows(content)).toHaveLength(0);
    expect((await status(agent)).queued).toBe(1);

    await proxy.open();
    await until(async () => (await alarmRows(content)).length > 0, 45_000);
    await until(async () => (await status(agent)).queued === 0);
    await new Promise((r) => setTimeout(r, 1000));
    const rows = await alarmRows(content);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: "raise", variable: "Tank1.Level", level: 3 });
    expect(rows[0].timeZone).toBe("Asia/Shanghai");
    expect(rows[0].deviceId).toBe((await deviceRow()).id);
    await kill9(agent);
    await until(isOffline);
  });

  it("keeps a queued alarm across a kill -9 of the agent while the cloud is down", async () => {
    const first = await startAgent();
    await until(isOnline);
    await proxy.close();
    await until(async () => (await status(first)).connection !== "online");

    const content = `survives an agent crash ${Date.now()}`;
    await raise(first, content);
    await kill9(first); // no goodbye, nothing flushed: only the on-disk queue remembers

    const second = await startAgent();
    expect((await status(second)).queued).toBe(1);
    expect(await alarmRows(content)).toHaveLength(0);

    await proxy.open();
    await until(async () => (await alarmRows(content)).length > 0, 45_000);
    await until(async () => (await status(second)).queued === 0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await alarmRows(content)).toHaveLength(1);
    await kill9(second);
  });
});
