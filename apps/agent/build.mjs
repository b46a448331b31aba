// The agent as one self-contained ES module, dist/keyway-agent.mjs: its only build (`npm run
// build` makes it through scripts/build.mjs; `npm run build -w @keyway/agent` alone), what the
// systemd unit, `npm start` and `npx keyway-agent` run, with `--max-semi-space-size=8` where
// node is started for it. Our TypeScript, @keyway/protocol and the npm packages (mqtt, ws)
// bundled together, so that a device needs Node.js 20 and this one file, no node_modules. One
// file is also less memory: what the agent does not use is left out (see below), and Node
// keeps no module record, source text and wrapper per file of node_modules (mqtt alone is
// ~100 files). The Node.js version check (scripts/node-check.mjs) is the first import of
// src/cli.ts, so it runs first in the bundle too.
//
//   node apps/agent/build.mjs [--outfile FILE]
//
// bufferutil (ws's optional native helper) stays an import: ws falls back without it.
import { renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";

const app = import.meta.dirname;
const root = path.resolve(app, "../..");
export const AGENT_BUNDLE = path.join(app, "dist/keyway-agent.mjs");

/**
 * @keyway/protocol's modules have no side effects, so what the agent does not import is left
 * out: the push channel's protobuf messages and their runtime (~130 KiB, and their descriptors
 * built at start), the server-side zod schemas. (Its package.json does not say so: it is
 * also run from sources by tsx and vitest, where it makes no difference.)
 */
const protocolWithoutSideEffects = {
  name: "protocol-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /^@keyway\/protocol/ }, (args) => ({
      path: fileURLToPath(import.meta.resolve(args.path)),
      sideEffects: false,
    }));
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.resolveDir.startsWith(path.join(root, "packages/protocol/src"))
        ? { path: path.resolve(args.resolveDir, args.path), sideEffects: false }
        : undefined,
    );
  },
};

/**
 * What mqtt.js brings for browsers and options the agent never sets, left out (decision 221):
 * - `readable-stream`, a copy of Node's streams for browsers (two of them: mqtt.js's and bl's),
 *   is Node's own `stream`; mqtt.js and bl use its Duplex, Readable, Transform and Writable;
 * - `socks` (and ip-address, smart-buffer), for mqtt.js's `socksProxy` option and its
 *   MQTTJS_SOCKS_PROXY variable: the agent dials its server directly, on both links;
 * - `worker-timers`, Web Worker timers that mqtt.js takes only in a browser.
 * The two stubs throw, saying so, if ever reached. Each was measured in the idle agent's RSS.
 */
const leanDependencies = {
  name: "lean-dependencies",
  setup(build) {
    build.onResolve({ filter: /^readable-stream$/ }, () => ({ path: "stream", external: true }));
    for (const name of ["socks", "worker-timers"]) {
      const stub = path.join(app, `stubs/${name}.cjs`);
      build.onResolve({ filter: new RegExp(`^${name}$`) }, () => ({ path: stub }));
    }
  },
};

/** esbuild's options for the bundle, written to memory (`write: false`). */
const options = (outfile) => ({
  absWorkingDir: root,
  entryPoints: [path.join(app, "src/cli.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // ws and mqtt are CommonJS and require() Node's modules: an ES module has no require.
  banner: {
    js: 'import { createRequire as __kwCreateRequire } from "node:module";\nconst require = __kwCreateRequire(import.meta.url);',
  },
  external: ["bufferutil", "utf-8-validate"],
  plugins: [protocolWithoutSideEffects, leanDependencies],
  // Without comments and blanks the source V8 keeps in memory is a third smaller, and all
  // ASCII (a single non-Latin-1 character in a comment makes V8 store the whole text at two
  // bytes a character). Names are kept, so stack traces stay readable without a source map.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  write: false,
  logLevel: "warning",
});

/**
 * The files the bundle takes code from (paths from the repository's root). What goes in stays in
 * the agent's heap as source text and code; the agent's heap must stay small (below V8's
 * 8 MB, where a download's buffers start whole-heap collections: docs/performance.md).
 */
export async function bundledInputs() {
  const result = await esbuild.build({ ...options(AGENT_BUNDLE), metafile: true });
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
}

/** Builds the bundle into `outfile` (written whole or not at all); returns its size in bytes. */
export async function buildAgent(outfile = AGENT_BUNDLE) {
  const result = await esbuild.build(options(outfile));
  const [file] = result.outputFiles;
  // A running agent or a test may be starting from this file meanwhile.
  const temp = `${outfile}.${process.pid}.tmp`;
  writeFileSync(temp, file.contents);
  renameSync(temp, outfile);
  return statSync(outfile).size;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outfile: { type: "string" } } });
  const outfile = path.resolve(values.outfile ?? AGENT_BUNDLE);
  try {
    const size = await buildAgent(outfile);
    console.log(`Built ${path.relative(root, outfile)} (${Math.round(size / 1024)} KiB)`);
  } catch (error) {
    if (!error.errors) console.error(`build: ${error.message}`);
    process.exit(1);
  }
}
