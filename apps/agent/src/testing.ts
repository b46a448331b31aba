import { type ChildProcess, spawn } from "node:child_process";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Helpers of the agent's end-to-end tests: real `keyway-agent` processes, a TCP relay to the
 * broker that can be cut, and polling for what a user would see.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export interface AgentProcess {
  child: ChildProcess;
  /** The simulated HMI's port (0 when the agent runs without --simulate). */
  httpPort: number;
  /** stdout and stderr as they came. */
  output: string[];
  text(): string;
}

/** A TCP relay to the broker that can be taken down and brought back on the same port. */
export class CloudLink {
  port = 0;
  /** Connections accepted so far: each one is a connect attempt of a device. */
  accepted = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: number) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      this.accepted += 1;
      const upstream = createConnection(this.target, "127.0.0.1");
      for (const s of [client, upstream]) this.sockets.add(s);
      const cut = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on("error", cut).on("close", cut);
      upstream.on("error", cut).on("close", cut);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(this.port, "127.0.0.1", () => done());
    });
    const address = server.address();
    this.port = typeof address === "object" && address ? address.port : this.port;
    this.server = server;
  }

  /** Stops accepting and cuts every open connection, like a network outage. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((done) => server.close(() => done()));
  }
}

import { freePort } from "../../server/src/testing/ports.ts";

export { freePort };

/**
 * Starts `command args` in the workspace root (the agent CLI through tsx unless told) and,
 * with `--simulate`, waits until its HMI answers.
 */
export async function spawnAgent(
  args: string[],
  options: { command?: string[]; httpPort?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<AgentProcess> {
  const [command, ...prefix] = options.command ?? [
    process.execPath,
    "--import",
    "tsx",
    "apps/agent/src/cli.ts",
  ];
  const child = spawn(command, [...prefix, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: options.env,
    // Its own process group, so that a kill reaches what npx or a script starts beneath it.
    detached: true,
  });
  const output: string[] = [];
  const agent: AgentProcess = {
    child,
    httpPort: options.httpPort ?? 0,
    output,
    text: () => output.join(""),
  };
  child.stdout?.on("data", (d) => output.push(String(d)));
  child.stderr?.on("data", (d) => output.push(String(d)));
  if (agent.httpPort) {
    try {
      await until(
        async () => {
          try {
            return (await fetch(`http://127.0.0.1:${agent.httpPort}/api/status`)).ok;
          } catch {
            return false;
          }
        },
        { timeoutMs: 60_000, log: agent.text },
      );
    } catch (error) {
      // Not left running for the next test.
      await kill9(agent);
      throw error;
    }
  }
  return agent;
}

/**
 * `keyway-agent run --simulate` as `device` against `server`, its HMI on a free port; `extra`
 * adds flags, `command` runs it another way (npx). The secret goes in KEYWAY_AGENT_SECRET,
 * the way a real site should give it (not on the command line, where `ps` shows it).
 */
export async function spawnSimulatedDevice(options: {
  server: string;
  device: { machineCode: string; deviceSecret: string };
  dataDir: string;
  extra?: string[];
  command?: string[];
  env?: NodeJS.ProcessEnv;
}): Promise<AgentProcess> {
  const httpPort = await freePort();
  const args = ["run", "--server", options.server, "--code", options.device.machineCode];
  args.push("--data-dir", options.dataDir);
  args.push("--simulate", "--http-port", String(httpPort), ...(options.extra ?? []));
  const env = { ...process.env, ...options.env, KEYWAY_AGENT_SECRET: options.device.deviceSecret };
  return spawnAgent(args, { command: options.command, httpPort, env });
}

/** Ends the process and its group at once (SIGKILL, no goodbye) and waits for it to be gone. */
export async function kill9(agent: AgentProcess): Promise<void> {
  await signal(agent, "SIGKILL");
}

/** Sends `sig` to the process's group and waits for the process to exit; its exit code. */
export async function signal(agent: AgentProcess, sig: NodeJS.Signals): Promise<number | null> {
  const { child } = agent;
  if (child.exitCode !== null || child.signalCode !== null) {
    // The leader is gone; what it started may not be (npx's node under its shell).
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {}
    return child.exitCode;
  }
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  try {
    if (child.pid) process.kill(-child.pid, sig);
  } catch {
    child.kill(sig);
  }
  return exited;
}

export interface HmiStatus {
  connection: string;
  cloudSwitch: boolean;
  queued: number;
  delivered: number;
  lastError: string | null;
  tags: Record<string, number>;
  alarms: Array<{ id: string; type: string; content: string; delivered: boolean }>;
}

export async function hmiStatus(agent: AgentProcess): Promise<HmiStatus> {
  const res = await fetch(`http://127.0.0.1:${agent.httpPort}/api/status`);
  return (await res.json()) as HmiStatus;
}

/**
 * Polls `check` until it holds. Generous by default: agent processes start through tsx,
 * slowly on a loaded 2-core machine.
 */
export async function until(
  check: () => Promise<boolean> | boolean,
  options: { timeoutMs?: number; log?: () => string } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const log = options.log?.() ?? "";
      throw new Error(`condition not met in ${timeoutMs} ms${log ? `; output:\n${log}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
