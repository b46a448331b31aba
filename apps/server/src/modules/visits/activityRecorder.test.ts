import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { untilValue } from "../../testing/until.ts";
import { activityPath, createActivityRecorder } from "./activity.ts";
import { csvCell } from "./activityCsv.ts";
import type { HttpActivity } from "./activityTypes.ts";
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
    recorder.http(entry("/batch/2"));
    await new Promise((r) => setTimeout(r, 200));
    expect(await rowsAt("/batch")).toHaveLength(0);
    recorder.http(entry("/batch/3"));
    await untilValue(async () => ((await rowsAt("/batch/3")).length === 1 ? true : undefined));
    expect(await rowsAt("/batch")).toHaveLength(1);
    recorder.http(entry("/on-close"));
    expect(recorder.pending).toBe(1);
    await recorder.close();
    expect(await rowsAt("/on-close")).toHaveLength(1);
  });

  it("joins a batch's identical requests into one row; a different one, or a later one, stands alone", async () => {
    const recorder = batchRecorder(1000);
    const second = newVisitId();
    await h.db.insert(visits).values({
      id: second,
      userId: null,
      terminalId: 0,
      deviceId: machineID,
      target: "127.0.0.1:8000",
      createdAt: h.clock.now(),
      urlExpiresAt: h.clock.now(),
    });
    const t0 = h.clock.now().getTime();
    const poll = (i: number, change: Partial<HttpActivity> = {}): HttpActivity => ({
      ...entry("/poll"),
      atMs: t0 + i,
      endedAtMs: t0 + i + 1,
      bytesIn: 100,
      bytesOut: 10,
      ...change,
    });
    // A hostile visitor hides a write among 300 polls of the same page: it stays a row of its own.
    recorder.http(poll(5, { path: "/poll?since=5" }));
    for (let i = 1; i <= 150; i++) recorder.http(poll(10 + i));
    recorder.http(poll(200, { method: "POST", bytesOut: 4000 }));
    recorder.http(poll(201, { status: 403 }));
    recorder.http(poll(202, { viewOnly: true }));
    recorder.http(poll(203, { visitId: second }));
    // Finished out of order: it arrived first, so the row starts with it.
    recorder.http(poll(1, { endedAtMs: t0 + 400 }));
    for (let i = 1; i <= 148; i++) recorder.http(poll(210 + i, { method: "get" }));
    expect(recorder.pending).toBe(5);
    await recorder.flush();
    recorder.http(poll(500));
    await recorder.close();

    const mine = (await rowsAt("/poll")).sort((a, b) => a.id - b.id);
    const polls = mine.filter((r) => r.method === "GET" && r.status === 200 && !r.viewOnly);
    expect(polls.map((r) => r.requests)).toEqual([300, 1]);
    expect(polls[0]).toMatchObject({ bytesIn: 300 * 100, bytesOut: 300 * 10 });
    expect(polls[0].at.getTime()).toBe(t0 + 1);
    expect(polls[0].endedAt?.getTime()).toBe(t0 + 400);
    expect(polls[1].at.getTime()).toBe(t0 + 500);
    expect(mine.find((r) => r.method === "POST")).toMatchObject({ requests: 1, bytesOut: 4000 });
    expect(mine.find((r) => r.status === 403)).toMatchObject({ requests: 1 });
    expect(mine.find((r) => r.viewOnly)).toMatchObject({ requests: 1, status: 200 });
    const theirs = await h.db.select().from(visitActivity).where(eq(visitActivity.visitId, second));
    expect(theirs).toMatchObject([{ path: "/poll", requests: 1 }]);
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
