import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { count, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { testConfig } from "../../config.ts";
import { openDatabase } from "../../db/client.ts";
import { encryptSecret, hashToken } from "../../infra/crypto.ts";
import { type ReceivedPoint, startReportReceiver } from "../../testing/reportReceiver.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import { projectMachines, projects } from "../projects/schema.ts";
import { REPORT_BATCH } from "./delivery.ts";
import { reportDeliveries, reportPoints } from "./schema.ts";

/**
 * Issue 8: "a server restart mid-backlog loses nothing and duplicates nothing the receiver
 * has acknowledged" — with the platform as a real process killed with SIGKILL (no graceful
 * stop, no commit of the batch in flight) right after the receiver answered a batch, then
 * started again on the same embedded database. At most that one batch, whose answer may
 * not have reached the platform before it died, comes again: the same seqs under the same
 * X-Keyway-Batch, so the receiver can drop it.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), "kw-report-kill-"));
const children: ChildProcess[] = [];
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const close of closers) await close();
  rmSync(dataDir, { recursive: true, force: true });
});

const SECRET_KEY = testConfig().SECRET_KEY;
const BATCHES = 5;
const TOTAL = REPORT_BATCH * BATCHES;

/** A backlog of TOTAL points of 4 machines in one HTTPS-reporting project, in the database. */
async function seedBacklog(server: string, key: string) {
  const database = await openDatabase({ dataDir });
  const { db } = database;
  const [owner] = await db
    .insert(users)
    .values({
      name: "Owner",
      email: "owner@plant.com",
      passwordHash: "unused",
      enableProject: true,
    })
    .returning({ id: users.id });
  const now = new Date();
  const machines = await db
    .insert(devices)
    .values(
      [0, 1, 2, 3].map((i) => ({
        code: `KILLTEST${i}`,
        secretHash: hashToken("unused"),
        passwordHash: "unused",
        createdAt: now,
      })),
    )
    .returning({ id: devices.id });
  const [project] = await db
    .insert(projects)
    .values({
      name: "Kill test",
      ownerId: owner.id,
      reportState: true,
      server,
      secretKeySealed: encryptSecret(SECRET_KEY, key),
      reportCount: machines.length * 100_000,
      createdAt: now,
    })
    .returning({ id: projects.id });
  await db
    .insert(projectMachines)
    .values(machines.map((m) => ({ projectId: project.id, deviceId: m.id, createdAt: now })));
  for (let from = 0; from < TOTAL; from += 1000)
    await db.insert(reportPoints).values(
      Array.from({ length: Math.min(1000, TOTAL - from) }, (_, j) => ({
        projectId: project.id,
        deviceId: machines[(from + j) % machines.length].id,
        time: new Date(now.getTime() + from + j),
        values: { n: from + j },
        createdAt: now,
      })),
    );
  await db.insert(reportDeliveries).values({ projectId: project.id, backlog: TOTAL });
  await database.close();
  return project.id;
}

function startPlatform(ca: string): Promise<ChildProcess> {
  const child = fork(
    path.join(import.meta.dirname, "serverProcess.ts"),
    [JSON.stringify({ dataDir, ca, leaseMs: 1_500 })],
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`platform exited (${code}) before ready`)));
  });
}
const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve(child.signalCode ?? child.exitCode);
    else child.once("exit", (code, signal) => resolve(signal ?? code));
  });

describe("a platform process killed mid-backlog", () => {
  it("loses nothing and sends again at most the one batch whose answer it may not have read", async () => {
    const key = randomBytes(24).toString("base64url");
    let platform: ChildProcess | undefined;
    const answeredBeforeKill: string[] = [];
    const receiver = await startReportReceiver({
      key: () => key,
      tls: true,
      // The third batch is answered, and the platform dies that very moment.
      onAnswered: (n, batchId) => {
        if (n <= 3) answeredBeforeKill.push(batchId);
        if (n === 3) platform?.kill("SIGKILL");
      },
    });
    closers.push(receiver.close);
    // Slow enough that the backlog is still there when the platform dies.
    receiver.state.delayMs = 50;
    const projectId = await seedBacklog(receiver.url, key);

    platform = await startPlatform(receiver.ca as string);
    expect(await exited(platform)).toBe("SIGKILL");
    expect(receiver.points.length).toBe(3 * REPORT_BATCH);
    expect(receiver.points.length).toBeLessThan(TOTAL);

    // Started again on the same database: once the dead process's hold runs out it goes on.
    receiver.state.delayMs = 0;
    platform = await startPlatform(receiver.ca as string);
    const deadline = Date.now() + 90_000;
    while (receiver.points.length < TOTAL && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    platform.kill("SIGTERM");
    expect(await exited(platform)).toBe(0);

    // Nothing lost, in order.
    expect(receiver.points.map((p: ReceivedPoint) => p.values.n)).toEqual([...Array(TOTAL).keys()]);
    expect(receiver.state.refused).toBe(0);
    // Nothing the platform had surely heard acknowledged came again: batches 1 and 2 (the
    // third was sent after their commit) never; the third at most once more, as itself.
    const sent = receiver.batchIds;
    const times = (id: string) => sent.filter((b) => b === id).length;
    expect(times(answeredBeforeKill[0])).toBe(1);
    expect(times(answeredBeforeKill[1])).toBe(1);
    expect(times(answeredBeforeKill[2])).toBeLessThanOrEqual(2);
    const resent = sent.filter((id, i) => sent.indexOf(id) !== i);
    expect(resent.every((id) => id === answeredBeforeKill[2])).toBe(true);
    expect(receiver.state.duplicates).toBe(resent.length * REPORT_BATCH);
    expect(new Set(sent).size).toBe(BATCHES);

    // The queue agrees: empty, every point counted once.
    const database = await openDatabase({ dataDir });
    closers.push(() => database.close());
    const [{ left }] = await database.db
      .select({ left: count() })
      .from(reportPoints)
      .where(eq(reportPoints.projectId, projectId));
    const [project] = await database.db.select().from(projects).where(eq(projects.id, projectId));
    const [state] = await database.db
      .select()
      .from(reportDeliveries)
      .where(eq(reportDeliveries.projectId, projectId));
    expect({ left, delivered: project.delivered, backlog: state.backlog }).toEqual({
      left: 0,
      delivered: TOTAL,
      backlog: 0,
    });
  }, 300_000);
});
