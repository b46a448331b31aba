import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { env } from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgentCommand } from "../../../scripts/demo-agent.mjs";
import { DEMO_ACCOUNTS } from "../../server/src/seed.ts";
import { AGENT_BUNDLE, buildAgent } from "../build.mjs";
import {
  type AgentProcess,
  freePort,
  hmiStatus,
  kill9,
  ROOT,
  signal,
  spawnAgent,
  until,
} from "./testing.ts";

/**
 * `npm start`'s demo set-up, as scripts/start.mjs runs it: the server (apps/server/src/main.ts)
 * on its embedded defaults (PGlite in a fresh data directory, embedded broker, DEMO on),
 * which seeds the demo device and writes its credentials to demo-agent.json; then the
 * simulated agent started from that file as start.mjs starts it (scripts/demo-agent.mjs:
 * the secret in its environment), as the bundle a device runs (dist/keyway-agent.mjs, built
 * here from the current sources). A newcomer logging in as the demo user sees the device
 * online, its tunnel is up, and the agent's command line does not show the secret. (start.mjs itself is not spawned: it may rebuild
 * the web app first, which tells nothing here; the CI boot check runs it whole.)
 */

const processes: AgentProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "kw-start-"));

/** The shell's environment without anything that would point the server elsewhere. */
function embeddedEnv(extra: Record<string, string>): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/^(DATABASE_URL|MQTT_URL|REDIS_URL|SMTP_URL|PUBLIC_URL|SECRET_KEY|WEB_DIST)$/.test(key))
      continue;
    keep[key] = value;
  }
  return { ...keep, ...extra };
}

const bundle = relative(ROOT, AGENT_BUNDLE);
beforeAll(async () => {
  await buildAgent();
});

afterAll(async () => {
  // The server gets SIGTERM (it closes PGlite cleanly); anything left is killed.
  for (const p of processes.reverse()) {
    const timer = setTimeout(() => void kill9(p), 10_000);
    await signal(p, "SIGTERM");
    clearTimeout(timer);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start's demo set-up", { timeout: 240_000 }, () => {
  it("puts an online simulated device on the demo user", async () => {
    const port = await freePort();
    const hmiPort = await freePort();
    const server = await spawnAgent([], {
      command: [process.execPath, "--import", "tsx", "apps/server/src/main.ts"],
      env: embeddedEnv({
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        MQTT_PORT: "0",
        DEMO: "1",
        LOG_LEVEL: "warn",
      }),
    });
    processes.push(server);
    const log = () => processes.map((p) => p.text()).join("\n---\n");

    // What start.mjs waits for: the demo device's credentials, written once the server listens.
    const agentFile = join(dataDir, "demo-agent.json");
    await until(() => existsSync(agentFile), { timeoutMs: 120_000, log });
    const demo = JSON.parse(readFileSync(agentFile, "utf8")) as {
      server: string;
      tunnel: string;
      machineCode: string;
      deviceSecret: string;
    };
    expect(demo.server).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    await until(() => server.text().includes("Demo login"), { log });
    expect(server.text()).toContain(`embedded PGlite in ${dataDir}`);

    // start.mjs's agent, started by the same function (scripts/demo-agent.mjs), bundled.
    const { args, env: agentEnv } = demoAgentCommand({ demo, hmiPort, dataDir, program: [bundle] });
    const agent = await spawnAgent(args, {
      command: [process.execPath],
      env: agentEnv,
      httpPort: hmiPort,
    });
    processes.push(agent);

    // The newcomer: logs in as the demo user and lists their devices.
    const api = `http://127.0.0.1:${port}`;
    const login = await fetch(`${api}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        loginName: DEMO_ACCOUNTS.user.email,
        loginPwd: DEMO_ACCOUNTS.user.password,
      }),
    });
    const token = ((await login.json()) as { hwdata: { result: { token: string } } }).hwdata.result
      .token;
    type Listed = { machine_code?: string; machineCode?: string; online?: boolean };
    let listed: Listed[] = [];
    await until(
      async () => {
        const res = await fetch(`${api}/api/machine/select`, {
          method: "POST",
          headers: { cloudtoken: token },
        });
        const body = (await res.json()) as { hwdata: { list?: Listed[] } | Listed[] };
        listed = Array.isArray(body.hwdata) ? body.hwdata : (body.hwdata.list ?? []);
        return listed.some((d) => d.online === true);
      },
      { timeoutMs: 60_000, log },
    );
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed[0])).toContain(demo.machineCode);
    expect((await hmiStatus(agent)).connection).toBe("online");
    // Remote access: the bundle's tunnel to the server is up too.
    await until(() => agent.text().includes("tunnel: connecting -> online"), { log });

    // Online, so the secret reached it; yet not on its command line, which every local user
    // can read (ps). The pid is the agent's own node process (no npx or shell between).
    const cmdline = readFileSync(`/proc/${agent.child.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(bundle);
    expect(cmdline).toContain(demo.machineCode);
    expect(cmdline.join(" ")).not.toContain(demo.deviceSecret);
  });
});
