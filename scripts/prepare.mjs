// Makes a checkout runnable with nothing but Node and npm: installs the packages when they
// are missing or older than the lockfile, and builds the web app when its sources changed.
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
