import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
 * `keyway-agent` as a user runs it: `npx keyway-agent` from the workspace (its bin), a device
 * started with a wrong secret against the real server, and the ways to give the secret (and
 * `forward`'s login token) without putting it on the command line.
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

/** This shell's environment without a secret or token of its own. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { KEYWAY_AGENT_SECRET: _s, KEYWAY_AGENT_TOKEN: _t, ...rest } = process.env;
  return { ...rest, ...extra };
}

function secretFile(text: string, mode: number): string {
  const path = join(dataDir(), "secret");
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

async function runDevice(device: { machineCode: string }, flags: string[], env: NodeJS.ProcessEnv) {
  const httpPort = await freePort();
  const agent = await spawnAgent(
    [
      "run",
      "--server",
      `mqtt://127.0.0.1:${brokerPort}`,
      "--code",
      device.machineCode,
      ...flags,
      "--data-dir",
      dataDir(),
      "--simulate",
      "--http-port",
      String(httpPort),
    ],
    { httpPort, env },
  );
  agents.push(agent);
  return agent;
}

describe("where the device secret comes from", { timeout: 180_000 }, () => {
  it("KEYWAY_AGENT_SECRET: online, and the secret is not on the agent's command line", async () => {
    const device = await provision();
    const agent = await runDevice(
      device,
      [],
      cleanEnv({ KEYWAY_AGENT_SECRET: device.deviceSecret }),
    );
    await until(async () => (await deviceRow(device.machineCode)).online);
    // What `ps` shows every local user: the agent's own node process (no npx or shell between).
    const cmdline = readFileSync(`/proc/${agent.child.pid}/cmdline`, "utf8");
    expect(cmdline).toContain(device.machineCode);
    expect(cmdline).not.toContain(device.deviceSecret);
    expect(agent.text()).not.toContain("warning");
  });

  it("--secret-file wins over the environment; a file others can read gets a warning", async () => {
    const device = await provision();
    const path = secretFile(`${device.deviceSecret}\n`, 0o644);
    const agent = await runDevice(
      device,
      ["--secret-file", path],
      cleanEnv({ KEYWAY_AGENT_SECRET: "not-the-secret" }),
    );
    await until(async () => (await deviceRow(device.machineCode)).online);
    expect(agent.text()).toContain(
      `keyway-agent: warning: --secret-file ${path} can be read by other users (mode 644); restrict it: chmod 600 ${path}`,
    );
    expect(readFileSync(`/proc/${agent.child.pid}/cmdline`, "utf8")).not.toContain(
      device.deviceSecret,
    );
  });

  it("--secret still works, with a warning that ps shows it", async () => {
    const device = await provision();
    const agent = await runDevice(device, ["--secret", device.deviceSecret], cleanEnv());
    await until(async () => (await deviceRow(device.machineCode)).online);
    expect(agent.text()).toContain(
      "keyway-agent: warning: --secret puts the device secret on the command line, where every local user can read it (ps)",
    );
  });

  it("refuses a missing, empty or doubly given secret with exit 64 and what to do", async () => {
    const base = ["run", "--server", "mqtt://127.0.0.1:1", "--code", "KW-1"];
    const missingFile = join(dataDir(), "absent");
    const empty = secretFile("\n", 0o600);
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [
        [],
        cleanEnv(),
        "the device secret is required: --secret-file PATH (a file of mode 600) or the KEYWAY_AGENT_SECRET environment variable",
      ],
      [[], cleanEnv({ KEYWAY_AGENT_SECRET: "" }), "KEYWAY_AGENT_SECRET is set but empty"],
      [
        ["--secret-file", missingFile],
        cleanEnv(),
        `--secret-file ${missingFile}: cannot read it (no such file)`,
      ],
      [["--secret-file", empty], cleanEnv(), `--secret-file ${empty}: the file is empty`],
      [
        ["--secret", "a", "--secret-file", missingFile],
        cleanEnv(),
        "give only one of --secret and --secret-file",
      ],
    ];
    await Promise.all(
      cases.map(async ([flags, env, message]) => {
        const agent = await spawnAgent([...base, ...flags], { env });
        agents.push(agent);
        expect(await exitOf(agent), agent.text()).toBe(64);
        expect(agent.text()).toContain(`keyway-agent: ${message}`);
      }),
    );
  });
});

describe("forward's login token", { timeout: 180_000 }, () => {
  it("comes from --token-file or KEYWAY_AGENT_TOKEN, never required on the command line", async () => {
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    const address = h.app.server.address();
    const server = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    const token = await h.signUp("forwarder@example.com");
    // No such device: the cloud's answer tells whether the token was taken (not 113).
    const args = ["forward", "--server", server, "--device", "999999", "--local", "0"];
    args.push("--target", "127.0.0.1:502");
    const run = async (flags: string[], env: NodeJS.ProcessEnv) => {
      const agent = await spawnAgent([...args, ...flags], { env });
      agents.push(agent);
      return { code: await exitOf(agent), text: agent.text() };
    };
    const [fromFile, fromEnv, wrong, none] = await Promise.all([
      run(["--token-file", secretFile(token, 0o600)], cleanEnv()),
      run([], cleanEnv({ KEYWAY_AGENT_TOKEN: token })),
      run([], cleanEnv({ KEYWAY_AGENT_TOKEN: "not-a-token" })),
      run([], cleanEnv()),
    ]);
    for (const taken of [fromFile, fromEnv]) {
      expect(taken.code, taken.text).toBe(1);
      expect(taken.text).toMatch(/no visit for device 999999: .*\(hwcode (?!113\))/);
      expect(taken.text).not.toContain("warning");
    }
    expect(wrong.text).toContain("(hwcode 113)");
    expect(none.code).toBe(64);
    expect(none.text).toContain("keyway-agent: the login token is required: --token-file PATH");
  });
});
