import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import pg from "pg";
import type { Db } from "../apps/server/src/db/client.ts";
import { hashToken } from "../apps/server/src/infra/crypto.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";

/** `count` provisioned devices `<prefix>000000…`, all with device secret `secret`. */
export function insertBenchDevices(db: Db, prefix: string, count: number, secret: string) {
  const now = new Date();
  return db
    .insert(devices)
    .values(
      Array.from({ length: count }, (_, i) => ({
        code: `${prefix}${String(i).padStart(6, "0")}`,
        secretHash: hashToken(secret),
        passwordHash: "unused",
        createdAt: now,
      })),
    )
    .returning({ id: devices.id, code: devices.code });
}

/**
 * A load generator (bench/<file>) in its own process, with IPC; `figures` resolves with the
 * JSON object of the last line it prints when it exits.
 */
export function forkLoad<T>(
  file: string,
  args: Record<string, string | number>,
): { child: ChildProcess; figures: Promise<T> } {
  const child = fork(
    path.join(import.meta.dirname, file),
    Object.entries(args).flatMap(([name, value]) => [`--${name}`, String(value)]),
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  // A generator killed or crashed prints no figures: a rejection, not a throw in this handler
  // (that would end the parent before it has stopped what it started).
  const figures = new Promise<T>((resolve, reject) =>
    child.on("exit", (code, signal) => {
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as T);
      } catch {
        reject(new Error(`${file} ended (${signal ?? code}) without its figures`));
      }
    }),
  );
  return { child, figures };
}

/** One statement on a PostgreSQL server as its admin (create or drop a bench's database). */
export async function adminSql(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
