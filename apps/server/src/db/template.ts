import { renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_TEMPLATE } from "./pgliteDir.ts";

/**
 * Writes the data directory every new embedded database starts from (pgliteDir.ts):
 * PGlite's initdb, nothing of Keyway's (the migrations run at start, so the file changes only
 * with PGlite's PostgreSQL). Run it after upgrading @electric-sql/pglite:
 *
 *   node --import tsx apps/server/src/db/template.ts
 *
 * It needs what initdb needs (~850 MiB, once, here rather than on every server's first start).
 */
export async function pgliteTemplate(): Promise<Buffer> {
  const pg = new PGlite();
  try {
    await pg.waitReady;
    // Written to disk, so that the copy starts without replaying the WAL.
    await pg.exec("checkpoint");
    const tar = Buffer.from(await (await pg.dumpDataDir("none")).arrayBuffer());
    // Brotli at its best: 1.3 MB against 4.5 MB gzipped (the 40 MB are mostly zeros and
    // three copies of the same catalog); unpacking takes ~0.2 s.
    return brotliCompressSync(tar, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
        [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
      },
    });
  } finally {
    await pg.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = await pgliteTemplate();
  writeFileSync(`${PGLITE_TEMPLATE}.tmp`, file);
  renameSync(`${PGLITE_TEMPLATE}.tmp`, PGLITE_TEMPLATE);
  console.log(`Wrote ${PGLITE_TEMPLATE} (${Math.round(file.length / 1024)} KiB)`);
}
