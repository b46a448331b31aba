import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alarms } from "../modules/alarms/schema.ts";
import { devices } from "../modules/devices/schema.ts";
import type { Database } from "./client.ts";
import { createTestDatabase } from "./testing.ts";
import { anyOf, insertUnnest } from "./unnest.ts";

let database: Database;
let deviceId: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const [device] = await database.db
    .insert(devices)
    .values({ code: "KW-UNNEST-1", secretHash: "x", passwordHash: "x", createdAt: new Date() })
    .returning({ id: devices.id });
  deviceId = device.id;
});

afterAll(() => database.close());

const alarm = (uid: string, content: string) => ({
  deviceId,
  uid,
  type: "threshold",
  level: 3,
  content,
  time: new Date("2026-11-26T08:00:00.123Z"),
  createdAt: new Date("2026-11-26T08:00:01Z"),
});

describe("insertUnnest", () => {
  it("stores every row as drizzle would, defaults for the columns not given, and returns them mapped", async () => {
    const hostile = 'comma, "quote", {brace}, back\\slash, 报警, NULL';
    const returned = await insertUnnest(database.db, alarms, [
      alarm("a1", "pressure high"),
      alarm("a2", hostile),
    ]);
    expect(returned.map((r) => [r.uid, r.content])).toEqual([
      ["a1", "pressure high"],
      ["a2", hostile],
    ]);
    expect(returned[0].time).toEqual(new Date("2026-11-26T08:00:00.123Z"));
    expect(returned[0].level).toBe(3);
    expect(returned[0].clearedAt).toBeNull();
    const stored = await database.db
      .select()
      .from(alarms)
      .where(eq(alarms.deviceId, deviceId))
      .orderBy(asc(alarms.id));
    // What a read gives back is what the insert returned, defaults included.
    expect(stored).toEqual(returned);
    expect(stored.map((r) => [r.variable, r.timeZone])).toEqual([
      ["", "UTC"],
      ["", "UTC"],
    ]);
  });

  it("skips rows that conflict when asked, returning only the new ones", async () => {
    const returned = await insertUnnest(
      database.db,
      alarms,
      [alarm("a1", "again"), alarm("a3", "new")],
      { onConflictDoNothing: true },
    );
    expect(returned.map((r) => r.uid)).toEqual(["a3"]);
    const [first] = await database.db.select().from(alarms).where(eq(alarms.uid, "a1"));
    expect(first.content).toBe("pressure high");
  });

  it("gives a row lacking a column others give that column's default, and refuses one with none", async () => {
    const returned = await insertUnnest(database.db, alarms, [
      alarm("a4", "no variable"),
      { ...alarm("a5", "with one"), variable: "P1", timeZone: "Asia/Shanghai" },
    ]);
    expect(returned.map((r) => [r.uid, r.variable, r.timeZone])).toEqual([
      ["a4", "", "UTC"],
      ["a5", "P1", "Asia/Shanghai"],
    ]);
    const { content: _missing, ...partial } = alarm("a9", "");
    await expect(
      insertUnnest(database.db, alarms, [alarm("a8", "x"), partial as ReturnType<typeof alarm>]),
    ).rejects.toThrow(/lacks content/);
    expect(await database.db.select().from(alarms).where(eq(alarms.uid, "a8"))).toEqual([]);
  });

  it("stores the rows and hands back none when told nothing is wanted back", async () => {
    const returned = await insertUnnest(
      database.db,
      alarms,
      [alarm("q1", "quiet one"), alarm("q2", "quiet two")],
      { returning: false },
    );
    expect(returned).toEqual([]);
    const stored = await database.db
      .select({ uid: alarms.uid, content: alarms.content })
      .from(alarms)
      .where(eq(alarms.deviceId, deviceId))
      .orderBy(asc(alarms.uid));
    expect(stored.filter((r) => r.uid.startsWith("q"))).toEqual([
      { uid: "q1", content: "quiet one" },
      { uid: "q2", content: "quiet two" },
    ]);
  });

  it("finds exactly the listed rows by one array parameter, and none for an empty list", async () => {
    const rows = await insertUnnest(database.db, alarms, [
      alarm("any1", "one"),
      alarm("any2", "two"),
      alarm("any3", "three"),
    ]);
    const ids = [rows[0].id, rows[2].id];
    const found = await database.db
      .select({ uid: alarms.uid })
      .from(alarms)
      .where(anyOf(alarms.id, ids))
      .orderBy(asc(alarms.uid));
    expect(found.map((r) => r.uid)).toEqual(["any1", "any3"]);
    const none = await database.db.select().from(alarms).where(anyOf(alarms.id, []));
    expect(none).toEqual([]);
  });

  it("refuses a conflict when not asked to skip it", async () => {
    await expect(insertUnnest(database.db, alarms, [alarm("a1", "twice")])).rejects.toThrow();
  });
});
