import { randomBytes } from "node:crypto";
import pg from "pg";
import { testDatabaseUrl } from "../config.ts";
import { type Database, openDatabase } from "./client.ts";

/**
 * A fresh, migrated database for one test file: a new database on the PostgreSQL server
 * of DATABASE_URL (CI), or an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = testDatabaseUrl();
  if (!serverUrl) return openDatabase({});
  const name = `kw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  return {
    ...database,
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
