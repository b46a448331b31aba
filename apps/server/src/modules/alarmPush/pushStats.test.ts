import { HW, PUSH_STATS_DAYS, type PushStats } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { alarms } from "../alarms/schema.ts";
import { alarmSends } from "./schema.ts";

let h: Harness;
let operator: string;
let admin: string;
let member: string;
let outsider: string;
let eid: number;
let memberId: number;
let adminId: number;
let alarmId: number;
let seq = 0;

const DAY = 86_400_000;

/** One send as the alarm pipeline records it, `daysAgo` days before now. */
async function send(
  v: {
    channel: "sms" | "email";
    status: "sent" | "failed" | "skipped" | "pending";
    accountEid: number;
    accountUserId: number;
    segments?: number;
  },
  daysAgo = 0,
) {
  seq += 1;
  const at = new Date(h.clock.now().getTime() - daysAgo * DAY);
  await h.db.insert(alarmSends).values({
    alarmId,
    deviceId: 1,
    channel: v.channel,
    eid: v.accountEid,
    userId: v.accountUserId,
    recipient: v.channel === "sms" ? `+86 1380000${String(seq).padStart(4, "0")}` : `r${seq}@x.com`,
    content: "Pressure high",
    segments: v.channel === "sms" ? (v.segments ?? 1) : 0,
    accountEid: v.accountEid,
    accountUserId: v.accountUserId,
    status: v.status,
    idempotencyKey: `stats-${seq}`,
    createdAt: at,
    updatedAt: at,
  });
}

const stats = async (token: string, eidOf = 0, lang: "cn" | "en" = "cn") =>
  h.call<PushStats>("POST", "/api/v1/alarm/push/statistics", {
    form: { eid: eidOf, utcOffset: 0 },
    token,
    lang,
  });

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  admin = await h.signUp("stats-admin@acme.com");
  member = await h.signUp("stats-member@acme.com");
  outsider = await h.signUp("stats-outsider@example.com");
  eid = (
    await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Stats Plastics" },
      token: operator,
    })
  ).body.hwdata.eid;
  for (const [account, isAdmin] of [
    ["stats-admin@acme.com", 1],
    ["stats-member@acme.com", 0],
  ] as const)
    await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account, kind: "member", isAdmin },
      token: operator,
    });
  const idIn = async (token: string) =>
    (await h.call("GET", `/api/msg/v1/ent/sms/user/stock?eid=${eid}`, { token })).body.hwdata
      .userId as number;
  memberId = await idIn(member);
  adminId = await idIn(admin);
  const [device] = await h.provision(operator, 1);
  const { id } = await h.addDevice(member, device, "Mixer");
  const [alarm] = await h.db
    .insert(alarms)
    .values({
      deviceId: id,
      uid: "stats-1",
      type: "alarm",
      level: 2,
      content: "Pressure high",
      time: h.clock.now(),
      createdAt: h.clock.now(),
    })
    .returning();
  alarmId = alarm.id;

  // Personal: today 2 SMS sent (one long: 2 segments) and 1 refused; 3 days ago an e-mail
  // sent and one stopped by a cap; 40 days ago (outside the range) one SMS.
  await send({ channel: "sms", status: "sent", accountEid: 0, accountUserId: memberId });
  await send({
    channel: "sms",
    status: "sent",
    accountEid: 0,
    accountUserId: memberId,
    segments: 2,
  });
  await send({ channel: "sms", status: "failed", accountEid: 0, accountUserId: memberId });
  await send({ channel: "email", status: "sent", accountEid: 0, accountUserId: memberId }, 3);
  await send({ channel: "email", status: "skipped", accountEid: 0, accountUserId: memberId }, 3);
  await send({ channel: "sms", status: "sent", accountEid: 0, accountUserId: memberId }, 40);
  // Enterprise: the member's allocation 1 SMS, the pool (an enterprise contact) 2, the
  // admin's own 1 e-mail; someone else's personal send must never count.
  await send({ channel: "sms", status: "sent", accountEid: eid, accountUserId: memberId }, 1);
  await send({ channel: "sms", status: "sent", accountEid: eid, accountUserId: 0 }, 1);
  await send({ channel: "sms", status: "sent", accountEid: eid, accountUserId: 0 }, 2);
  await send({ channel: "email", status: "sent", accountEid: eid, accountUserId: adminId });
  await send({ channel: "sms", status: "sent", accountEid: 0, accountUserId: adminId });
});
afterAll(() => h.close());

describe("push statistics (data centre charts)", () => {
  it("personal: sends per day for 30 days, SMS vs e-mail, sent vs not sent, stock used", async () => {
    const sold = await h.call("POST", "/api/operator/v1/sms/sale", {
      form: { eid: 0, userId: memberId, amount: 100 },
      token: operator,
    });
    expect(sold.body.hwcode).toBe(0);
    const res = await stats(member);
    expect(res.body.hwcode).toBe(0);
    const s = res.body.hwdata;
    expect(s.scope).toBe("mine");
    expect(s.byDay).toHaveLength(PUSH_STATS_DAYS);
    const today = s.byDay[PUSH_STATS_DAYS - 1];
    expect(today).toMatchObject({ smsSent: 2, smsFailed: 1, emailSent: 0, smsUsed: 3 });
    expect(s.byDay[PUSH_STATS_DAYS - 4]).toMatchObject({ emailSent: 1, emailFailed: 1 });
    // The 40-day-old send and the admin's personal send are not counted.
    expect(s.totals).toEqual({
      smsSent: 2,
      smsFailed: 1,
      emailSent: 1,
      emailFailed: 1,
      smsUsed: 3,
    });
    expect(s.stock.balance).toBe(100);
    // Days run oldest first and end today.
    expect(s.byDay[0].day < today.day).toBe(true);
  });

  it("enterprise: the admin sees the enterprise's, a member their own", async () => {
    const asAdmin = (await stats(admin, eid)).body.hwdata;
    expect(asAdmin.scope).toBe("enterprise");
    expect(asAdmin.totals).toMatchObject({ smsSent: 3, emailSent: 1, smsUsed: 3 });
    const asMember = (await stats(member, eid)).body.hwdata;
    expect(asMember.scope).toBe("mine");
    expect(asMember.totals).toMatchObject({ smsSent: 1, emailSent: 0, smsUsed: 1 });
  });

  it("refuses another context and bad input", async () => {
    const foreign = await stats(outsider, eid, "en");
    expect(foreign.body).toMatchObject({
      hwcode: HW.NO_MANAGEMENT_ACCESS.code,
      msg: HW.NO_MANAGEMENT_ACCESS.en,
    });
    const none = await stats(member, 999_999, "en");
    expect(none.body.hwcode).toBe(HW.ENTERPRISE_NOT_FOUND.code);
    const bad = await h.call("POST", "/api/v1/alarm/push/statistics", {
      form: { eid: -1 },
      token: member,
    });
    expect(bad.body.hwcode).toBe(400);
    const anonymous = await h.call("POST", "/api/v1/alarm/push/statistics", { form: { eid: 0 } });
    expect(anonymous.status).toBe(401);
  });
});
