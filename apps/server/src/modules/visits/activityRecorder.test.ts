import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { untilValue } from "../../testing/until.ts";
import { activityPath, createActivityRecorder } from "./activity.ts";
import { csvCell } from "./activityCsv.ts";
import { newVisitId } from "./issue.ts";
import { visitActivity, visits } from "./schema.ts";

/**
 * The activity recorder on a real database (issue 20): batches written when full and on
 * close, screen sessions completed at close, and what is never kept (queries, visit secrets,
 * formulas in the CSV).
 */

let h: Harness;
let visitId: string;
let machineID: number;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const [device] = await h.provision(operator, 1);
  const owner = await h.person("Owner");
  machineID = (await h.addDevice(owner.token, device, "Press line")).id;
  // A visit as the issuer writes it (the recorder only needs its row).
  visitId = newVisitId();
  await h.db.insert(visits).values({
    id: visitId,
    userId: owner.userId,
    terminalId: 0,
    deviceId: machineID,
    target: "127.0.0.1:8000",
    createdAt: h.clock.now(),
    urlExpiresAt: h.clock.now(),
    startedAt: h.clock.now(),
  });
});
afterAll(() => h?.close());

describe("the activity recorder", () => {
  const rowsAt = (path: string) =>
    h.db
      .select()
      .from(visitActivity)
      .where(and(eq(visitActivity.visitId, visitId), eq(visitActivity.path, path)));
  const entry = (path: string) => ({
    visitId,
    deviceId: machineID,
    method: "GET",
    path,
    status: 200,
    bytesIn: 1,
    bytesOut: 1,
    viewOnly: false,
  });

  /** A recorder that writes only when `maxRows` wait, or on close. */
  const batchRecorder = (maxRows: number) =>
    createActivityRecorder({ db: h.db, clock: h.clock, log: h.app.log, flushMs: 600_000, maxRows });

  it("writes a batch when it is full, and the rest on close", async () => {
    const recorder = batchRecorder(3);
    recorder.http(entry("/batch"));
    recorder.http(entry("/batch"));
    await new Promise((r) => setTimeout(r, 200));
    expect(await rowsAt("/batch")).toHaveLength(0);
    recorder.http(entry("/batch"));
    await untilValue(async () => ((await rowsAt("/batch")).length === 3 ? true : undefined));
    recorder.http(entry("/on-close"));
    expect(recorder.pending).toBe(1);
    await recorder.close();
    expect(await rowsAt("/on-close")).toHaveLength(1);
  });

  it("drops the rows of a visit deleted meanwhile and writes the rest of the batch", async () => {
    const recorder = batchRecorder(10);
    recorder.http(entry("/kept-before"));
    recorder.http({ ...entry("/of-a-gone-visit"), visitId: newVisitId() });
    recorder.http(entry("/kept-after"));
    await recorder.close();
    expect(await rowsAt("/kept-before")).toHaveLength(1);
    expect(await rowsAt("/kept-after")).toHaveLength(1);
    const gone = await h.db
      .select()
      .from(visitActivity)
      .where(eq(visitActivity.path, "/of-a-gone-visit"));
    expect(gone).toHaveLength(0);
    expect(recorder.pending).toBe(0);
  });

  it("completes a screen session still open when the server closes", async () => {
    const recorder = createActivityRecorder({ db: h.db, clock: h.clock, log: h.app.log });
    recorder.screenOpen({
      visitId,
      deviceId: machineID,
      viewOnly: false,
      counters: () => ({ bytesIn: 4096, bytesOut: 64, inputEvents: 9, droppedEvents: 0 }),
    });
    await recorder.close();
    const [row] = await h.db
      .select()
      .from(visitActivity)
      .where(and(eq(visitActivity.visitId, visitId), eq(visitActivity.inputEvents, 9)));
    expect(row).toMatchObject({ kind: "screen", bytesIn: 4096, viewOnly: false });
    expect(row.endedAt).not.toBeNull();
  });

  it("keeps paths without queries, fragments, visit secrets or control characters", () => {
    expect(activityPath("/api/login?user=a&password=b")).toBe("/api/login");
    expect(activityPath("/page#token=x")).toBe("/page");
    expect(activityPath(`/visit/${"a".repeat(26)}.s3cr3t/hmi/index.html`)).toBe("/hmi/index.html");
    expect(activityPath("/a\r\nSet-Cookie: x")).toBe("/aSet-Cookie: x");
    expect(activityPath(`/${"x".repeat(2000)}`)).toHaveLength(512);
  });

  it("never lets a spreadsheet read a cell as a formula", () => {
    for (const hostile of ["=1+2", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"])
      expect(csvCell(hostile).replace(/^"/, "").startsWith("'")).toBe(true);
    expect(csvCell('say "hi", twice')).toBe('"say ""hi"", twice"');
    expect(csvCell("/api/alarms")).toBe("/api/alarms");
    expect(csvCell(201)).toBe("201");
  });
});
