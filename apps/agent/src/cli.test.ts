import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devices } from "../../server/src/modules/devices/schema.ts";
import { seedDemo } from "../../server/src/seed.ts";
import { createHarness, type Harness } from "../../server/src/testing/harness.ts";
import {
  type AgentProcess,
  CloudLink,
  freePort,
  hmiStatus,
  kill9,
  signal,
  sleep,
  spawnAgent,
  spawnSimulatedDevice,
  until as untilOf,
} from "./testing.ts";

/**
 * `keyway-agent` as a user runs it: `npx keyway-agent` from the workspace (its bin), and a
 * device started with a wrong secret against the real server.
 */

const NPX = ["npx", "--no-install", "keyway-agent"];
let h: Harness;
let operator: string;
let brokerPort: number;
const agents: AgentProcess[] = [];
const dirs: string[] = [];

async function provision(): Promise<{ machineCode: string; deviceSecret: string }> {
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  return res.body.hwdata.list[0];
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kw-cli-"));
  dirs.push(dir);
  return dir;
}

const until = (check: () => Promise<boolean> | boolean, timeoutMs?: number) =>
  untilOf(check, { timeoutMs, log: () => agents.at(-1)?.text() ?? "" });

async function deviceRow(code: string) {
  const [row] = await h.db.select().from(devices).where(eq(devices.code, code));
  return row;
}

const exitOf = (agent: AgentProcess) =>
  agent.child.exitCode ??
  new Promise<number | null>((done) => agent.child.once("exit", (code) => done(code)));

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

describe("npx keyway-agent from the workspace", { timeout: 180_000 }, () => {
  it("prints its usage with --help, and refuses a run without a server", async () => {
    const help = await spawnAgent(["--help"], { command: NPX });
    agents.push(help);
    expect(await exitOf(help)).toBe(0);
    const text = help.text();
    expect(text).toContain("Usage: keyway-agent run --server <url> --code <machine code>");
    expect(text).toContain("--simulate");
    expect(text).toContain("--alarm-every S");
    expect(text).toContain("--http-bind ADDRESS");

    const missing = await spawnAgent(["run", "--code", "X", "--secret", "y"], { command: NPX });
    agents.push(missing);
    expect(await exitOf(missing)).toBe(64);
    expect(missing.text()).toContain("--server is required");
  });

  it("runs a simulated device that comes online, and says goodbye on Ctrl-C", async () => {
    const device = await provision();
    const agent = await spawnSimulatedDevice({
      server: `mqtt://127.0.0.1:${brokerPort}`,
      device,
      dataDir: dataDir(),
      command: NPX,
    });
    agents.push(agent);
    await until(async () => (await deviceRow(device.machineCode)).online);
    expect((await hmiStatus(agent)).connection).toBe("online");
    // The embedded broker marks the device online at CONNACK; the model comes with the
    // device's own "online" state message a moment later.
    await until(async () => (await deviceRow(device.machineCode)).model === "Simulated HMI");

    // Ctrl-C (SIGINT to the terminal's process group: npx and the agent): the agent says
    // "offline" itself, well before the broker's keep-alive (45 s) would.
    await signal(agent, "SIGINT");
    await until(() => agent.text().includes("SIGINT: stopping"), 10_000);
    await until(async () => !(await deviceRow(device.machineCode)).online, 10_000);
  });
});

describe("a device with a wrong secret", { timeout: 180_000 }, () => {
  it("is refused at CONNACK and retries with a growing, capped wait, not in a loop", async () => {
    const device = await provision();
    // Counts the agent's connection attempts on their way to the broker.
    const link = new CloudLink(brokerPort);
    await link.open();
    try {
      const httpPort = await freePort();
      const agent = await spawnAgent(
        [
          "run",
          "--server",
          `mqtt://127.0.0.1:${link.port}`,
          "--code",
          device.machineCode,
          "--secret",
          `${device.deviceSecret}x`,
          "--data-dir",
          dataDir(),
          "--simulate",
          "--http-port",
          String(httpPort),
          "--backoff-max",
          "4",
        ],
        { httpPort },
      );
      agents.push(agent);
      await until(async () =>
        /Bad username or password/.test((await hmiStatus(agent)).lastError ?? ""),
      );
      const first = link.accepted;
      await sleep(10_000);
      // 1, 2 and 4 s waits (±25%), then 4 s each: four or five attempts in ten seconds. A
      // client retrying at once would have made hundreds.
      const attempts = link.accepted - first;
      expect(attempts).toBeGreaterThanOrEqual(2);
      expect(attempts).toBeLessThanOrEqual(6);

      const waits = [...agent.text().matchAll(/reconnecting in ([\d.]+) s/g)].map((m) =>
        Number(m[1]),
      );
      expect(waits.length).toBeGreaterThanOrEqual(3);
      expect(waits[0]).toBeLessThanOrEqual(1.3);
      expect(Math.max(...waits)).toBeGreaterThanOrEqual(3);
      expect(Math.max(...waits)).toBeLessThanOrEqual(4);

      // Never online, in the cloud or on the HMI; the HMI says why.
      const status = await hmiStatus(agent);
      expect(status.connection).not.toBe("online");
      expect(status.lastError).toMatch(/Connection refused: Bad username or password/);
      const row = await deviceRow(device.machineCode);
      expect(row.online).toBe(false);
      expect(row.lastSeenAt).toBeNull();
    } finally {
      await link.close();
    }
  });
});
