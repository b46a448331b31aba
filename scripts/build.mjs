// The server and the agent as plain JavaScript (`npm run build` runs this after the web
// app's vite build), so that production starts them with `node apps/server/dist/main.js` and
// `node --max-semi-space-size=8 apps/agent/dist/keyway-agent.mjs`: no tsx, no devDependency at
// run time.
//
// The server: esbuild bundles each entry with our TypeScript and the workspace packages it uses
// (@keyway/shared and @keyway/protocol are TypeScript sources) into one ES module, with a
// source map. npm packages stay imports, resolved from node_modules at run time; the build
// fails if one of them is not a production dependency. Every entry's first import is
// ./node-check.js (scripts/node-check.mjs), so that the Node.js version is checked before any
// npm package is evaluated.
// The agent: its one self-contained file, apps/agent/build.mjs (npm packages inside; the
// version check bundled first).
//
//   node scripts/build.mjs [--server-outdir DIR] [--agent-outdir DIR]
//
// Out dirs default to apps/server/dist and apps/agent/dist. The server's must lie inside
// apps/server: the built server finds its package.json, node_modules, its migrations (drizzle/)
// and the web app (../web/dist) from there, as the sources do (apps/server/src/paths.ts).
// First of all: the Node.js version check.
import "./node-check.mjs";
import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { buildAgent } from "../apps/agent/build.mjs";

const root = path.resolve(import.meta.dirname, "..");
const NODE_CHECK = path.join(root, "scripts/node-check.mjs");
const PGLITE_TEMPLATE = "pglite-template.tar.br";

const APPS = {
  server: { dir: "apps/server", entries: { main: "src/main.ts", cli: "src/cli.ts" } },
};

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/**
 * How the server is bundled for production; the benches are built the same way
 * (bench/bundle.ts), so that they run the code that ships.
 */
export const SERVER_BUNDLE = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  packages: "external",
};

/** Workspace packages (@keyway/shared, @keyway/protocol) are bundled, from their sources. */
export function bundleWorkspaceSources(build) {
  // Node's own resolution of the import, from the workspace root: the package's exports,
  // through the node_modules/@keyway link to its real folder.
  build.onResolve({ filter: /^@keyway\// }, (args) => ({
    path: fileURLToPath(import.meta.resolve(args.path)),
  }));
}

const bundleWorkspaces = {
  name: "bundle-workspaces",
  setup(build) {
    bundleWorkspaceSources(build);
    // The version check stays a file of its own, imported first (see above).
    build.onResolve({ filter: /\/node-check\.mjs$/ }, (args) =>
      args.kind === "entry-point" ? undefined : { path: "./node-check.js", external: true },
    );
  },
};

function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * npm packages an output imports that are not production dependencies of the app, nor of a
 * workspace package bundled into it.
 */
function notProductionDependencies(appDir, output) {
  const manifests = new Set([path.join(root, appDir, "package.json")]);
  for (const input of Object.keys(output.inputs)) {
    const match = /^packages\/([^/]+)\//.exec(path.relative(root, path.resolve(root, input)));
    if (match) manifests.add(path.join(root, "packages", match[1], "package.json"));
  }
  const allowed = new Set();
  for (const file of manifests) {
    const pkg = readJson(file);
    for (const field of ["dependencies", "optionalDependencies", "peerDependencies"]) {
      for (const name of Object.keys(pkg[field] ?? {})) allowed.add(name);
    }
  }
  const builtins = new Set(builtinModules);
  return output.imports
    .filter((i) => i.external && !i.path.startsWith(".") && !i.path.startsWith("node:"))
    .map((i) => packageName(i.path))
    .filter((name) => !builtins.has(name) && !allowed.has(name))
    .filter((name, index, all) => all.indexOf(name) === index);
}

/** Builds one app into `outdir`; returns the written entry files. */
async function buildApp(name, outdir) {
  const app = APPS[name];
  const appRoot = path.join(root, app.dir);
  const inside = path.relative(appRoot, outdir);
  if (!inside || inside.startsWith("..") || path.isAbsolute(inside)) {
    throw new Error(`the ${name} out dir must lie inside ${app.dir}/ (got ${outdir})`);
  }
  const entryPoints = Object.entries(app.entries).map(([out, src]) => ({
    in: path.join(appRoot, src),
    out,
  }));
  entryPoints.push({ in: NODE_CHECK, out: "node-check" });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    ...SERVER_BUNDLE,
    plugins: [bundleWorkspaces],
    metafile: true,
    // Checked first, then written: a refused build leaves the previous one in place.
    write: false,
    logLevel: "warning",
  });
  const text = new Map(result.outputFiles.map((f) => [f.path, f.text]));
  const entries = [];
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!output.entryPoint || file.endsWith("node-check.js")) continue;
    const outFile = path.resolve(root, file);
    const bad = notProductionDependencies(app.dir, output);
    if (bad.length > 0) {
      throw new Error(
        `${path.relative(root, outFile)} imports ${bad.join(", ")}: not a production dependency of ${app.dir} or of a workspace package bundled into it`,
      );
    }
    const firstImport = (text.get(outFile) ?? "")
      .split("\n")
      .find((line) => line.startsWith("import "));
    if (firstImport !== 'import "./node-check.js";') {
      throw new Error(`${path.relative(root, outFile)}: the Node.js check is not its first import`);
    }
    entries.push(outFile);
  }
  // Each file whole or not at all, for a program starting from this dir meanwhile.
  mkdirSync(outdir, { recursive: true });
  for (const file of result.outputFiles) {
    writeFileSync(`${file.path}.${process.pid}.tmp`, file.contents);
    renameSync(`${file.path}.${process.pid}.tmp`, file.path);
  }
  return entries;
}

/**
 * The agent's bundle into `outdir` (it needs nothing beside it). The agent's
 * earlier build (cli.js beside node-check.js, npm packages from node_modules) is removed: a
 * unit still starting it fails at once rather than running an agent of an older release.
 */
async function buildAgentInto(outdir) {
  mkdirSync(outdir, { recursive: true });
  const outfile = path.join(outdir, "keyway-agent.mjs");
  await buildAgent(outfile);
  for (const old of ["cli.js", "cli.js.map", "node-check.js", "node-check.js.map"]) {
    rmSync(path.join(outdir, old), { force: true });
  }
  return outfile;
}

/**
 * The embedded database's starting point beside the built server, where it looks for it
 * (apps/server/src/db/pgliteDir.ts): a first start unpacks it instead of running initdb.
 */
function copyPgliteTemplate(outdir) {
  const file = path.join(outdir, PGLITE_TEMPLATE);
  copyFileSync(
    path.join(root, "apps/server/src/db", PGLITE_TEMPLATE),
    `${file}.${process.pid}.tmp`,
  );
  renameSync(`${file}.${process.pid}.tmp`, file);
  return file;
}

/** Builds the server and the agent; out dirs default to each app's dist/. */
export async function build({
  serverOutdir = path.join(root, "apps/server/dist"),
  agentOutdir = path.join(root, "apps/agent/dist"),
} = {}) {
  const started = performance.now();
  const files = [
    ...(await buildApp("server", path.resolve(serverOutdir))),
    copyPgliteTemplate(path.resolve(serverOutdir)),
    await buildAgentInto(path.resolve(agentOutdir)),
  ];
  const sizes = files.map(
    (f) => `${path.relative(root, f)} (${Math.round(statSync(f).size / 1024)} KiB)`,
  );
  console.log(`Built ${sizes.join(", ")} in ${Math.round(performance.now() - started)} ms`);
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { "server-outdir": { type: "string" }, "agent-outdir": { type: "string" } },
  });
  try {
    await build({ serverOutdir: values["server-outdir"], agentOutdir: values["agent-outdir"] });
  } catch (error) {
    // esbuild has printed its own errors; ours are one line.
    if (!error.errors) console.error(`build: ${error.message}`);
    process.exit(1);
  }
}
