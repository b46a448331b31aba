import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "./client.ts";
import { DataDirNotDatabaseError } from "./pgliteDir.ts";

const CLIENT = path.join(import.meta.dirname, "client.ts");
const dirs: string[] = [];

function dataDirIn(): { parent: string; dataDir: string } {
  const parent = mkdtempSync(path.join(tmpdir(), "kw-pglite-dir-"));
  dirs.push(parent);
  return { parent, dataDir: path.join(parent, "pglite") };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The rows of a query (both drivers answer `{ rows }`). */
async function rows(database: Database, query: ReturnType<typeof sql>): Promise<unknown[]> {
  return ((await database.db.execute(query)) as unknown as { rows: unknown[] }).rows;
}

/** What a start left beside the database: unfinished first starts. */
const leftovers = (parent: string) => readdirSync(parent).filter((n) => n.includes(".init-"));

// Each start is a WebAssembly PostgreSQL: seconds on a loaded machine.
describe("the embedded database's first start", { timeout: 180_000 }, () => {
  it("makes the database from the shipped template, and the next start finds what the first wrote", async () => {
    const { parent, dataDir } = dataDirIn();
    const first = await openDatabase({ dataDir });
    await first.db.execute(sql`create table kept (note text)`);
    await first.db.execute(sql`insert into kept values ('written at the first start')`);
    await first.close();
    expect(leftovers(parent)).toEqual([]);

    const second = await openDatabase({ dataDir });
    expect(await rows(second, sql`select note from kept`)).toEqual([
      { note: "written at the first start" },
    ]);
    await second.close();
  });

  it("leaves nothing under the database's name when it is killed half-way; the next start makes it whole", async () => {
    const { parent, dataDir } = dataDirIn();
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `await (await import(${JSON.stringify(CLIENT)})).openDatabase({ dataDir: ${JSON.stringify(dataDir)} });`,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise((done) => child.once("exit", done));
    // Killed the moment its work folder appears, while the template is being unpacked.
    const watcher = watch(parent, () => child.kill("SIGKILL"));
    await exited;
    watcher.close();
    expect(leftovers(parent)).toEqual([`pglite.init-${child.pid}`]);
    expect(existsSync(dataDir)).toBe(false);

    const database = await openDatabase({ dataDir });
    expect(await rows(database, sql`select count(*)::int as n from visits`)).toEqual([{ n: 0 }]);
    await database.close();
    expect(leftovers(parent)).toEqual([]);
  });

  it("takes over a folder left with nothing but a dead process's lock", async () => {
    const { dataDir } = dataDirIn();
    mkdirSync(dataDir);
    // A pid no process has (above the kernel's pid_max).
    writeFileSync(path.join(dataDir, "keyway.lock"), "4194305");
    const database = await openDatabase({ dataDir });
    expect(existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);
    await database.close();
  });

  it("refuses a folder under the database's name that holds other files, and leaves them", async () => {
    const { dataDir } = dataDirIn();
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, "notes.txt"), "not a database");
    const opening = openDatabase({ dataDir });
    await expect(opening).rejects.toThrow(DataDirNotDatabaseError);
    await expect(opening).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(dataDir)).toEqual(["notes.txt"]);
    expect(readFileSync(path.join(dataDir, "notes.txt"), "utf8")).toBe("not a database");
  });

  it("ships a template of the installed PGlite's PostgreSQL (regenerate it with db/template.ts after an upgrade)", async () => {
    const { dataDir } = dataDirIn();
    const control = `select pg_control_version, catalog_version_no from pg_control_system()`;
    const fromTemplate = await openDatabase({ dataDir });
    const shipped = await rows(fromTemplate, sql.raw(control));
    await fromTemplate.close();
    // PGlite's own initdb, in memory.
    const fresh = new PGlite();
    const installed = (await fresh.query(control)).rows;
    await fresh.close();
    expect(shipped).toEqual(installed);
  });
});
