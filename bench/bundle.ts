import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { bundleWorkspaceSources, SERVER_BUNDLE } from "../scripts/build.mjs";

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
/** `import.meta.<dirname|filename|url>`, spelt apart: this file is bundled too. */
const NEEDLE = new RegExp(`${["import", "meta"].join("\\.")}\\.(dirname|filename|url)\\b`, "g");

export async function bundleBenches(): Promise<string> {
  const root = path.resolve(import.meta.dirname, "..");
  const outfile = path.join(root, "apps/server/.bench/run.mjs");
  const ownImportMeta: esbuild.Plugin = {
    name: "own-import-meta",
    setup(build) {
      bundleWorkspaceSources(build);
      build.onLoad({ filter: /\.(ts|mjs|js)$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const own: Record<string, string> = {
          dirname: JSON.stringify(path.dirname(args.path)),
          filename: JSON.stringify(args.path),
          url: JSON.stringify(pathToFileURL(args.path).href),
        };
        const contents = readFileSync(args.path, "utf8").replace(
          NEEDLE,
          (found, key: string, at: number, text: string) => {
            // Inside a string literal (code that writes code, as the agent's build banner
            // does) it stays: count the quotes before it on its line.
            const line = text.slice(text.lastIndexOf("\n", at) + 1, at);
            const quoted = (line.match(/['"`]/g)?.length ?? 0) % 2 === 1;
            return quoted ? found : own[key];
          },
        );
        return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      });
    },
  };
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "bench/run.ts")],
    outfile,
    ...SERVER_BUNDLE,
    plugins: [ownImportMeta],
    logLevel: "warning",
  });
  return outfile;
}
