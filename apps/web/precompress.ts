import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text formats worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|map|webmanifest|wasm)$/i;
/** Below this, the encoding's own overhead eats most of the saving. */
const MIN_BYTES = 1024;

/** Every file under `dir`, recursively. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesOf(full) : [full];
    }),
  );
  return nested.flat();
}

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) beside every
 * compressible file of `dir` above 1 KiB, when smaller than the file: the server sends them
 * as they are (@fastify/static preCompressed), so nothing is compressed per request.
 * Returns the files compressed.
 */
export async function precompressDir(dir: string): Promise<string[]> {
  const files = (await filesOf(dir)).filter((file) => COMPRESSIBLE.test(file));
  const done: string[] = [];
  await Promise.all(
    files.map(async (file) => {
      if ((await stat(file)).size < MIN_BYTES) return;
      const content = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(content, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
          },
        }),
        gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < content.length) await writeFile(`${file}.br`, br);
      if (gz.length < content.length) await writeFile(`${file}.gz`, gz);
      done.push(file);
    }),
  );
  return done;
}

/** Vite plugin: precompresses the build output once it is written (build only). */
export function precompress() {
  let outDir = "dist";
  let log = (message: string) => console.log(message);
  return {
    name: "keyway-precompress",
    apply: "build" as const,
    configResolved(config: {
      root: string;
      build: { outDir: string };
      logger: { info(message: string): void };
    }) {
      outDir = path.resolve(config.root, config.build.outDir);
      log = (message) => config.logger.info(message);
    },
    async closeBundle() {
      const files = await precompressDir(outDir);
      log(`precompressed ${files.length} files (.br, .gz) in ${path.basename(outDir)}`);
    },
  };
}
