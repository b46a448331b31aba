#!/usr/bin/env node
// `keyway-agent` (`npx keyway-agent run ...`): the bundled agent, dist/keyway-agent.mjs
// (`npm run build -w @keyway/agent`), when it is there and no source is newer; otherwise the
// TypeScript sources through tsx, a devDependency that a workspace checkout has, so that a
// changed source is never run stale.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const app = path.resolve(import.meta.dirname, "..");
const built = path.join(app, "dist/keyway-agent.mjs");

/** The newest modification time of the files under `dir` (0 when there are none). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

async function fromSources() {
  if (!existsSync(path.join(app, "src/cli.ts"))) return false;
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    return false; // a production install: no devDependencies
  }
  tsx.register();
  await import("../src/cli.ts");
  return true;
}

const sources = [path.join(app, "src"), path.resolve(app, "../../packages/protocol/src")];
const fresh = existsSync(built) && sources.every((dir) => newest(dir) <= statSync(built).mtimeMs);
if (fresh || !(await fromSources())) {
  if (!existsSync(built)) {
    console.error("keyway-agent: not built, and tsx is not installed: run npm run build");
    process.exit(1);
  }
  await import("../dist/keyway-agent.mjs");
}
