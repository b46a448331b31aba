import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { freePort, startPlatform } from "./browser.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface SimulatedAgent {
  child: ChildProcess;
  /** The simulated HMI's own port on loopback (what a visit opens). */
  hmiPort: number;
  /** stdout and stderr, for a failing test's message. */
  output: string[];
  /** Stops the agent (SIGTERM, SIGKILL after 5 s) and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * A real `keyway-agent run --simulate` process for a provisioned device: MQTT to `server`
 * (`mqtt://host:port` for the broker's TCP port, or `ws://host:port/mqtt`, which also opens
 * the remote-access tunnel on `/tunnel` of the same host) and the simulated HMI on a free
 * port.
 */
export async function startSimulatedAgent(options: {
  server: string;
  machineCode: string;
  deviceSecret: string;
  /** Seconds between the simulated HMI's data reports (the agent's default otherwise). */
  dataEvery?: number;
  /** A device UI of the test's own ("host:port") instead of the simulated HMI's page. */
  target?: string;
  /** The device's VNC server ("host:port"): the agent offers its screen (`--vnc`). */
  vnc?: string;
}): Promise<SimulatedAgent> {
  const hmiPort = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-agent-"));
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "apps/agent/src/cli.ts",
      "run",
      "--server",
      options.server,
      "--code",
      options.machineCode,
      "--simulate",
      "--http-port",
      String(hmiPort),
      ...(options.target ? ["--target", options.target] : []),
      ...(options.vnc ? ["--vnc", options.vnc] : []),
      "--data-dir",
      dataDir,
      ...(options.dataEvery !== undefined ? ["--data-every", String(options.dataEvery)] : []),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // The secret in the environment, never on a command line (docs/security.md).
      env: { ...process.env, KEYWAY_AGENT_SECRET: options.deviceSecret },
    },
  );
  const output: string[] = [];
  child.stdout?.on("data", (d) => output.push(String(d)));
  child.stderr?.on("data", (d) => output.push(String(d)));
  return {
    child,
    hmiPort,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once("exit", done));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The platform with the demo device, its simulated agent running, and the device maintained
 * by "Acme Plastics" whose maintenance team includes the device's owner (type 2: an owned
 * device cannot be an enterprise's own device) — the set-up of the browser tests that need
 * a live device in both contexts.
 */
export async function startMaintainedDemo(
  label: string,
  options: Parameters<typeof startPlatform>[0] = {},
) {
  const platform = await startPlatform(options);
  const dataDir = mkdtempSync(path.join(tmpdir(), `kw-e2e-${label}-`));
  const demo: DemoDevice = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  const { accounts, enterprises } = platform.app.services;
  const ops = await accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.operator.email });
  const operator = { userId: ops?.id ?? 0, role: "operator" as const };
  const eid = (await enterprises.create(operator, { name: "Acme Plastics", enableProject: 0 })).eid;
  await enterprises.addMember(operator, {
    eid,
    account: { channel: "email", email: DEMO_ACCOUNTS.user.email },
    kind: "maintenance",
    isAdmin: false,
  });
  await enterprises.assignDevice(operator, { eid, code: demo.machineCode, type: 2 });
  // MQTT over WebSocket on Keyway's own port: the agent opens its tunnel beside it.
  const agent = await startSimulatedAgent({
    server: `ws://127.0.0.1:${platform.port}/mqtt`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
  });
  return {
    platform,
    agent,
    demo,
    eid,
    async close() {
      await agent.stop();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
