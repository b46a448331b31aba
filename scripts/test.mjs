// `npm test`: install if needed (the Debian packages too, scripts/system-packages.mjs), build
// the web app (the browser tests use it), run vitest, then print one closing line
// "Tests: N passed, N failed".
// Extra arguments go to vitest, e.g. `npm test -- apps/server`.
// First of all: the Node.js version check.
import "./node-check.mjs";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ensureInstalled, ensureWebBuilt, root } from "./prepare.mjs";
import { ensureSystemPackages } from "./system-packages.mjs";

// The tests start real programs besides Node: a broker, Redis, certificates, a browser.
// Install the missing Debian packages where we may, or say in one line how, before anything runs.
ensureSystemPackages();

ensureInstalled();
ensureWebBuilt();
const cacheDir = path.join(root, "node_modules/.cache");
mkdirSync(cacheDir, { recursive: true });
const resultsFile = path.join(cacheDir, "vitest-results.json");
rmSync(resultsFile, { force: true });
const result = spawnSync(
  "npx",
  [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: "inherit" },
);
if (existsSync(resultsFile)) {
  const summary = JSON.parse(readFileSync(resultsFile, "utf8"));
  console.log(`Tests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
}
process.exit(result.status ?? 1);
