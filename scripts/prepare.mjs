// Makes a checkout runnable with nothing but Node and npm: installs the packages when they
// are missing or older than the lockfile, and builds the web app, the server and the agent
// when their sources changed.
// Uses only Node built-ins, because it runs before `npm install`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "..");

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newest(dir) {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

export function ensureInstalled() {
  const marker = path.join(root, "node_modules", ".package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
    console.log("Installing packages ...");
    run("npm", ["install", "--no-audit", "--no-fund"]);
  }
}

export function ensureWebBuilt() {
  const index = path.join(root, "apps/web/dist/index.html");
  const sources = Math.max(
    newest(path.join(root, "apps/web")),
    newest(path.join(root, "packages/shared/src")),
  );
  if (!existsSync(index) || statSync(index).mtimeMs < sources) {
    console.log("Building the web app ...");
    run("npm", ["run", "build", "-w", "@keyway/web"]);
  }
}

/** The server and the agent as JavaScript (scripts/build.mjs, about a second), when stale. */
export function ensureServerBuilt() {
  const built = [
    "apps/server/dist/main.js",
    "apps/server/dist/cli.js",
    "apps/agent/dist/keyway-agent.mjs",
  ];
  const sources = [
    "apps/server/src",
    "apps/agent/src",
    "packages/shared/src",
    "packages/protocol/src",
  ];
  const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
  const oldest = Math.min(...built.map((file) => mtime(path.join(root, file))));
  // scripts/: build.mjs and node-check.mjs.
  const changed = Math.max(...[...sources, "scripts"].map((dir) => newest(path.join(root, dir))));
  if (oldest < changed) {
    console.log("Building the server and the agent ...");
    run(process.execPath, ["scripts/build.mjs"]);
  }
}
