// `npm test`: install if needed, build the web app (the browser tests use it), run vitest,
// then print one closing line "Tests: N passed, N failed".
// Extra arguments go to vitest, e.g. `npm test -- apps/server`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ensureInstalled, ensureWebBuilt, root } from "./prepare.mjs";

// The tests start real programs besides Node: a broker, Redis, certificates, a browser.
// Say what is missing, in one line, before anything runs.
const onPath = (name) =>
  (process.env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && existsSync(path.join(dir, name)));
const missing = [
  ["/usr/sbin/mosquitto", "mosquitto"],
  ["redis-server", "redis-server"],
  ["/usr/bin/openssl", "openssl"],
  ["/usr/bin/chromium", "chromium"],
].filter(([program]) => (program.startsWith("/") ? !existsSync(program) : !onPath(program)));
if (missing.length > 0) {
  console.error(
    `npm test needs ${missing.map(([program]) => program).join(", ")}: apt-get install chromium mosquitto redis-server openssl`,
  );
  process.exit(1);
}

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
