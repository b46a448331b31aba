import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCATION_REFRESH_PER_DAY, type ProvisionedDevice } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  kill9,
  spawnSimulatedDevice,
  until as untilMet,
} from "../../../../agent/src/testing.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { devices } from "../devices/schema.ts";

/**
 * The cloud's commands against the real keyway-agent process (the CLI with its simulated
 * HMI): location way and refresh, and the settings a restarted agent must get back.
 */

let h: Harness;
let brokerPort: number;
let owner: string;
let device: ProvisionedDevice;
let machineId: number;
let dataDir: string;
const agents: Agent[] = [];

type Agent = AgentProcess;

async function startAgent(): Promise<Agent> {
  const agent = await spawnSimulatedDevice({
    server: `mqtt://127.0.0.1:${brokerPort}`,
    device,
    dataDir,
    extra: ["--backoff-max", "2"],
  });
  agents.push(agent);
  return agent;
}

async function hmi(agent: Agent): Promise<{ connection: string; cloudSwitch: boolean }> {
  return (await fetch(`http://127.0.0.1:${agent.httpPort}/api/status`)).json() as Promise<{
    connection: string;
    cloudSwitch: boolean;
  }>;
}

async function row() {
  return (await h.db.select().from(devices).where(eq(devices.code, device.machineCode)))[0];
}

// Generous: agent processes start through tsx, slowly on a loaded 2-core machine.
const until = (check: () => Promise<boolean>) =>
  untilMet(check, { timeoutMs: 60_000, log: () => agents.at(-1)?.text() ?? "" });

const call = (path: string, form: Record<string, string | number>) =>
  h.call("POST", path, { form: { machineId, ...form }, token: owner, lang: "en" });

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123");
  [device] = await h.provision(operator, 1);
  owner = await h.signUp("agent-owner@example.com");
  machineId = (await h.addDevice(owner, device, "Simulated press")).id;
  brokerPort = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
  dataDir = mkdtempSync(join(tmpdir(), "kw-agent-cmd-"));
});
afterEach(async () => {
  for (const agent of agents) await kill9(agent);
});
afterAll(async () => {
  for (const agent of agents) await kill9(agent);
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("cloud commands reach the real agent", { timeout: 300_000 }, () => {
  it("follows the user's location way, and a refresh stores a fresh fix", async () => {
    const agent = await startAgent();
    await until(async () => (await row()).online && (await row()).lat !== null);
    expect((await row()).locationWay).toBe("gps");

    const way = await call("/api/machine/machineAutoLocationWay", { way: "ip" });
    expect(way.body.hwdata.locationWay).toBe("ip");
    // The agent switches and reports by ip at once; the way stays the user's.
    await until(async () => agent.output.join("").includes("location way: ip"));
    const before = (await row()).lat;
    const refreshed = await call("/api/machine/machineAutoLocationAddress", {});
    expect(refreshed.body.hwdata.remaining).toBe(LOCATION_REFRESH_PER_DAY - 1);
    await until(async () => (await row()).lat !== before);
    expect(await row()).toMatchObject({ locationWay: "ip" });
    expect((await row()).lat).toBeCloseTo(31.23, 1);
  });

  it("gives an agent restarted after a change the settings it missed", async () => {
    const first = await startAgent();
    await until(async () => (await row()).online);
    await kill9(first);
    await until(async () => !(await row()).online);

    // Changed while the agent is down: it starts with the switch open and the gps way.
    const off = await call("/api/machine/machineCloudSwitchState", { state: 0 });
    expect(off.body.hwdata.cloud_service).toBe(0);
    await call("/api/machine/machineAutoLocationWay", { way: "base" });

    const second = await startAgent();
    await until(async () => (await row()).online);
    await until(async () => (await hmi(second)).cloudSwitch === false);
    await until(async () => second.output.join("").includes("location way: base"));
    expect((await row()).locationWay).toBe("base");
  });
});
