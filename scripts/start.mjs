// `npm start`: install if needed, build the web app if needed, start the platform on its
// embedded defaults (PGlite in ./data, embedded broker, local outbox) and, in the demo
// set-up, one simulated device (keyway-agent --simulate) as the demo user's device.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { demoAgentCommand } from "./demo-agent.mjs";
import { ensureInstalled, ensureWebBuilt, root } from "./prepare.mjs";

ensureInstalled();
ensureWebBuilt();

const dataDir = path.resolve(root, process.env.DATA_DIR ?? "data");
const demo = (process.env.DEMO ?? "1") === "1";
const agentFile = path.join(dataDir, "demo-agent.json");
rmSync(agentFile, { force: true });

const children = [];
const server = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
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
    const { args, env } = demoAgentCommand({ demo, hmiPort, dataDir });
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
