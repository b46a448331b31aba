import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

/**
 * The benches as one ES module built the way scripts/build.mjs builds the server for
 * production (esbuild, our TypeScript and the workspace packages bundled, npm packages
 * imported), so that the server code a bench runs in its own process is the code that ships.
 * Through tsx it was not: tsx keeps every function's name, a call on every closure made, which
 * the relay makes several of per request (docs/performance.md, decision 211).
 *
 * Each source file keeps its own `import.meta` (dirname, filename, url), so paths work out as
 * they do from the sources: the benches' child scripts, the server's migrations, the agent's
 * build. Written to apps/server/.bench/ (not in git), where the server's npm packages resolve.
 */
/** Spelt apart: this file is bundled too, and must keep its needles. */
const META = ["import", "meta"].join(".");

export async function bundleBenches(): Promise<string> {
  const root = path.resolve(import.meta.dirname, "..");
  const outfile = path.join(root, "apps/server/.bench/run.mjs");
  const ownImportMeta: esbuild.Plugin = {
    name: "own-import-meta",
    setup(build) {
      // @keyway/shared and @keyway/protocol are TypeScript sources: bundled, as in production.
      build.onResolve({ filter: /^@keyway\// }, (args) => ({
        path: fileURLToPath(import.meta.resolve(args.path)),
      }));
      build.onLoad({ filter: /\.(ts|mjs|js)$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const contents = readFileSync(args.path, "utf8")
          .replaceAll(`${META}.dirname`, JSON.stringify(path.dirname(args.path)))
          .replaceAll(`${META}.filename`, JSON.stringify(args.path))
          .replaceAll(`${META}.url`, JSON.stringify(pathToFileURL(args.path).href));
        return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      });
    },
  };
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "bench/run.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    packages: "external",
    plugins: [ownImportMeta],
    logLevel: "warning",
  });
  return outfile;
}
