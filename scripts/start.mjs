// `npm start`: install if needed, build the web app, the server and the agent if needed, start
// the platform on its embedded defaults (PGlite in ./data, embedded broker, local outbox) and,
// in the demo set-up, one simulated device (keyway-agent --simulate) as the demo user's device.
// Both run as production does: the built JavaScript with plain node (scripts/build.mjs).
// First of all: the Node.js version check.
import "./node-check.mjs";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { BUILT_AGENT, demoAgentCommand } from "./demo-agent.mjs";
import { ensureInstalled, ensureServerBuilt, ensureWebBuilt, root } from "./prepare.mjs";

ensureInstalled();
ensureWebBuilt();
ensureServerBuilt();

const dataDir = path.resolve(root, process.env.DATA_DIR ?? "data");
const demo = (process.env.DEMO ?? "1") === "1";
const agentFile = path.join(dataDir, "demo-agent.json");
rmSync(agentFile, { force: true });

const children = [];
const server = spawn(process.execPath, ["apps/server/dist/main.js"], {
  cwd: root,
  stdio: "inherit",
});
children.push(server);

function stopAll(signal = "SIGTERM") {
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stopAll(signal));
server.on("exit", (code) => {
  stopAll();
  process.exit(code ?? 0);
});

// The server writes the demo device's credentials once it listens.
if (demo) {
  const waitForAgentFile = setInterval(() => {
    if (!existsSync(agentFile)) return;
    clearInterval(waitForAgentFile);
    const demo = JSON.parse(readFileSync(agentFile, "utf8"));
    const hmiPort = process.env.DEMO_HMI_PORT ?? "8000";
    // The secret goes to the agent in its environment, not on its command line.
    const { args, env } = demoAgentCommand({ demo, hmiPort, dataDir, program: BUILT_AGENT });
    const agent = spawn(process.execPath, args, { cwd: root, stdio: "inherit", env });
    children.push(agent);
    console.log(
      `  Simulated device ${demo.machineCode}: its HMI is on http://localhost:${hmiPort}\n`,
    );
    agent.on("exit", (code) => {
      if (code)
        console.error(`The simulated device stopped (exit ${code}); the platform keeps running.`);
    });
  }, 300);
}
