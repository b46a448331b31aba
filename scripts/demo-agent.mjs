// The simulated demo device of `npm start` (scripts/start.mjs), also run this way by
// apps/agent/src/start.test.ts. Its secret goes in the environment, never on the command
// line: any local user can read a process's arguments (ps, /proc/<pid>/cmdline), while its
// environment is readable by its own user only.
import path from "node:path";

/**
 * The agent's sources through tsx (the tests), or its build (npm start, scripts/build.mjs): the
 * one file a device runs, with the flag that keeps V8's young generation small (decision 195).
 */
export const SOURCE_AGENT = ["--import", "tsx", "apps/agent/src/cli.ts"];
export const BUILT_AGENT = ["--max-semi-space-size=8", "apps/agent/dist/keyway-agent.mjs"];

/**
 * `demo` is demo-agent.json as the server writes it ({server, tunnel, machineCode,
 * deviceSecret}); the agent keeps its alarm queue in `<dataDir>/agent`. `program` is node's
 * arguments before the agent's own.
 */
export function demoAgentCommand({
  demo,
  hmiPort,
  dataDir,
  env = process.env,
  program = SOURCE_AGENT,
}) {
  return {
    args: [
      ...program,
      "run",
      "--server",
      demo.server,
      "--code",
      demo.machineCode,
      "--simulate",
      "--http-port",
      String(hmiPort),
      "--data-dir",
      path.join(dataDir, "agent"),
      // "Connect" in the web opens the simulated HMI through this tunnel.
      ...(demo.tunnel ? ["--tunnel", demo.tunnel] : []),
    ],
    env: { ...env, KEYWAY_AGENT_SECRET: demo.deviceSecret },
  };
}
