import type { ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

let h: Harness;
let operator: string;
let admin: string;
let member: string;
let other: string; // a member of Acme too
let outsider: string;
let eid: number;
let otherEid: number;
let memberId: number;
let otherId: number;
let device: ProvisionedDevice;
let machineId: number;
let entMachineId: number;

const idOf = async (token: string) =>
  (await h.call("GET", "/api/v1/alarm/userMsgConfig", { token })).body.hwdata;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  admin = await h.signUp("admin@acme.com");
  member = await h.signUp("member@acme.com");
  other = await h.signUp("other@acme.com");
  outsider = await h.signUp("outsider@example.com");
  const created = await h.call("POST", "/api/operator/v1/enterprises", {
    form: { name: "Acme Plastics" },
    token: operator,
  });
  eid = created.body.hwdata.eid;
  otherEid = (
    await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Beta Works" },
      token: operator,
    })
  ).body.hwdata.eid;
  for (const [account, isAdmin] of [
    ["admin@acme.com", 1],
    ["member@acme.com", 0],
    ["other@acme.com", 0],
  ] as const) {
    const res = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account, kind: "member", isAdmin },
      token: operator,
    });
    expect(res.body.hwcode).toBe(0);
  }
  await h.call("POST", "/api/enterprises/v1/admin/members", {
    form: { eid: otherEid, account: "outsider@example.com", kind: "member", isAdmin: 1 },
    token: operator,
  });
  let entDevice: ProvisionedDevice;
  [device, entDevice] = (
    await h.call("POST", "/api/operator/v1/devices/provision", {
      form: { count: 2 },
      token: operator,
    })
  ).body.hwdata.list;
  const added = await h.call("POST", "/api/machine/add", {
    form: {
      machineName: "Mixer",
      machineCode: device.machineCode,
      machinePwd: device.devicePassword,
    },
    token: member,
  });
  machineId = added.body.hwdata.machine_id;
  const assigned = await h.call("POST", "/api/enterprises/v1/admin/devices", {
    form: { eid, machineCode: entDevice.machineCode, type: 1 },
    token: operator,
  });
  expect(assigned.body.hwcode).toBe(0);
  entMachineId = (await h.call("GET", `/api/v1/devices/msgConfig?eid=${eid}`, { token: admin }))
    .body.hwdata.list[0].machineId;
  const stock = await h.call("GET", `/api/msg/v1/ent/sms/user/stock?eid=${eid}`, { token: member });
  memberId = stock.body.hwdata.userId;
  otherId = (await h.call("GET", `/api/msg/v1/ent/sms/user/stock?eid=${eid}`, { token: other }))
    .body.hwdata.userId;
});
afterAll(() => h.close());

describe("push configuration", () => {
  it("personal switches and caps, with the SPEC's field names", async () => {
    const before = await idOf(member);
    expect(before).toMatchObject({
      eid: 0,
      userSmsFlag: 1,
      userEmailFlag: 1,
      userSmsDailyAmount: 20,
      machineSmsDailyAmount: 50,
      balance: 0,
    });
    const set = await h.call("POST", "/api/v1/alarm/setUserMsgConfig", {
      form: { userSmsFlag: 0, userSmsDailyAmount: 5, machineSmsDailyAmount: 7 },
      token: member,
    });
    expect(set.body.hwdata).toMatchObject({
      userSmsFlag: 0,
      userEmailFlag: 1,
      userSmsDailyAmount: 5,
      machineSmsDailyAmount: 7,
    });
    const bad = await h.call("POST", "/api/v1/alarm/setUserMsgConfig", {
      form: { userSmsDailyAmount: -1 },
      token: member,
      lang: "en",
    });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({
      hwcode: 400,
      msg: "The daily SMS cap must be 0-10000",
      hwdata: { field: "userSmsDailyAmount" },
    });
    // Another enterprise's context is refused.
    const foreign = await h.call("POST", "/api/v1/alarm/setUserMsgConfig", {
      form: { eid: otherEid, userSmsFlag: 1 },
      token: member,
      lang: "en",
    });
    expect(foreign.body).toMatchObject({
      hwcode: "06010201",
      msg: "No access to the management interface",
    });
  });

  it("enterprise configuration: the admin sets it, members read it, others are refused", async () => {
    const set = await h.call("PUT", "/api/msg/v1/ent/userMessage", {
      json: {
        eid,
        smsFlag: 1,
        emailFlag: 0,
        smsDailyAmount: 30,
        smsMachineDailyAmount: 40,
        webhookUrl: "https://hooks.example.com/a",
        webhookSecret: "s",
      },
      token: admin,
    });
    expect(set.body.hwdata).toMatchObject({
      eid,
      smsFlag: 1,
      emailFlag: 0,
      smsDailyAmount: 30,
      smsMachineDailyAmount: 40,
      hasWebhookSecret: true,
      isAdmin: true,
    });
    const read = await h.call("GET", `/api/msg/v1/ent/userMessage/info?eid=${eid}`, {
      token: member,
    });
    expect(read.body.hwdata).toMatchObject({ smsDailyAmount: 30, isAdmin: false, webhookUrl: "" });
    for (const [token, target] of [
      [member, eid],
      [outsider, eid],
      [admin, otherEid],
    ] as const) {
      const refused = await h.call("PUT", "/api/msg/v1/ent/userMessage", {
        json: { eid: target, smsFlag: 0 },
        token,
        lang: "en",
      });
      expect(refused.body).toMatchObject({
        hwcode: "06010201",
        msg: "No access to the management interface",
      });
    }
    const badUrl = await h.call("PUT", "/api/msg/v1/ent/userMessage", {
      json: { eid, webhookUrl: "ftp://x" },
      token: admin,
      lang: "cn",
    });
    expect(badUrl.body).toMatchObject({
      hwcode: 400,
      msg: "Webhook 地址须为 http(s):// 开头的网址",
    });
  });

  it("per-device SMS switch: personal for the member's device, enterprise for the admin only", async () => {
    const on = await h.call("POST", "/api/v1/alarm/setMachineSmsFlag", {
      form: { machineId, smsFlag: 0 },
      token: member,
    });
    expect(on.body.hwdata).toMatchObject({ machineId, smsFlag: 0, machineName: "Mixer" });
    const notMine = await h.call("POST", "/api/v1/alarm/setMachineSmsFlag", {
      form: { machineId, smsFlag: 0 },
      token: outsider,
    });
    expect(notMine.body.hwcode).toBe("04012201");
    const ent = await h.call("PUT", "/api/msg/v1/ent/alarm/setMachineSmsFlag", {
      form: { eid, machineId: entMachineId, smsFlag: 0 },
      token: admin,
    });
    expect(ent.body.hwdata).toMatchObject({ machineId: entMachineId, smsFlag: 0 });
    const notTheirs = await h.call("PUT", "/api/msg/v1/ent/alarm/setMachineSmsFlag", {
      form: { eid, machineId, smsFlag: 0 },
      token: admin,
    });
    expect(notTheirs.body.hwcode).toBe("04012201");
    const refused = await h.call("PUT", "/api/msg/v1/ent/alarm/setMachineSmsFlag", {
      form: { eid, machineId: entMachineId, smsFlag: 1 },
      token: member,
    });
    expect(refused.body.hwcode).toBe("06010201");
    const list = await h.call("GET", `/api/v1/devices/msgConfig?eid=0`, { token: member });
    expect(list.body.hwdata).toMatchObject({
      total: 1,
      list: [{ machineId, smsFlag: 0, todaySmsCount: 0 }],
    });
  });
});

describe("alarm contacts", () => {
  it("adds, lists and deletes phones and mail receivers with the SPEC's lengths", async () => {
    const mail = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "email", name: "Night shift", email: "night@example.com" },
      token: member,
    });
    expect(mail.body.hwdata).toMatchObject({
      kind: "email",
      name: "Night shift",
      email: "night@example.com",
    });
    const phone = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "phone", name: "Foreman", phone: "13800138000", countryCode: "86" },
      token: member,
    });
    expect(phone.body.hwcode).toBe(0);
    const dup = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "email", name: "Again", email: "night@example.com" },
      token: member,
    });
    expect(dup.body.hwcode).toBe("12010301");
    const longName = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "email", name: "n".repeat(21), email: "a@b.cd" },
      token: member,
      lang: "en",
    });
    expect(longName.body).toMatchObject({ hwcode: 400, msg: "Names are 1-20 characters" });
    const longMail = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "email", name: "x", email: `${"a".repeat(25)}@bb.cd` },
      token: member,
      lang: "en",
    });
    expect(longMail.body).toMatchObject({ hwcode: 400, msg: "The e-mail must be 1-30 characters" });
    const badPhone = await h.call("POST", "/api/v1/alarm/contact/add", {
      form: { kind: "phone", name: "x", phone: "12" },
      token: member,
      lang: "en",
    });
    expect(badPhone.body).toMatchObject({ hwcode: 400, msg: "Wrong phone format" });
    const list = await h.call("GET", "/api/v1/alarm/contact/list", { token: member });
    expect(list.body.hwdata.total).toBe(2);
    const del = await h.call("DELETE", `/api/v1/alarm/contact/del?id=${mail.body.hwdata.id}`, {
      token: member,
    });
    expect(del.body.hwcode).toBe(0);
    const gone = await h.call("DELETE", "/api/v1/alarm/contact/del", {
      json: { id: mail.body.hwdata.id },
      token: member,
    });
    expect(gone.body.hwcode).toBe("12010302");
    const badId = await h.call("DELETE", "/api/v1/alarm/contact/del?id=abc", {
      token: member,
      lang: "en",
    });
    expect(badId.body.hwcode).toBe(400);
  });

  it("enterprise contacts: the admin adds and deletes, members list, others are refused", async () => {
    const added = await h.call("POST", "/api/msg/v1/ent/alarmContact", {
      form: { eid, kind: "email", name: "Control room", email: "ctl@acme.com" },
      token: admin,
    });
    expect(added.body.hwdata).toMatchObject({ eid, name: "Control room" });
    const refused = await h.call("POST", "/api/msg/v1/ent/alarmContact", {
      form: { eid, kind: "email", name: "Me", email: "me@acme.com" },
      token: member,
    });
    expect(refused.body.hwcode).toBe("06010201");
    const listed = await h.call("GET", `/api/msg/v1/ent/alarmContact?eid=${eid}`, {
      token: member,
    });
    expect(listed.body.hwdata.total).toBe(1);
    const outsiderDel = await h.call(
      "DELETE",
      `/api/msg/v1/ent/alarmContact?eid=${eid}&id=${added.body.hwdata.id}`,
      {
        token: outsider,
      },
    );
    expect(outsiderDel.body.hwcode).toBe("06010201");
    const del = await h.call("DELETE", "/api/msg/v1/ent/alarmContact", {
      json: { eid, id: added.body.hwdata.id },
      token: admin,
    });
    expect(del.body.hwcode).toBe(0);
  });
});

describe("SMS stock", () => {
  it("the operator sells, the admin allocates and transfers; never below zero, even all at once", async () => {
    const notOperator = await h.call("POST", "/api/operator/v1/sms/sale", {
      form: { eid, amount: 100 },
      token: admin,
    });
    expect(notOperator.body.hwcode).toBe("06010201");
    const sale = await h.call("POST", "/api/operator/v1/sms/sale", {
      form: { eid, amount: 100, remark: "PO 42" },
      token: operator,
    });
    expect(sale.body.hwdata).toMatchObject({ eid, userId: 0, balance: 100, name: "Acme Plastics" });
    const tooMuch = await h.call("PUT", "/api/msg/v1/ent/userMessage/allocate", {
      form: { eid, userId: memberId, amount: 101 },
      token: admin,
      lang: "en",
    });
    expect(tooMuch.body).toMatchObject({ hwcode: "12010101", msg: "Not enough SMS stock" });
    const byMember = await h.call("PUT", "/api/msg/v1/ent/userMessage/allocate", {
      form: { eid, userId: memberId, amount: 1 },
      token: member,
    });
    expect(byMember.body.hwcode).toBe("06010201");
    const toOutsider = await h.call("PUT", "/api/msg/v1/ent/userMessage/allocate", {
      form: { eid, userId: 999999, amount: 1 },
      token: admin,
    });
    expect(toOutsider.body.hwcode).toBe("06010302");

    // 30 allocations of 7 at once against a pool of 100: 14 succeed, the rest are refused.
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        h.call("PUT", "/api/msg/v1/ent/userMessage/allocate", {
          form: { eid, userId: memberId, amount: 7 },
          token: admin,
        }),
      ),
    );
    expect(results.filter((r) => r.body.hwcode === 0)).toHaveLength(14);
    expect(results.filter((r) => r.body.hwcode === "12010101")).toHaveLength(16);
    const info = await h.call("GET", `/api/msg/v1/ent/userMessage/info?eid=${eid}`, {
      token: admin,
    });
    expect(info.body.hwdata).toMatchObject({ poolBalance: 2, allocatedBalance: 98 });

    // Transfers both ways at once: the balances stay whole and never negative.
    const transfers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.call("PUT", "/api/msg/v1/ent/userMessage/transfer", {
          form:
            i % 2
              ? { eid, fromUserId: memberId, toUserId: otherId, amount: 10 }
              : { eid, fromUserId: otherId, toUserId: memberId, amount: 10 },
          token: admin,
        }),
      ),
    );
    expect(transfers.every((t) => t.body.hwcode === 0 || t.body.hwcode === "12010101")).toBe(true);
    const a = (
      await h.call("GET", `/api/msg/v1/ent/sms/user/stock?eid=${eid}&userId=${memberId}`, {
        token: admin,
      })
    ).body.hwdata;
    const b = (
      await h.call("GET", `/api/msg/v1/ent/sms/user/stock?eid=${eid}&userId=${otherId}`, {
        token: admin,
      })
    ).body.hwdata;
    expect(a.balance).toBeGreaterThanOrEqual(0);
    expect(b.balance).toBeGreaterThanOrEqual(0);
    expect(a.balance + b.balance).toBe(98);
    const same = await h.call("PUT", "/api/msg/v1/ent/userMessage/transfer", {
      form: { eid, fromUserId: memberId, toUserId: memberId, amount: 1 },
      token: admin,
      lang: "en",
    });
    expect(same.body).toMatchObject({ hwcode: 400, msg: "The transfer must go to another member" });
    // A member may read only their own stock.
    const peek = await h.call(
      "GET",
      `/api/msg/v1/ent/sms/user/stock?eid=${eid}&userId=${otherId}`,
      { token: member },
    );
    expect(peek.body.hwcode).toBe("06010201");
  });

  it("records carry operate, createTime in epoch seconds and honour the time range", async () => {
    const now = Math.floor(h.clock.now().getTime() / 1000);
    const sales = await h.call("POST", "/api/v1/sms/sale-list", {
      form: { eid, startTime: now - 10, endTime: now + 10 },
      token: admin,
    });
    expect(sales.body.hwdata).toMatchObject({
      total: 1,
      list: [{ operate: "sale", amount: 100, remark: "PO 42", toUserId: 0, createTime: now }],
    });
    const later = await h.call("POST", "/api/v1/sms/sale-list", {
      form: { eid, startTime: now + 60 },
      token: admin,
    });
    expect(later.body.hwdata.total).toBe(0);
    const alloc = await h.call("POST", "/api/msg/v1/ent/sms/log/allocation/page", {
      form: { eid },
      token: admin,
    });
    expect(alloc.body.hwdata.list).toHaveLength(10); // SMS log page size
    expect(alloc.body.hwdata.list[0]).toMatchObject({ createTime: now });
    expect(["allocate", "transfer"]).toContain(alloc.body.hwdata.list[0].operate);
    const refused = await h.call("POST", "/api/msg/v1/ent/sms/log/allocation/page", {
      form: { eid },
      token: member,
    });
    expect(refused.body.hwcode).toBe("06010201");
    const badRange = await h.call("POST", "/api/v1/sms/sale-list", {
      form: { eid, startTime: now, endTime: now - 1 },
      token: admin,
      lang: "en",
    });
    expect(badRange.body).toMatchObject({
      hwcode: 400,
      msg: "Wrong time range (the start cannot be after the end)",
    });
    const sms = await h.call("POST", "/api/msg/v1/alarm/sms/page", {
      form: { eid: 0 },
      token: member,
    });
    expect(sms.body.hwdata).toEqual({ list: [], total: 0 });
    const entSms = await h.call("GET", `/api/msg/v1/ent/alarm/smsLoggerPage?eid=${eid}`, {
      token: member,
    });
    expect(entSms.body.hwcode).toBe("06010201");
  });
});
