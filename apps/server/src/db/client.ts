import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { MIGRATIONS_DIR } from "../paths.ts";
import { ensurePgliteDir, isAlive } from "./pgliteDir.ts";
import * as schema from "./schema.ts";

export type Schema = typeof schema;
/** One type for both drivers: services only see this. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

const migrationsFolder = MIGRATIONS_DIR;

/** Opens PostgreSQL at `url`, or PGlite in `dataDir` (or in memory), and applies migrations. */
export async function openDatabase(opts: { url?: string; dataDir?: string }): Promise<Database> {
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max: 10 });
    // An idle connection the server ends (restart, failover, a dropped test database) is
    // replaced on the next query; without a listener its error would crash the process.
    pool.on("error", (error) => {
      console.warn(`postgres: idle connection closed (${error.message})`);
    });
    const db = drizzlePg(pool, { schema });
    await migrateAlone(pool, () => migratePg(db, { migrationsFolder }));
    return { db: db as unknown as Db, kind: "postgres", close: () => pool.end() };
  }
  // Made whole from the shipped template before it is locked and opened (pgliteDir.ts).
  if (opts.dataDir) await ensurePgliteDir(opts.dataDir);
  const unlock = opts.dataDir ? lockDataDir(opts.dataDir) : () => {};
  const client = opts.dataDir ? new PGlite(opts.dataDir) : new PGlite();
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    close: async () => {
      await client.close();
      unlock();
    },
  };
}

/** The advisory lock the migrations are applied under (any fixed number, Keyway's own). */
const MIGRATION_LOCK = 7_160_516;

/**
 * Several nodes starting at once on one database (a host's boot, a deploy) would each apply
 * the same migrations and all but one fail half-way; under a session-level advisory lock they
 * take turns, and the later ones find nothing left to do.
 */
async function migrateAlone(pool: pg.Pool, migrate: () => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await migrate();
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

export class DataDirLockedError extends Error {}

/**
 * PGlite's files belong to one process at a time: a second process (a CLI while the server
 * runs) is refused instead of corrupting them.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, "keyway.lock");
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, "utf8"));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new DataDirLockedError(
        `The embedded database in ${dataDir} is in use by process ${pid} (is the server running?).`,
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

export { schema };
