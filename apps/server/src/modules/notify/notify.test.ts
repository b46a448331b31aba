import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.ts";
import { ConfigError, loadConfig, testConfig } from "../../config.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { ManualClock } from "../../infra/clock.ts";
import { createSenders } from "../../infra/senders.ts";
import { aliyunSignature } from "../../infra/sms.ts";
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
    // Marked sent once the SMTP server has answered, which may come after the mail is read.
    await expect
      .poll(async () => {
        const [row] = await h.db
          .select()
          .from(notifications)
          .where(eq(notifications.recipient, "mail@example.com"));
        return row.status;
      })
      .toBe("sent");
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
        // The test sends by hand, after moving the clock past the back-off.
        notifyEveryMs: 0,
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

describe("when a queued mail goes out", () => {
  it("sends a mail queued in a transaction once it commits, though the commit comes late", async () => {
    const smtp = await startSmtpServer();
    closers.push(smtp.close);
    // Only the enqueue's kick sends here (no look every second).
    const h = await createHarness({
      config: { SMTP_URL: smtp.url },
      senders: createSenders({ smtpUrl: smtp.url, mailFrom: "kw@keyway.local" }),
    });
    closers.push(h.close);
    const to = "late-commit@example.com";
    await h.db.transaction(async (tx) => {
      await h.app.services.notifier.enqueue({ channel: "email", recipient: to, body: "hi" }, tx);
      // The caller still works after the enqueue: a kick that looked now would find nothing.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(smtp.received.filter((m) => m.to === to)).toHaveLength(0);
    });
    const mail = await smtp.waitFor(to);
    expect(mail.text.trim()).toBe("hi");
  });

  it("sends, on its own, a due mail that nothing kicked (left by a stopped process)", async () => {
    const smtp = await startSmtpServer();
    closers.push(smtp.close);
    const database = await createTestDatabase();
    closers.push(database.close);
    const to = "left@example.com";
    const now = new Date();
    await database.db.insert(notifications).values({
      channel: "email",
      recipient: to,
      subject: "left",
      body: "left behind",
      status: "pending",
      nextAttemptAt: now,
      createdAt: now,
    });
    // The platform as main.ts and the browser tests run it: no option for the notifier.
    const app = await buildApp({
      config: testConfig({ SMTP_URL: smtp.url, WEB_DIST: "/nonexistent" }),
      db: database.db,
      senders: createSenders({ smtpUrl: smtp.url, mailFrom: "kw@keyway.local" }),
      logger: false,
      sweepEveryMs: 0,
      reporting: { pollMs: 0 },
    });
    closers.push(() => app.close());
    await app.ready();
    const mail = await smtp.waitFor(to);
    expect(mail.text.trim()).toBe("left behind");
  });
});

/**
 * A local stand-in for Aliyun SMS (dysmsapi SendSms): it recomputes the signature, refuses a
 * template or number it does not know as Aliyun does, and keeps what it sent.
 */
async function startAliyunStandIn(secret: string) {
  const sent: Record<string, string>[] = [];
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => resolve(body));
    });
  const server = createServer(async (req, res) => {
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const reply = (json: unknown) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(json));
    };
    if (
      req.method !== "POST" ||
      params.Signature !== aliyunSignature("POST", params, secret) ||
      params.SignatureMethod !== "HMAC-SHA1" ||
      !params.SignatureNonce
    )
      return reply({
        Code: "SignatureDoesNotMatch",
        Message: "Specified signature is not matched",
      });
    if (params.Action !== "SendSms") return reply({ Code: "isv.NOT_SUPPORTED", Message: "no" });
    if (params.TemplateCode !== "SMS_CODE" && params.TemplateCode !== "SMS_ALARM")
      return reply({ Code: "isv.SMS_TEMPLATE_ILLEGAL", Message: "template not found" });
    if (!/^\d{6,15}$/.test(params.PhoneNumbers) || params.PhoneNumbers.startsWith("8600"))
      return reply({ Code: "isv.MOBILE_NUMBER_ILLEGAL", Message: "illegal number" });
    sent.push(params);
    return reply({ Code: "OK", Message: "OK", BizId: `biz-${sent.length}`, RequestId: "r" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

const ALIYUN = {
  SMS_PROVIDER: "aliyun",
  ALIYUN_SMS_ACCESS_KEY_ID: "LTAI-test",
  ALIYUN_SMS_ACCESS_KEY_SECRET: "s3cret",
  ALIYUN_SMS_SIGN_NAME: "Keyway",
  ALIYUN_SMS_TEMPLATE_CODE: "SMS_ALARM",
  ALIYUN_SMS_CODE_TEMPLATE_CODE: "SMS_CODE",
} as const;

describe("SMS codes through SMS_PROVIDER", () => {
  it("sends registration codes through Aliyun with the code template, and they activate the account", async () => {
    const standIn = await startAliyunStandIn("s3cret");
    const h = await createHarness({ config: { ...ALIYUN, ALIYUN_SMS_ENDPOINT: standIn.url } });
    closers.push(h.close);
    const reg = await h.call("POST", "/api/user/v1/register", {
      form: { phone: "13800138000", countryCode: "86", password: "secret123", name: "Phone" },
    });
    expect(reg.body.hwcode).toBe(0);
    await h.app.services.notifier.deliverDue();
    expect(standIn.sent).toHaveLength(1);
    const request = standIn.sent[0];
    expect(request).toMatchObject({
      Action: "SendSms",
      AccessKeyId: "LTAI-test",
      PhoneNumbers: "13800138000",
      SignName: "Keyway",
      TemplateCode: "SMS_CODE",
    });
    const { code } = JSON.parse(request.TemplateParam) as { code: string };
    expect(code).toMatch(/^\d{6}$/);
    const [row] = await h.db
      .select()
      .from(notifications)
      .where(eq(notifications.recipient, "8613800138000"));
    expect(row.status).toBe("sent");

    const act = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "13800138000", SMSVerificationCode: code },
    });
    expect(act.body).toMatchObject({ hwcode: 0, hwdata: 1 });
    await h.login("13800138000", "secret123");

    // A number outside mainland China goes with its country code; a refusal is not retried.
    const hk = await h.call("POST", "/api/user/v1/register", {
      form: { phone: "51234567", countryCode: "852", password: "secret123", name: "HK" },
    });
    expect(hk.body.hwcode).toBe(0);
    await h.app.services.notifier.deliverDue();
    expect(standIn.sent.map((p) => p.PhoneNumbers)).toEqual(["13800138000", "85251234567"]);
  });

  it("marks a code the provider refuses as failed at once instead of retrying it", async () => {
    const standIn = await startAliyunStandIn("s3cret");
    const h = await createHarness({
      config: {
        ...ALIYUN,
        ALIYUN_SMS_CODE_TEMPLATE_CODE: "SMS_UNKNOWN",
        ALIYUN_SMS_ENDPOINT: standIn.url,
      },
    });
    closers.push(h.close);
    await h.call("POST", "/api/user/v1/register", {
      form: { phone: "13900139000", password: "secret123", name: "Phone" },
    });
    await h.app.services.notifier.deliverDue();
    const [row] = await h.db
      .select()
      .from(notifications)
      .where(eq(notifications.recipient, "8613900139000"));
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.lastError).toContain("isv.SMS_TEMPLATE_ILLEGAL");
    expect(standIn.sent).toHaveLength(0);
  });

  it("needs the code template when SMS_PROVIDER=aliyun", () => {
    const { ALIYUN_SMS_CODE_TEMPLATE_CODE: _, ...withoutCodeTemplate } = ALIYUN;
    expect(() => loadConfig({ ...withoutCodeTemplate, SECRET_KEY: "0".repeat(64) })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ ...withoutCodeTemplate, SECRET_KEY: "0".repeat(64) })).toThrow(
      /ALIYUN_SMS_CODE_TEMPLATE_CODE: required when SMS_PROVIDER=aliyun/,
    );
  });

  it("keeps codes in the outbox by default, printed in the log", async () => {
    const lines: string[] = [];
    const database = await createTestDatabase();
    closers.push(database.close);
    const app = await buildApp({
      config: testConfig({ WEB_DIST: "/nonexistent", LOG_LEVEL: "info" }),
      db: database.db,
      clock: new ManualClock(new Date("2026-11-21T08:00:00Z")),
      // pino writes its JSON lines to this stream: what a newcomer sees in the terminal.
      logger: { level: "info", stream: { write: (line: string) => void lines.push(line) } },
      sweepEveryMs: 0,
      reporting: { pollMs: 0 },
    });
    closers.push(() => app.close());
    await app.ready();
    const res = await app.inject({
      method: "POST",
      url: "/api/user/v1/register",
      payload: { phone: "13700137000", password: "secret123", name: "Log" },
    });
    expect(res.json().hwcode).toBe(0);
    const outbox = lines.map((l) => JSON.parse(l)).find((l) => l.outbox);
    expect(outbox.msg).toMatch(/^outbox: sms to 8613700137000: 【.*】.*\b\d{6}\b/);
    const [row] = await database.db.select().from(notifications);
    expect(row.status).toBe("outbox");
    expect(outbox.msg).toContain(row.body);
  });
});
