import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { ManualClock } from "../../infra/clock.ts";
import { createSenders } from "../../infra/senders.ts";
import { createHarness } from "../../testing/harness.ts";
import { startSmtpServer } from "../../testing/smtp.ts";
import { notifications } from "./schema.ts";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe("e-mail delivery", () => {
  it("mails the registration code through SMTP with the brand's subject", async () => {
    const smtp = await startSmtpServer();
    closers.push(smtp.close);
    const h = await createHarness({
      config: { SMTP_URL: smtp.url },
      senders: createSenders({ smtpUrl: smtp.url, mailFrom: "Keyway <no-reply@keyway.local>" }),
    });
    closers.push(h.close);
    const res = await h.app.inject({
      method: "POST",
      url: "/api/user/v1/register?lang=en",
      headers: { host: "cloud.vantage-iot.com" },
      payload: { email: "mail@example.com", password: "secret123", name: "Mail" },
    });
    expect(res.json().hwcode).toBe(0);
    const mail = await smtp.waitFor("mail@example.com");
    expect(mail.subject).toBe("[Vantage Cloud] Your verification code");
    const code = mail.text.match(/\b(\d{6})\b/)?.[1];
    expect(code).toBeDefined();
    const act = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "mail@example.com", SMSVerificationCode: code! },
    });
    expect(act.body.hwcode).toBe(0);
    const [row] = await h.db
      .select()
      .from(notifications)
      .where(eq(notifications.recipient, "mail@example.com"));
    expect(row.status).toBe("sent");
  });

  it("keeps a mail while the SMTP server is down and delivers it after a restart", async () => {
    // A port that nothing listens on yet.
    const probe = await startSmtpServer();
    const port = probe.port;
    await probe.close();
    const smtpUrl = `smtp://127.0.0.1:${port}`;
    const database = await createTestDatabase();
    closers.push(database.close);
    const clock = new ManualClock(new Date("2026-11-21T08:00:00Z"));

    // One process of the platform on the shared database, sending to smtpUrl.
    const boot = () =>
      buildApp({
        config: testConfig({ SMTP_URL: smtpUrl, WEB_DIST: "/nonexistent" }),
        db: database.db,
        clock,
        senders: createSenders({ smtpUrl, mailFrom: "kw@keyway.local" }),
        logger: false,
      });
    const first = await boot();
    const res = await first.inject({
      method: "POST",
      url: "/api/user/v1/register",
      payload: { email: "later@example.com", password: "secret123", name: "Later" },
    });
    expect(res.json().hwcode).toBe(0);
    await first.services.notifier.deliverDue();
    const [failed] = await database.db.select().from(notifications);
    expect(failed).toMatchObject({ status: "pending", attempts: 1 });
    expect(failed.lastError).toBeTruthy();
    await first.close(); // the process "restarts"

    const smtp = await startSmtpServer(port);
    closers.push(smtp.close);
    const second = await boot();
    closers.push(() => second.close());
    clock.advance(5 * 60_000); // past the back-off
    await second.services.notifier.deliverDue();
    const mail = await smtp.waitFor("later@example.com");
    expect(mail.text).toMatch(/\b\d{6}\b/);
    const [sent] = await database.db.select().from(notifications);
    expect(sent.status).toBe("sent");
  });
});
