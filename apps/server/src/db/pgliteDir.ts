import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { untarInto } from "./untar.ts";

/**
 * A new embedded database starts from this data directory, made once by PGlite's initdb
 * (`node --import tsx apps/server/src/db/template.ts`, a tar as PGlite's dumpDataDir writes it,
 * brotli-compressed). PGlite's own initdb runs a second WebAssembly PostgreSQL beside the
 * first and copies its files through memory: ~850 MiB at a first start against ~450 MiB
 * from this file (docs/performance.md "footprint"). Beside this module: src/db/ in the
 * sources, dist/ once built (scripts/build.mjs copies it there).
 */
export const PGLITE_TEMPLATE = path.join(import.meta.dirname, "pglite-template.tar.br");

/** The file PostgreSQL, and PGlite before it opens a directory, take for "a database is here". */
const MARKER = "PG_VERSION";
const LOCK_FILE = "keyway.lock";

export class DataDirNotDatabaseError extends Error {}

/**
 * Makes `dataDir` a database when it is none yet, whole or not at all: the template is
 * unpacked into a sibling folder of this process's own, which then takes `dataDir`'s name in
 * one rename. A crash half-way leaves that folder, never a `dataDir` without all its files
 * for the next start to trust; the next start clears it. Without the template (a packaging
 * that left it out) PGlite runs its own initdb in `dataDir`, as before.
 */
export async function ensurePgliteDir(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, MARKER))) return;
  if (!existsSync(PGLITE_TEMPLATE)) {
    console.warn(`pglite: no ${PGLITE_TEMPLATE}, running initdb (needs ~850 MiB once)`);
    return;
  }
  mkdirSync(path.dirname(dataDir), { recursive: true });
  makeRoom(dataDir);
  clearLeftovers(dataDir);
  const temp = `${dataDir}.init-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  try {
    // No fsync: PGlite runs PostgreSQL without it (-F), so these files are as safe as any it
    // writes; what matters is that a killed start never leaves half a folder under the
    // database's name, which the rename sees to.
    await pipeline(
      createReadStream(PGLITE_TEMPLATE),
      createBrotliDecompress(),
      untarInto(temp, PGLITE_TEMPLATE),
    );
    if (!existsSync(path.join(temp, MARKER))) throw new Error(`${PGLITE_TEMPLATE}: no ${MARKER}`);
    takeName(temp, dataDir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * Empties the way for the rename: a missing or empty `dataDir` is replaced, so is one that
 * holds nothing but a dead process's lock (an older version locked it before PGlite wrote
 * anything); anything else is not ours to remove.
 */
function makeRoom(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  const entries = readdirSync(dataDir);
  if (entries.length === 1 && entries[0] === LOCK_FILE && !lockHeld(dataDir)) {
    rmSync(path.join(dataDir, LOCK_FILE), { force: true });
  } else if (entries.length > 0) {
    throw new DataDirNotDatabaseError(
      `${dataDir} holds files but no database (no ${MARKER}): move it away and start again.`,
    );
  }
}

/** Gives `temp` the database's name, unless a process starting at the same time did first. */
function takeName(temp: string, dataDir: string): void {
  try {
    renameSync(temp, dataDir);
  } catch (error) {
    // Its database is whole (it too renamed a whole folder); this one is removed.
    if (existsSync(path.join(dataDir, MARKER))) return;
    throw error;
  }
}

/** Folders of earlier first starts that ended before their rename (their process is gone). */
function clearLeftovers(dataDir: string): void {
  const parent = path.dirname(dataDir);
  const prefix = `${path.basename(dataDir)}.init-`;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) continue;
    rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

function lockHeld(dataDir: string): boolean {
  const pid = Number(readFileSync(path.join(dataDir, LOCK_FILE), "utf8"));
  return Boolean(pid) && pid !== process.pid && isAlive(pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
