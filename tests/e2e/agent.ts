import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./browser.ts";

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
      `--secret=${options.deviceSecret}`,
      "--simulate",
      "--http-port",
      String(hmiPort),
      "--data-dir",
      dataDir,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
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
