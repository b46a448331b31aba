// `npm start`: install if needed, build the web app if needed, start the platform on its
// embedded defaults (PGlite in ./data, embedded broker, local outbox).
import { spawn } from "node:child_process";
import { ensureInstalled, ensureWebBuilt, root } from "./prepare.mjs";

ensureInstalled();
ensureWebBuilt();
const server = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
  cwd: root,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
