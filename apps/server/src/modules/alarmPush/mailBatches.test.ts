import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { ManualClock } from "../../infra/clock.ts";
import { createSenders } from "../../infra/senders.ts";
import { outboxSmsProvider } from "../../infra/sms.ts";
import { startCountingSmtpServer } from "../../testing/smtp.ts";
import { users } from "../accounts/schema.ts";
import { alarms } from "../alarms/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { alarmSends } from "./schema.ts";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
});

let db: Db;
const clock = new ManualClock(new Date("2026-11-21T08:00:00Z"));
beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  closers.push(database.close);
});

/**
 * A real SMTP server counting the alarm e-mails it accepted (by the alarm's text) and the
 * connections they came over; `dropAt` cuts the connection of the n-th message (once).
 */
async function mailServer(opts: { dropAt?: number } = {}) {
  const accepted = new Map<string, number>();
  const server = await startCountingSmtpServer({
    dropAt: opts.dropAt,
    onMessage(text) {
      const alarm = /Mail batch (\d+)/.exec(text)?.[1] ?? "?";
      accepted.set(alarm, (accepted.get(alarm) ?? 0) + 1);
    },
  });
  closers.push(server.close);
  return { url: server.url, accepted, connections: server.connections };
}

/** An owner taking e-mail, a device, and `count` stored alarms told to the notifier at once. */
async function raiseMany(smtpUrl: string, count: number, tag: string) {
  const app = await boot(smtpUrl);
  const [owner] = await db
    .insert(users)
    .values({
      name: `Owner ${tag}`,
      email: `${tag}@example.com`,
      passwordHash: "x",
      language: "en",
      activatedAt: clock.now(),
    })
    .returning();
  const [device] = await db
    .insert(devices)
    .values({ code: `KWMAIL${tag}`, secretHash: "x", passwordHash: "x", createdAt: clock.now() })
    .returning();
  await db.insert(deviceLinks).values({
    deviceId: device.id,
    userId: owner.id,
    role: "akey",
    name: "Mixer",
    createdAt: clock.now(),
  });
  await app.services.alarmPush.setUserConfig(owner.id, { eid: 0, userEmailFlag: true });
  const raised = await db
    .insert(alarms)
    .values(
      Array.from({ length: count }, (_, i) => ({
        deviceId: device.id,
        uid: `${tag}-${i}`,
        type: "alarm",
        level: 2,
        content: `Mail batch ${i}`,
        time: clock.now(),
        createdAt: clock.now(),
      })),
    )
    .returning();
  // As the gateway does: each stored alarm is told, the jobs send them.
  for (const alarm of raised) app.services.alarmNotify.alarmStored(alarm);
  return { app, ids: raised.map((a) => a.id) };
}

/** One process of the platform, mailing through `smtpUrl`. */
async function boot(smtpUrl: string) {
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent", SMTP_URL: smtpUrl }),
    db,
    clock,
    logger: false,
    sweepEveryMs: 0,
    smsProvider: outboxSmsProvider,
    senders: createSenders({ smtpUrl, mailFrom: "Keyway <no-reply@keyway.local>" }),
    alarmJobs: { pollSeconds: 0.5 },
  });
  await app.ready();
  closers.push(() => app.close());
  return app;
}

const statusesOf = async (alarmIds: number[]) =>
  (await db.select().from(alarmSends).where(inArray(alarmSends.alarmId, alarmIds))).map(
    (s) => s.status,
  );

describe("alarm e-mails in batches", () => {
  it("50 alarms give 50 e-mails, each once, over a few SMTP connections", async () => {
    const smtp = await mailServer();
    const { app, ids } = await raiseMany(smtp.url, 50, "batch");
    await expect.poll(() => smtp.accepted.size, { timeout: 20_000 }).toBe(50);
    await expect
      .poll(async () => (await statusesOf(ids)).filter((s) => s === "sent").length, {
        timeout: 10_000,
      })
      .toBe(50);
    expect([...smtp.accepted.values()].every((n) => n === 1)).toBe(true);
    expect(smtp.connections()).toBeLessThanOrEqual(4);
    await app.close(); // its worker would take the next tests' jobs
  });

  it("a server dropping the connection mid-batch still gets each e-mail exactly once", async () => {
    const smtp = await mailServer({ dropAt: 10 });
    const { app, ids } = await raiseMany(smtp.url, 50, "drop");
    // The e-mails cut off go back to pending and are sent by the job's retry.
    await expect
      .poll(async () => (await statusesOf(ids)).filter((s) => s === "sent").length, {
        timeout: 30_000,
      })
      .toBe(50);
    expect(smtp.accepted.size).toBe(50);
    expect([...smtp.accepted.values()].every((n) => n === 1)).toBe(true);
    await app.close();
  });
});
