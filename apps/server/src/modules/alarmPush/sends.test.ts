import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HW } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { ManualClock } from "../../infra/clock.ts";
import { signedText } from "../../infra/crypto.ts";
import { createSenders } from "../../infra/senders.ts";
import { aliyunSignature, createAliyunSmsProvider, outboxSmsProvider } from "../../infra/sms.ts";
import { startSmtpServer } from "../../testing/smtp.ts";
import { users } from "../accounts/schema.ts";
import { alarms } from "../alarms/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers, enterprises } from "../enterprises/schema.ts";
import { notifications } from "../notify/schema.ts";
import { createChannels, WEBHOOK_REST_MS } from "./channels.ts";
import { SimulatedCrash } from "./delivery.ts";
import {
  type AlarmSend,
  alarmSends,
  entMsgConfigs,
  smsAccounts,
  userMsgConfigs,
} from "./schema.ts";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
});

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
const clock = new ManualClock(new Date("2026-11-21T08:00:00Z"));
let seq = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  closers.push(database.close);
});

type Boot = Parameters<typeof buildApp>[0];
/** One process of the platform on the shared database (its pg-boss worker polls every 0.5 s). */
async function boot(extra: Partial<Boot> = {}, config: Partial<Boot["config"]> = {}) {
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent", ...config }),
    db,
    clock,
    logger: false,
    sweepEveryMs: 0,
    ...extra,
    alarmJobs: { pollSeconds: 0.5, ...extra.alarmJobs },
  });
  await app.ready();
  return app;
}

async function user(opts: { phone?: string; email?: string; language?: string } = {}) {
  seq += 1;
  const [row] = await db
    .insert(users)
    .values({
      name: `User ${seq}`,
      phone: opts.phone ?? null,
      email: opts.email ?? null,
      passwordHash: "x",
      language: opts.language ?? "en",
      activatedAt: clock.now(),
    })
    .returning();
  return row;
}

async function device(name = "Mixer") {
  seq += 1;
  const [row] = await db
    .insert(devices)
    .values({
      code: `KWTEST${String(seq).padStart(6, "0")}`,
      secretHash: "x",
      passwordHash: "x",
      createdAt: clock.now(),
    })
    .returning();
  return { ...row, name };
}

async function link(
  deviceId: number,
  userId: number,
  role: "akey" | "bkey" | "user" = "akey",
  name = "Mixer",
) {
  await db.insert(deviceLinks).values({ deviceId, userId, role, name, createdAt: clock.now() });
}

async function stock(eid: number, userId: number, balance: number) {
  await db
    .insert(smsAccounts)
    .values({ eid, userId, balance, received: balance })
    .onConflictDoUpdate({ target: [smsAccounts.eid, smsAccounts.userId], set: { balance } });
}

async function balanceOf(eid: number, userId: number) {
  const [row] = await db
    .select()
    .from(smsAccounts)
    .where(and(eq(smsAccounts.eid, eid), eq(smsAccounts.userId, userId)));
  return row?.balance ?? 0;
}

async function raise(deviceId: number, content = "Pressure high") {
  seq += 1;
  const [row] = await db
    .insert(alarms)
    .values({
      deviceId,
      uid: `u${seq}`,
      type: "alarm",
      level: 2,
      content,
      time: clock.now(),
      createdAt: clock.now(),
    })
    .returning();
  return row;
}

async function sendsOf(alarmId: number) {
  return db.select().from(alarmSends).where(eq(alarmSends.alarmId, alarmId)).orderBy(alarmSends.id);
}

/** Dispatches an alarm and waits until none of its sends is pending or sending. */
async function settle(alarmId: number) {
  await expect
    .poll(
      async () =>
        (await sendsOf(alarmId)).filter((s) => s.status === "pending" || s.status === "sending")
          .length,
      {
        timeout: 20_000,
        interval: 200,
      },
    )
    .toBe(0);
  return sendsOf(alarmId);
}

describe("alarm SMS through pg-boss jobs, billed and capped", () => {
  let app: Awaited<ReturnType<typeof boot>>;
  beforeAll(async () => {
    app = await boot({ smsProvider: outboxSmsProvider });
  });
  // Each process is stopped before the next one's worker starts (they share the database).
  afterAll(() => app.close());

  it("bills 70 / 71 / 134 / 135-character SMS as 1 / 2 / 2 / 3 segments from the owner's stock", async () => {
    const owner = await user({ phone: "13800000001", language: "en" });
    const d = await device();
    await link(d.id, owner.id, "akey", "M");
    await stock(0, owner.id, 100);
    // The English SMS is "[Keyway Cloud] Alarm on M (major): <content> <time>": pad the
    // content so the whole text has the length wanted.
    const probe = (await app.services.alarmNotify.plan(await raise(d.id, "x")))[0].content;
    const overhead = [...probe].length - 1;
    const results: number[] = [];
    for (const total of [70, 71, 134, 135]) {
      const a = await raise(d.id, "y".repeat(total - overhead));
      await app.services.alarmNotify.dispatch(a.id);
      const [s] = await settle(a.id);
      expect([...s.content].length).toBe(total);
      expect(s.status).toBe("sent");
      results.push(s.segments);
    }
    expect(results).toEqual([1, 2, 2, 3]);
    expect(await balanceOf(0, owner.id)).toBe(100 - 8);
    // The default provider is the outbox the operator reads.
    const outbox = await db
      .select()
      .from(notifications)
      .where(eq(notifications.recipient, "+86 13800000001"));
    expect(outbox).toHaveLength(4);
    expect(outbox[0].status).toBe("outbox");
  });

  it("stops at the per-phone and per-device daily caps, and both reset the next day", async () => {
    const owner = await user({ phone: "13800000002" });
    const bkey = await user({ phone: "13800000003" });
    const d = await device();
    await link(d.id, owner.id, "akey");
    await link(d.id, bkey.id, "bkey");
    await stock(0, owner.id, 100);
    await stock(0, bkey.id, 100);
    // The owner: 2 SMS a phone a day; the Bkey: 3 a day for this device.
    await db.insert(userMsgConfigs).values([
      { userId: owner.id, eid: 0, userSmsDaily: 2, machineSmsDaily: 50, updatedAt: clock.now() },
      { userId: bkey.id, eid: 0, userSmsDaily: 50, machineSmsDaily: 3, updatedAt: clock.now() },
    ]);
    const statusOf = async (alarmId: number, userId: number) =>
      (await sendsOf(alarmId)).find((s) => s.userId === userId && s.channel === "sms");
    const day = async () => {
      const out: string[] = [];
      for (let i = 0; i < 4; i++) {
        const a = await raise(d.id, `Level ${i}`);
        await app.services.alarmNotify.dispatch(a.id);
        await settle(a.id);
        const o = await statusOf(a.id, owner.id);
        const b = await statusOf(a.id, bkey.id);
        out.push(`${o?.status}/${o?.reason}|${b?.status}/${b?.reason}`);
      }
      return out;
    };
    const phoneCap = HW.ALARM_SMS_DAILY_LIMIT.code;
    const deviceCap = HW.ALARM_SMS_DEVICE_DAILY_LIMIT.code;
    const expected = [
      "sent/|sent/",
      "sent/|sent/",
      `skipped/${phoneCap}|sent/`,
      `skipped/${phoneCap}|skipped/${deviceCap}`,
    ];
    expect(await day()).toEqual(expected);
    expect(await balanceOf(0, owner.id)).toBe(98);
    expect(await balanceOf(0, bkey.id)).toBe(97);
    clock.advance(24 * 60 * 60_000);
    expect(await day()).toEqual(expected);

    // The records say why, in the reader's language.
    const page = await app.services.alarmNotify.smsRecords(
      { eid: 0, userId: owner.id },
      { eid: 0, page: 1, pageSize: 10 },
      "en",
    );
    expect(page.total).toBe(8);
    expect(page.list[0]).toMatchObject({
      status: "skipped",
      reasonText: "SMS daily limit exceeded",
      segments: 0,
    });
  });

  it("an empty stock stops the SMS (skipped, not negative) while the e-mail still goes", async () => {
    const owner = await user({ phone: "13800000004", email: "poor@example.com" });
    const d = await device();
    await link(d.id, owner.id);
    const a = await raise(d.id);
    await app.services.alarmNotify.dispatch(a.id);
    const sends = await settle(a.id);
    expect(sends.map((s) => `${s.channel}:${s.status}:${s.reason}`).sort()).toEqual([
      "email:sent:",
      `sms:skipped:${HW.SMS_STOCK_NOT_ENOUGH.code}`,
    ]);
    expect(await balanceOf(0, owner.id)).toBe(0);
  });

  it("concurrent sends never take a stock below zero", async () => {
    // 30 members of an enterprise share... each their own allocation; here one pool: the
    // enterprise's contacts draw on it. 25 alarms at once against a pool of 10.
    const [ent] = await db
      .insert(enterprises)
      .values({ name: "Pool Inc", createdAt: clock.now() })
      .returning();
    const d = await device();
    await db.insert(enterpriseDevices).values({
      enterpriseId: ent.id,
      deviceId: d.id,
      type: 1,
      name: "Press",
      createdAt: clock.now(),
    });
    await db
      .insert(entMsgConfigs)
      .values({ eid: ent.id, smsDaily: 1000, smsMachineDaily: 1000, updatedAt: clock.now() });
    await app.services.alarmPush.addContact(await firstAdmin(ent.id), {
      eid: ent.id,
      kind: "phone",
      name: "Night shift",
      phone: "13800000005",
      countryCode: "86",
    });
    await stock(ent.id, 0, 10);
    const raised = await Promise.all(
      Array.from({ length: 25 }, (_, i) => raise(d.id, `Burst ${i}`)),
    );
    await Promise.all(raised.map((a) => app.services.alarmNotify.dispatch(a.id)));
    // Several deliveries at once on top of the worker's own.
    const ids = (await Promise.all(raised.map((a) => sendsOf(a.id)))).flat().map((s) => s.id);
    await Promise.all(
      ids.flatMap((id) => [
        app.services.alarmNotify.deliver(id),
        app.services.alarmNotify.deliver(id),
      ]),
    );
    const all = (await Promise.all(raised.map((a) => settle(a.id)))).flat();
    expect(all.filter((s) => s.status === "sent")).toHaveLength(10);
    expect(all.filter((s) => s.status === "skipped")).toHaveLength(15);
    expect(await balanceOf(ent.id, 0)).toBe(0);
  });

  it("a burst from several devices is dispatched together, each alarm to its own device's people, once", async () => {
    const ann = await user({ phone: "13800000031", email: "ann@example.com" });
    const bob = await user({ email: "bob@example.com" });
    const carl = await user({ email: "carl@example.com" });
    const [ent] = await db
      .insert(enterprises)
      .values({ name: "Burst Ltd", createdAt: clock.now() })
      .returning();
    await db
      .insert(enterpriseMembers)
      .values({ enterpriseId: ent.id, userId: carl.id, kind: "member", createdAt: clock.now() });
    const [mixer, press, oven] = [await device(), await device(), await device()];
    await link(mixer.id, ann.id, "akey", "Mixer A");
    await link(press.id, bob.id, "akey", "Press B");
    await db.insert(enterpriseDevices).values({
      enterpriseId: ent.id,
      deviceId: oven.id,
      type: 1,
      name: "Oven E",
      createdAt: clock.now(),
    });
    await stock(0, ann.id, 10);
    const raised = [
      await raise(mixer.id, "Mixer jam"),
      await raise(press.id, "Press jam"),
      await raise(oven.id, "Oven hot"),
      await raise(mixer.id, "Mixer again"),
    ];
    // As the gateway tells them: all in one turn, so the dispatcher takes them as one batch.
    for (const a of raised) app.services.alarmNotify.alarmStored(a);
    const recipients = async (alarmId: number) =>
      (await settle(alarmId)).map((s) => `${s.channel}:${s.recipient}:${s.deviceName}`).sort();
    await expect.poll(async () => (await sendsOf(raised[3].id)).length).toBe(2);
    expect(await recipients(raised[0].id)).toEqual([
      "email:ann@example.com:Mixer A",
      "sms:+86 13800000031:Mixer A",
    ]);
    expect(await recipients(raised[1].id)).toEqual(["email:bob@example.com:Press B"]);
    expect(await recipients(raised[2].id)).toEqual(["email:carl@example.com:Oven E"]);
    expect(await recipients(raised[3].id)).toHaveLength(2);
    // Told again (another node, a restart's catch-up): nothing new.
    expect(await app.services.alarmNotify.dispatch(raised[0].id)).toEqual([]);
    expect(await sendsOf(raised[0].id)).toHaveLength(2);
  });

  /** An admin to add enterprise contacts with (made on first use). */
  async function firstAdmin(eid: number) {
    const admin = await user();
    await db.insert(enterpriseMembers).values({
      enterpriseId: eid,
      userId: admin.id,
      kind: "member",
      isAdmin: true,
      createdAt: clock.now(),
    });
    return admin.id;
  }
});

describe("e-mail through a real SMTP server", () => {
  it("mails the alarm with the brand's subject and both languages", async () => {
    const smtp = await startSmtpServer();
    closers.push(smtp.close);
    const app = await boot(
      {
        smsProvider: outboxSmsProvider,
        senders: createSenders({ smtpUrl: smtp.url, mailFrom: "Keyway <no-reply@keyway.local>" }),
      },
      { SMTP_URL: smtp.url },
    );
    const owner = await user({ email: "ops@vantage.example" });
    await db.update(users).set({ oemId: "vantage" }).where(eq(users.id, owner.id));
    const d = await device();
    await link(d.id, owner.id, "akey", "Boiler 3");
    const a = await raise(d.id, "Temperature 98 °C");
    // As the gateway does: the stored alarm is told, the job sends it.
    app.services.alarmNotify.alarmStored(a);
    const mail = await smtp.waitFor("ops@vantage.example", 20_000);
    expect(mail.subject).toBe(
      "【万泰云】设备报警 Boiler 3 / [Vantage Cloud] Device alarm: Boiler 3",
    );
    expect(mail.text).toContain("设备：Boiler 3");
    expect(mail.text).toContain("Content: Temperature 98 °C");
    expect(mail.text).toContain("Level: major (2)");
    expect(mail.text).toMatch(/Time: 2026-11-2\d \d\d:\d\d:\d\d UTC/);
    const [s] = await settle(a.id);
    expect(s).toMatchObject({ channel: "email", status: "sent" });
    await app.close();
  });
});

/** A local stand-in for Aliyun SMS that recomputes each request's signature. */
async function startAliyunStandIn(secret: string, opts: { canQuery: boolean }) {
  const sent: Record<string, string>[] = [];
  const rejected: string[] = [];
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => resolve(body));
    });
  const server: Server = createServer(async (req, res) => {
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const expected = aliyunSignature("POST", params, secret);
    const reply = (json: unknown) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(json));
    };
    const fresh = Math.abs(Date.parse(params.Timestamp) - Date.now()) < 15 * 60_000;
    if (
      params.Signature !== expected ||
      params.SignatureMethod !== "HMAC-SHA1" ||
      params.SignatureVersion !== "1.0" ||
      !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(params.Timestamp) ||
      !fresh ||
      !params.SignatureNonce
    ) {
      rejected.push(params.Action);
      return reply({
        Code: "SignatureDoesNotMatch",
        Message: "Specified signature is not matched",
      });
    }
    if (params.Action === "SendSms") {
      sent.push(params);
      return reply({ Code: "OK", Message: "OK", BizId: `biz-${sent.length}`, RequestId: "r" });
    }
    if (params.Action === "QuerySendDetails" && opts.canQuery) {
      const hits = sent.filter((p) => p.PhoneNumbers === params.PhoneNumber);
      return reply({
        Code: "OK",
        Message: "OK",
        TotalCount: hits.length,
        SmsSendDetailDTOs: {
          SmsSendDetailDTO: hits.map((p, i) => ({
            OutId: p.OutId,
            BizId: `biz-${i + 1}`,
            SendStatus: 3,
          })),
        },
      });
    }
    return reply({ Code: "isv.NOT_SUPPORTED", Message: "no" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url, sent, rejected };
}

describe("the Aliyun SMS adapter", () => {
  const aliyun = (endpoint: string, secret = "s3cret") =>
    createAliyunSmsProvider({
      accessKeyId: "LTAI-test",
      accessKeySecret: secret,
      signName: "Keyway",
      templateCode: "SMS_0001",
      endpoint,
    });

  it("sends a request the stand-in's recomputed signature accepts; a wrong secret is refused", async () => {
    const standIn = await startAliyunStandIn("s3cret", { canQuery: false });
    const ok = await aliyun(standIn.url).send({
      countryCode: "86",
      phone: "13800000009",
      text: "x",
      params: { device: "Mixer 1", content: "a*b (c) ~ 'quoted' 中文 +" },
      key: "k-1",
    });
    expect(ok.ref).toBe("biz-1");
    expect(standIn.sent[0]).toMatchObject({
      Action: "SendSms",
      AccessKeyId: "LTAI-test",
      PhoneNumbers: "13800000009",
      SignName: "Keyway",
      TemplateCode: "SMS_0001",
      OutId: "k-1",
      Version: "2017-05-25",
      Format: "JSON",
    });
    expect(JSON.parse(standIn.sent[0].TemplateParam)).toEqual({
      device: "Mixer 1",
      content: "a*b (c) ~ 'quoted' 中文 +",
    });
    await expect(
      aliyun(standIn.url, "wrong").send({
        countryCode: "852",
        phone: "51234567",
        text: "x",
        params: {},
        key: "k-2",
      }),
    ).rejects.toThrow(/SignatureDoesNotMatch/);
    expect(standIn.rejected).toEqual(["SendSms"]);
  });

  it("a worker killed between the provider call and the commit does not send twice", async () => {
    const standIn = await startAliyunStandIn("s3cret", { canQuery: false });
    const owner = await user({ phone: "13800000010" });
    const d = await device();
    await link(d.id, owner.id);
    await stock(0, owner.id, 10);
    // Worker 1 "dies" right after Aliyun took the SMS: the send stays "sending".
    const first = await boot({
      smsProvider: aliyun(standIn.url),
      alarmJobs: {
        afterProviderCall: () => {
          throw new SimulatedCrash("killed between send and commit");
        },
      },
    });
    const a = await raise(d.id, "Crash test");
    await first.services.alarmNotify.dispatch(a.id);
    await expect.poll(() => standIn.sent.length, { timeout: 20_000 }).toBe(1);
    await expect
      .poll(async () => (await sendsOf(a.id))[0].status, { timeout: 5_000 })
      .toBe("sending");
    await first.close();

    // A fresh worker after the lease: Aliyun cannot be asked here, so it is not resent.
    clock.advance(3 * 60_000);
    const second = await boot({ smsProvider: aliyun(standIn.url) });
    closers.push(() => second.close());
    await second.services.alarmNotify.recover();
    const [s] = await sendsOf(a.id);
    expect(s).toMatchObject({ status: "uncertain", reason: HW.ALARM_SEND_UNCERTAIN.code });
    await new Promise((r) => setTimeout(r, 1500)); // the worker has had its chances
    expect(standIn.sent).toHaveLength(1);
    // Billed once.
    expect(await balanceOf(0, owner.id)).toBe(10 - s.segments);
    await second.close();
  });

  it("when the provider can be asked, the interrupted send is found and marked sent, once", async () => {
    const standIn = await startAliyunStandIn("s3cret", { canQuery: true });
    const owner = await user({ phone: "13800000011" });
    const d = await device();
    await link(d.id, owner.id);
    await stock(0, owner.id, 10);
    const first = await boot({
      smsProvider: aliyun(standIn.url),
      alarmJobs: {
        afterProviderCall: () => {
          throw new SimulatedCrash("killed");
        },
      },
    });
    const a = await raise(d.id, "Crash test 2");
    await first.services.alarmNotify.dispatch(a.id);
    await expect.poll(() => standIn.sent.length, { timeout: 20_000 }).toBe(1);
    await first.close();
    clock.advance(3 * 60_000);
    const second = await boot({ smsProvider: aliyun(standIn.url) });
    closers.push(() => second.close());
    await second.services.alarmNotify.recover();
    const [s] = await sendsOf(a.id);
    expect(s).toMatchObject({ status: "sent", providerRef: "biz-1" });
    expect(standIn.sent).toHaveLength(1);
    expect(await balanceOf(0, owner.id)).toBe(10 - s.segments);
    await second.close();
  });
});

describe("enterprise webhook", () => {
  /** An enterprise with an admin, a device "Kiln" and its webhook to `url` (secret "hook-secret"). */
  async function webhookEnterprise(app: Awaited<ReturnType<typeof boot>>, url: string) {
    const [ent] = await db
      .insert(enterprises)
      .values({ name: "Hook Inc", createdAt: clock.now() })
      .returning();
    const admin = await user();
    await db.insert(enterpriseMembers).values({
      enterpriseId: ent.id,
      userId: admin.id,
      kind: "member",
      isAdmin: true,
      createdAt: clock.now(),
    });
    await app.services.alarmPush.setEntConfig(admin.id, {
      eid: ent.id,
      webhookUrl: url,
      webhookSecret: "hook-secret",
    });
    const d = await device();
    await db.insert(enterpriseDevices).values({
      enterpriseId: ent.id,
      deviceId: d.id,
      type: 1,
      name: "Kiln",
      createdAt: clock.now(),
    });
    return { ent, device: d, admin };
  }

  /** A call a receiver got: its delivery id, headers and body. */
  type Call = { delivery: string; headers: IncomingMessage["headers"]; body: string };
  /** A receiver on loopback; `handle` answers each call, once its body is in. */
  async function receiver(handle: (call: Call, res: ServerResponse) => void) {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () =>
        handle(
          { delivery: String(req.headers["x-keyway-delivery"]), headers: req.headers, body },
          res,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  it("signs the alarm with HMAC-SHA256 and retries after a failure", async () => {
    const got: (Call & { status: number })[] = [];
    const url = await receiver((call, res) => {
      // The first delivery fails; the retry succeeds.
      const status = got.length === 0 ? 503 : 200;
      got.push({ ...call, status });
      res.statusCode = status;
      res.end();
    });

    const app = await boot({ smsProvider: outboxSmsProvider });
    const { ent, device: d } = await webhookEnterprise(app, url);
    const [stored] = await db.select().from(entMsgConfigs).where(eq(entMsgConfigs.eid, ent.id));
    expect(stored.webhookSecret).not.toContain("hook-secret"); // sealed at rest
    const a = await raise(d.id, "Door open");
    await app.services.alarmNotify.dispatch(a.id);
    await expect.poll(() => got.length, { timeout: 30_000, interval: 250 }).toBe(2);
    const hook = (await settle(a.id)).find((s) => s.channel === "webhook");
    expect(hook).toMatchObject({ status: "sent", attempts: 2 });
    for (const g of got) {
      const ts = String(g.headers["x-keyway-timestamp"]);
      expect(g.headers["x-keyway-signature"]).toBe(
        `sha256=${signedText("hook-secret", ts, g.body)}`,
      );
      expect(g.headers["x-keyway-delivery"]).toBe(hook?.idempotencyKey);
    }
    expect(JSON.parse(got[1].body)).toMatchObject({
      event: "alarm",
      eid: ent.id,
      machineId: d.id,
      machineName: "Kiln",
      content: "Door open",
      level: 2,
    });
    await app.close();
  });
  it("a receiver that does not answer holds back no other enterprise's alarms, and is called once per rest, not once per alarm", async () => {
    // Enterprise A's receiver hangs (until `hang` is cleared); B's answers at once.
    let hang = true;
    const a = { calls: 0, aborted: 0, delivered: new Set<string>() };
    // For each call B gets: how many of A's sends had already given up on a call.
    const b: { delivered: string[]; failedOfA: number[] } = { delivered: [], failedOfA: [] };
    let slowEid = 0;
    const slowUrl = await receiver(({ delivery }, res) => {
      a.calls++;
      if (!hang) {
        a.delivered.add(delivery);
        res.end();
        return;
      }
      res.on("close", () => a.aborted++); // Keyway gave up waiting
    });
    const soundUrl = await receiver(async ({ delivery }, res) => {
      const ofA = await db
        .select()
        .from(alarmSends)
        .where(and(eq(alarmSends.eid, slowEid), eq(alarmSends.channel, "webhook")));
      b.failedOfA.push(ofA.filter((s) => s.lastError !== null).length);
      b.delivered.push(delivery);
      res.end();
    });
    const app = await boot({
      smsProvider: outboxSmsProvider,
      alarmJobs: { webhookTimeoutMs: 3000 },
    });
    const slow = await webhookEnterprise(app, slowUrl);
    slowEid = slow.ent.id;
    const sound = await webhookEnterprise(app, soundUrl);
    // More alarms of A than sends go out side by side, then one of B: told in one turn, so
    // dispatched and queued together.
    const raised: Awaited<ReturnType<typeof raise>>[] = [];
    for (let i = 0; i < 10; i++) raised.push(await raise(slow.device.id, `Kiln ${i}`));
    const other = await raise(sound.device.id, "Other tenant");
    for (const alarm of [...raised, other]) app.services.alarmNotify.alarmStored(alarm);

    await expect.poll(() => b.delivered.length, { timeout: 20_000, interval: 50 }).toBe(1);
    // B's alarm went out while A's first call was still waiting for its answer.
    expect(b.failedOfA[0]).toBe(0);
    await expect.poll(() => a.aborted, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    // A's other sends were not called while it rests: one call per lane (each worker of a
    // node takes a batch), not one per alarm.
    await expect
      .poll(
        async () => (await sendsOf(raised[9].id)).find((s) => s.channel === "webhook")?.lastError,
      )
      .toMatch(/^not called: the receiver did not answer at /);
    expect(a.calls).toBeLessThanOrEqual(2);

    // A's receiver answers again; past the rest, every alarm of A is delivered.
    hang = false;
    clock.advance(WEBHOOK_REST_MS + 1000);
    for (const alarm of raised) {
      const hook = (await settle(alarm.id)).find((s) => s.channel === "webhook");
      expect(hook?.status).toBe("sent");
      expect(a.delivered.has(hook?.idempotencyKey ?? "")).toBe(true);
    }
    await app.close();
  });
  it("a receiver that does not answer rests for every node; after the rest one call, on one node, tries it again", async () => {
    let hang = true;
    let calls = 0;
    const url = await receiver((_call, res) => {
      calls++;
      if (!hang) res.end();
    });
    const corrected = await receiver((_call, res) => res.end());
    const app = await boot();
    const { ent, admin } = await webhookEnterprise(app, url);
    // Two nodes' channels on the one database.
    const node = () =>
      createChannels({
        db,
        clock,
        senders: { email: null, sms: null, close() {} },
        sms: outboxSmsProvider,
        secretKey: testConfig().SECRET_KEY,
        webhookTimeoutMs: 300,
      });
    const [one, two] = [node(), node()];
    const send = (n: number, recipient = url) =>
      ({
        id: n,
        eid: ent.id,
        channel: "webhook",
        recipient,
        content: "{}",
        idempotencyKey: `rest-${n}`,
      }) as AlarmSend;
    const outcome = (call: Promise<string>) => call.catch((error: Error) => error.message);
    const notCalled = /^not called: the receiver did not answer at /;

    // Node one's call is not answered; node two does not call the receiver while it rests.
    expect(await outcome(one.call(send(1)))).not.toMatch(notCalled);
    expect(await outcome(two.call(send(2)))).toMatch(notCalled);
    expect(calls).toBe(1);

    // After the rest, three sends on both nodes at once: one call tries the receiver.
    clock.advance(WEBHOOK_REST_MS + 1000);
    const tries = await Promise.all(
      [one.call(send(3)), two.call(send(4)), two.call(send(5))].map(outcome),
    );
    expect(tries.filter((t) => notCalled.test(t))).toHaveLength(2);
    expect(calls).toBe(2);

    // It answers again: the rest is over for every node.
    hang = false;
    clock.advance(WEBHOOK_REST_MS + 1000);
    expect(await outcome(two.call(send(6)))).toBe("http 200");
    expect(await outcome(one.call(send(7)))).toBe("http 200");
    expect(calls).toBe(4);

    // It stops answering; the admin corrects the URL: the new receiver is called at once.
    hang = true;
    await outcome(one.call(send(8)));
    expect(await outcome(two.call(send(9)))).toMatch(notCalled);
    await app.services.alarmPush.setEntConfig(admin.id, { eid: ent.id, webhookUrl: corrected });
    expect(await outcome(two.call(send(10, corrected)))).toBe("http 200");
    await app.close();
  });
});
