// The Node.js version Keyway runs on, checked first thing by every program: the server
// (apps/server/src/main.ts, cli.ts), the agent (apps/agent/src/cli.ts), `npm start` and `npm test`.
// Another version gets one plain line and exit 1, not a stack trace from whatever breaks first.
// The built programs load this file as their first import (dist/node-check.js, see
// scripts/build.mjs), so it runs before any npm package is evaluated.
// Keep in step with .nvmrc and package.json "engines" (tests/scripts/build.test.ts checks).
// Plain JavaScript that imports nothing, so that it runs on old Node.js versions too.

/** Node.js 20, from 20.19 on. */
export const NODE_MAJOR = 20;
export const NODE_MIN_MINOR = 19;

/** The one-line complaint about `version` (like "18.19.0"), or null when Keyway runs on it. */
export function nodeVersionProblem(version) {
  const [major, minor] = String(version).replace(/^v/, "").split(".").map(Number);
  if (major !== NODE_MAJOR) return `Keyway needs Node.js ${NODE_MAJOR} (found ${version})`;
  if (!(minor >= NODE_MIN_MINOR)) {
    return `Keyway needs Node.js ${NODE_MAJOR}.${NODE_MIN_MINOR} or a later ${NODE_MAJOR}.x (found ${version})`;
  }
  return null;
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
