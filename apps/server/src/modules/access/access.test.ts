import { AUDIT_STATE, HW, MESSAGE_TYPE, VALIDATION_MESSAGES } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { terminals } from "../accounts/schema.ts";
import { alarms } from "../alarms/schema.ts";

/**
 * The access workflow against the real app: visit and bind requests with every outcome of
 * SPEC §8, both audit modes, the authority centre and its refusals.
 */

let h: Harness;
const seq = 0;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const code = (body: { hwcode: number | string }) => body.hwcode;

let operator: string | undefined;
async function provision() {
  if (!operator) {
    await seedDemo(h.app.services.accounts);
    operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  }
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  return res.body.hwdata.list[0] as {
    machineCode: string;
    devicePassword: string;
    deviceSecret: string;
  };
}

type Person = Awaited<ReturnType<Harness["person"]>>;

const person = (name: string) => h.person(name);

/** An owner with a device of their own, plus the device. */
async function ownedDevice() {
  const owner = await person("Owner");
  const device = await provision();
  const added = await h.call("POST", "/api/machine/add", {
    form: {
      machineName: "Press line",
      machineCode: device.machineCode,
      machinePwd: device.devicePassword,
    },
    token: owner.token,
  });
  expect(code(added.body)).toBe(0);
  return { owner, device, machineID: added.body.hwdata.machine_id as number };
}

const visit = (p: Person, machineID: number, extra: Record<string, string | number> = {}) =>
  h.call("POST", "/api/v1/audit/addVisit", {
    form: { machineID, message: "please", terminalName: "Laptop", ...extra },
    token: p.token,
  });
const bind = (p: Person, machineID: number, extra: Record<string, string | number> = {}) =>
  h.call("POST", "/api/v1/audit/addBind", {
    form: { machineID, message: "please", ...extra },
    token: p.token,
  });
const reply = (
  p: Person,
  kind: "visit" | "bind",
  requestId: number,
  result: string,
  extra: Record<string, string | number> = {},
) =>
  h.call("POST", `/api/v1/audit/${kind}Reply`, {
    form: { requestId, result, message: "ok", ...extra },
    token: p.token,
  });
const connect = (p: Person, machineID: number) =>
  h.call("POST", "/api/v1/audit/checkCloudServiceState", { form: { machineID }, token: p.token });
const inbox = async (p: Person, box = "inbox") =>
  (
    await h.call("POST", "/api/msg/v1/page", {
      form: { box, page: 1, pageSize: 50 },
      token: p.token,
    })
  ).body.hwdata;
const unread = async (p: Person) =>
  (await h.call("GET", "/api/msg/v1/totalUnread?scene=0", { token: p.token })).body.hwdata
    .totalUnreadMsg as number;
const minutes = (n: number) => h.clock.advance(n * 60_000);
const addBkey = (by: Person, machineID: number, account: string) =>
  h.call("POST", "/api/admin/push", { form: { machineID, account }, token: by.token });

describe("visit requests: outcomes of SPEC §8", () => {
  it("sends a request the Akey sees in the inbox, and refuses a second one within 5 minutes", async () => {
    const { owner, machineID, device } = await ownedDevice();
    const visitor = await person("Visitor");

    const looked = await h.call("POST", "/api/v1/cloudSet/scanCodeCheck", {
      form: { machineCode: device.machineCode.toLowerCase() },
      token: visitor.token,
    });
    expect(looked.body.hwdata).toMatchObject({
      machine_id: machineID,
      role: "none",
      has_akey: true,
    });

    const tooLong = await visit(visitor, machineID, { message: "x".repeat(16) });
    expect(code(tooLong.body)).toBe(HW.BAD_REQUEST.code);
    expect(tooLong.body.hwdata).toEqual({ field: "message" });

    const sent = await visit(visitor, machineID);
    expect(code(sent.body)).toBe(0);
    expect(sent.body.hwdata).toMatchObject({ kind: "visit", auditState: 0, isResult: 0 });

    const ownerInbox = await inbox(owner);
    expect(ownerInbox.list[0]).toMatchObject({
      type: MESSAGE_TYPE.visitApplication,
      canReply: true,
      read: false,
      machine_id: machineID,
      content: "please",
    });
    expect(ownerInbox.list[0].title).toContain("Visitor");
    expect(await unread(owner)).toBe(1);
    const outbox = await inbox(visitor, "outbox");
    expect(outbox.list[0]).toMatchObject({ type: MESSAGE_TYPE.accessRequest, auditState: 0 });

    const again = await visit(visitor, machineID);
    expect(code(again.body)).toBe(HW.TOO_FREQUENT.code);
    minutes(6);
    expect(code((await visit(visitor, machineID)).body)).toBe(0);
  });

  it("refuses the Akey, a Bkey and an ordinary user with 203 and the reason", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    expect(code((await addBkey(owner, machineID, admin.email)).body)).toBe(0);
    const own = await visit(owner, machineID);
    expect(own.body).toMatchObject({ hwcode: 203, hwdata: { reason: "ADMINISTRATOR" } });
    const bkey = await visit(admin, machineID);
    expect(bkey.body).toMatchObject({ hwcode: 203, hwdata: { reason: "ADMINISTRATOR" } });

    const member = await person("Member");
    const asked = await bind(member, machineID);
    await reply(owner, "bind", asked.body.hwdata.id, "agree");
    await reply(admin, "bind", asked.body.hwdata.id, "agree");
    const general = await visit(member, machineID);
    expect(general.body).toMatchObject({ hwcode: 203, hwdata: { reason: "GENERAL_USER" } });
    const rebind = await bind(member, machineID);
    expect(rebind.body).toMatchObject({ hwcode: 203, hwdata: { reason: "BOUND" } });
  });

  it("answers 416 when the cloud service is closed, and 203 BLACKLIST to a black-listed user", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: machineID, state: 0 },
      token: owner.token,
    });
    expect(code((await visit(visitor, machineID)).body)).toBe(HW.CLOUD_EXPIRED.code);
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: machineID, state: 1 },
      token: owner.token,
    });

    const listed = await h.call("POST", "/api/admin/blacklist/add", {
      form: { machineID, userId: visitor.userId },
      token: owner.token,
    });
    expect(code(listed.body)).toBe(0);
    const refused = await visit(visitor, machineID);
    expect(refused.body).toMatchObject({ hwcode: 203, hwdata: { reason: "BLACKLIST" } });
    const blackList = await h.call("POST", "/api/admin/select", {
      form: { machineID, infoType: -1 },
      token: owner.token,
    });
    expect(blackList.body.hwdata.list.map((e: { user_id: number }) => e.user_id)).toEqual([
      visitor.userId,
    ]);
    await h.call("POST", "/api/admin/blacklist/remove", {
      form: { machineID, userId: visitor.userId },
      token: owner.token,
    });
    expect(code((await visit(visitor, machineID)).body)).toBe(0);
  });
});

describe("Akey+Bkey audit", () => {
  it("walks Bkey passed → waiting for Akey → all passed, and lets the visitor in", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    await addBkey(owner, machineID, admin.email);
    const visitor = await person("Visitor");
    expect(code((await connect(visitor, machineID)).body)).toBe(203);

    const asked = await visit(visitor, machineID);
    const id = asked.body.hwdata.id;
    const byBkey = await reply(admin, "visit", id, "agree", { visitTime: 60 });
    expect(byBkey.body.hwdata.auditState).toBe(AUDIT_STATE.bkeyPassedWaitingAkey);
    // The Bkey side has answered; only the Akey may go on.
    expect(code((await reply(admin, "visit", id, "agree")).body)).toBe(HW.REQUEST_DECIDED.code);
    expect(code((await connect(visitor, machineID)).body)).toBe(203);

    const byAkey = await reply(owner, "visit", id, "agree");
    expect(byAkey.body.hwdata).toMatchObject({ auditState: AUDIT_STATE.allPassed, isResult: 1 });
    const right = await connect(visitor, machineID);
    expect(right.body.hwdata).toMatchObject({ role: "visitor", machine_id: machineID });
    expect(right.body.hwdata.expires_at).not.toBeNull();

    const process = await h.call("GET", `/api/v1/devices/auditProcess?requestId=${id}`, {
      token: visitor.token,
    });
    expect(
      process.body.hwdata.steps.map((s: { by: string; result: string }) => `${s.by}:${s.result}`),
    ).toEqual(["requester:submitted", "bkey:agree", "akey:agree"]);
    const types = (await inbox(visitor)).list.map((m: { type: number }) => m.type);
    expect(types).toEqual([MESSAGE_TYPE.visitSuccess, MESSAGE_TYPE.bkeyReply]);
    // The device is now in the visitor's list, as a visitor.
    const list = await h.call("POST", "/api/machine/select", { token: visitor.token });
    expect(list.body.hwdata.list[0]).toMatchObject({ machine_id: machineID, role: "visitor" });
  });

  it("walks Akey passed → waiting for Bkey → all passed for a bind", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    await addBkey(owner, machineID, admin.email);
    const member = await person("Member");
    const id = (await bind(member, machineID, { remarks: "line 2" })).body.hwdata.id;
    expect((await reply(owner, "bind", id, "agree")).body.hwdata.auditState).toBe(
      AUDIT_STATE.akeyPassedWaitingBkey,
    );
    expect((await reply(admin, "bind", id, "agree")).body.hwdata.auditState).toBe(
      AUDIT_STATE.allPassed,
    );
    const right = await connect(member, machineID);
    expect(right.body.hwdata).toMatchObject({ role: "user", expires_at: null });
  });

  it("ends on a refusal by either side, and a black-list reply bars the requester", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    await addBkey(owner, machineID, admin.email);
    const a = await person("Asker");
    const first = (await visit(a, machineID)).body.hwdata.id;
    expect((await reply(owner, "visit", first, "refuse")).body.hwdata.auditState).toBe(
      AUDIT_STATE.refusedByAkey,
    );
    expect(code((await reply(admin, "visit", first, "agree")).body)).toBe(HW.REQUEST_DECIDED.code);
    minutes(6);
    const second = (await visit(a, machineID)).body.hwdata.id;
    expect((await reply(admin, "visit", second, "refuse")).body.hwdata.auditState).toBe(
      AUDIT_STATE.refusedByBkey,
    );
    minutes(6);
    const third = (await visit(a, machineID)).body.hwdata.id;
    await reply(owner, "visit", third, "blacklist");
    minutes(6);
    expect((await visit(a, machineID)).body).toMatchObject({ hwdata: { reason: "BLACKLIST" } });
    expect((await connect(a, machineID)).body).toMatchObject({ hwdata: { reason: "BLACKLIST" } });
  });

  it("refuses replies from anyone but the device's Akey and Bkeys", async () => {
    const { machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    const outsider = await person("Outsider");
    const id = (await visit(visitor, machineID)).body.hwdata.id;
    expect(code((await reply(outsider, "visit", id, "agree")).body)).toBe(
      HW.DEVICE_NO_PERMISSION.code,
    );
    expect(code((await reply(visitor, "visit", id, "agree")).body)).toBe(
      HW.DEVICE_NO_PERMISSION.code,
    );
    const peek = await h.call("GET", `/api/v1/devices/auditProcess?requestId=${id}`, {
      token: outsider.token,
    });
    expect(code(peek.body)).toBe(HW.REQUEST_NOT_FOUND.code);
  });

  it("replies from a message in the message centre (verify by msgId)", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    await visit(visitor, machineID);
    const message = (await inbox(owner)).list[0];
    const verified = await h.call("POST", "/api/msg/v1/device/visit/verify", {
      form: { msgId: message.id, result: "agree", message: "welcome", visitTime: -1 },
      token: owner.token,
    });
    expect(verified.body.hwdata.auditState).toBe(AUDIT_STATE.allPassed);
    const after = await h.call("GET", `/api/msg/v1/detail/${message.id}`, { token: owner.token });
    expect(after.body.hwdata).toMatchObject({ read: true, canReply: false, auditState: 5 });
    expect((await connect(visitor, machineID)).body.hwdata.expires_at).toBeNull();
  });
});

describe("Akey+password audit", () => {
  it("needs the device password to switch, only from the Akey, and then grants by password", async () => {
    const { owner, machineID, device } = await ownedDevice();
    const admin = await person("Admin");
    await addBkey(owner, machineID, admin.email);
    const switchTo = (p: Person, checkType: number, password?: string) =>
      h.call("POST", "/api/cloudSet/updateMachineInfo", {
        form: { machineCode: device.machineCode, checkType, ...(password && { password }) },
        token: p.token,
      });
    expect(code((await switchTo(admin, 1, device.devicePassword)).body)).toBe(
      HW.DEVICE_NO_PERMISSION.code,
    );
    expect(code((await switchTo(owner, 1)).body)).toBe(HW.DEVICE_PASSWORD_ERROR.code);
    expect(code((await switchTo(owner, 1, "wrong-one")).body)).toBe(HW.DEVICE_PASSWORD_ERROR.code);
    expect((await switchTo(owner, 1, device.devicePassword)).body.hwdata.check_type).toBe(1);

    const visitor = await person("Visitor");
    expect(code((await visit(visitor, machineID, { password: "nope" })).body)).toBe(505);
    const granted = await visit(visitor, machineID, { password: device.devicePassword });
    expect(granted.body.hwdata).toMatchObject({ auditState: AUDIT_STATE.allPassed, check_type: 1 });
    expect((await connect(visitor, machineID)).body.hwdata.role).toBe("visitor");
    // The Akey is told, but has nothing left to answer.
    const told = (await inbox(owner)).list[0];
    expect(told).toMatchObject({ type: MESSAGE_TYPE.visitApplication, canReply: false });
  });
});

describe("authority centre", () => {
  it("adds a Bkey by account: 01010304 unknown account, 01010305 already a Bkey", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    expect(code((await addBkey(owner, machineID, "nobody@example.com")).body)).toBe("01010304");
    expect(code((await addBkey(owner, machineID, admin.email)).body)).toBe(0);
    expect(code((await addBkey(owner, machineID, admin.email)).body)).toBe("01010305");
    const outsider = await person("Outsider");
    expect(code((await addBkey(outsider, machineID, outsider.email)).body)).toBe(
      HW.DEVICE_NO_PERMISSION.code,
    );
    const members = await h.call("POST", "/api/admin/select", {
      form: { machineID, infoType: 2 },
      token: admin.token,
    });
    expect(
      members.body.hwdata.list.map((m: { role: string; limit_authority: number }) => [
        m.role,
        m.limit_authority,
      ]),
    ).toEqual([
      ["akey", 3],
      ["bkey", 2],
    ]);
  });

  it("upgrades a white-list visitor to Bkey, downgrades a Bkey, and never touches the Akey", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    const id = (await visit(visitor, machineID)).body.hwdata.id;
    await reply(owner, "visit", id, "agree");
    const members = async () =>
      (
        await h.call("POST", "/api/admin/select", {
          form: { machineID, infoType: 2 },
          token: owner.token,
        })
      ).body.hwdata.list as { id: number; role: string; user_id: number }[];
    const entry = (await members()).find((m) => m.user_id === visitor.userId);
    expect(entry?.role).toBe("visitor");
    const level = (p: Person, targetId: number, limit: number) =>
      h.call("POST", "/api/admin/updateLevel", {
        form: { id: targetId, machineID, limit },
        token: p.token,
      });
    expect(code((await level(owner, entry?.id ?? 0, 2)).body)).toBe(0);
    expect((await members()).find((m) => m.user_id === visitor.userId)?.role).toBe("bkey");
    expect(code((await level(owner, entry?.id ?? 0, 1)).body)).toBe(0);
    expect((await members()).find((m) => m.user_id === visitor.userId)?.role).toBe("user");
    const akeyEntry = (await members()).find((m) => m.role === "akey");
    expect(code((await level(owner, akeyEntry?.id ?? 0, 1)).body)).toBe("01010409");
    expect(code((await level(visitor, entry?.id ?? 0, 2)).body)).toBe(HW.DEVICE_NO_PERMISSION.code);
  });

  it("does not let a Bkey remove another Bkey or change the audit mode", async () => {
    const { owner, machineID, device } = await ownedDevice();
    const one = await person("One");
    const two = await person("Two");
    await addBkey(owner, machineID, one.email);
    await addBkey(owner, machineID, two.email);
    const list = (
      await h.call("POST", "/api/admin/select", {
        form: { machineID, infoType: 2 },
        token: one.token,
      })
    ).body.hwdata.list as { id: number; user_id: number }[];
    const twoEntry = list.find((m) => m.user_id === two.userId);
    const removed = await h.call("POST", "/api/admin/member/remove", {
      form: { machineID, id: twoEntry?.id ?? 0 },
      token: one.token,
    });
    expect(code(removed.body)).toBe(HW.DEVICE_NO_PERMISSION.code);
    const mode = await h.call("POST", "/api/cloudSet/updateMachineInfo", {
      form: { machineCode: device.machineCode, checkType: 0 },
      token: one.token,
    });
    expect(code(mode.body)).toBe(HW.DEVICE_NO_PERMISSION.code);
    const byOwner = await h.call("POST", "/api/admin/member/remove", {
      form: { machineID, id: twoEntry?.id ?? 0 },
      token: owner.token,
    });
    expect(code(byOwner.body)).toBe(0);
  });

  it("sets, lets expire, and clears visit times (01010408 once gone)", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    const id = (await visit(visitor, machineID)).body.hwdata.id;
    const tooShort = await reply(owner, "visit", id, "agree", { visitTime: 5 });
    expect(code(tooShort.body)).toBe(HW.BAD_REQUEST.code);
    await reply(owner, "visit", id, "agree", { visitTime: 30 });
    const valid = await h.call("POST", "/api/admin/select", {
      form: { machineID, infoType: 3 },
      token: owner.token,
    });
    const grant = valid.body.hwdata.list[0];
    expect(grant).toMatchObject({ user_id: visitor.userId, visitTime: 30 });
    expect(grant.phone).toBe("");

    minutes(31);
    expect(code((await connect(visitor, machineID)).body)).toBe(HW.VISIT_TIMEOUT.code);
    const zero = await h.call("POST", "/api/admin/zeroVisitTime", {
      form: { visitAlidTimeID: grant.visitTimeId, machineID },
      token: owner.token,
    });
    expect(code(zero.body)).toBe("01010408");
    // Expired: the visitor must ask again.
    expect(code((await visit(visitor, machineID)).body)).toBe(0);

    const forever = await h.call("PUT", "/api/device/v1/visit/time", {
      form: { visitTimeId: grant.visitTimeId, machineID, visitTime: -1 },
      token: owner.token,
    });
    expect(code(forever.body)).toBe(0);
    expect((await connect(visitor, machineID)).body.hwdata.expires_at).toBeNull();
    const cleared = await h.call("DELETE", "/api/device/v1/visit/time", {
      json: { visitTimeId: grant.visitTimeId, machineID },
      token: owner.token,
    });
    expect(code(cleared.body)).toBe(0);
    expect(code((await connect(visitor, machineID)).body)).toBe(HW.VISIT_TIMEOUT.code);
    const whiteList = await h.call("POST", "/api/device/v1/admin/visit/detail/page", {
      form: { deviceId: machineID, page: 1, pageSize: 6 },
      token: owner.token,
    });
    expect(whiteList.body.hwdata).toMatchObject({ total: 1 });
    expect(whiteList.body.hwdata.list[0].visitTime).toBe(0);
  });

  it("answers 01010408 when the visitor's terminal is gone", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    const id = (await visit(visitor, machineID)).body.hwdata.id;
    await reply(owner, "visit", id, "agree");
    const grant = (
      await h.call("POST", "/api/admin/select", {
        form: { machineID, infoType: 3 },
        token: owner.token,
      })
    ).body.hwdata.list[0];
    await h.db.delete(terminals).where(eq(terminals.userId, visitor.userId));
    const zero = await h.call("POST", "/api/admin/zeroVisitTime", {
      form: { visitAlidTimeID: grant.visitTimeId, machineID },
      token: owner.token,
    });
    expect(code(zero.body)).toBe("01010408");
  });

  it("refuses the authority lists to ordinary users and outsiders", async () => {
    const { owner, machineID } = await ownedDevice();
    const member = await person("Member");
    const id = (await bind(member, machineID)).body.hwdata.id;
    await reply(owner, "bind", id, "agree");
    for (const p of [member, await person("Outsider")]) {
      for (const infoType of [2, 3, -1]) {
        const res = await h.call("POST", "/api/admin/select", {
          form: { machineID, infoType },
          token: p.token,
        });
        expect(code(res.body)).toBe(HW.DEVICE_NO_PERMISSION.code);
      }
    }
  });

  it("sets member levels: read-only, and no alarms", async () => {
    const { owner, machineID } = await ownedDevice();
    const member = await person("Member");
    const id = (await bind(member, machineID)).body.hwdata.id;
    await reply(owner, "bind", id, "agree");
    await h.call("POST", "/api/machine/limitReadSet", {
      form: { machineID, userId: member.userId, write: 0 },
      token: owner.token,
    });
    await h.call("POST", "/api/machine/limitAlarmSet", {
      form: { machineID, userId: member.userId, alarm: 0 },
      token: owner.token,
    });
    expect((await connect(member, machineID)).body.hwdata.write).toBe(false);
    const [alarm] = await h.db
      .insert(alarms)
      .values({
        deviceId: machineID,
        uid: `u${seq}`,
        type: "raise",
        content: "Tank high",
        time: h.clock.now(),
        createdAt: h.clock.now(),
      })
      .returning();
    await h.app.services.messages.alarmRaised(alarm);
    const ownerTypes = (await inbox(owner)).list.map((m: { type: number }) => m.type);
    expect(ownerTypes).toContain(MESSAGE_TYPE.alarm);
    const memberTypes = (await inbox(member)).list.map((m: { type: number }) => m.type);
    expect(memberTypes).not.toContain(MESSAGE_TYPE.alarm);
  });

  it("lets nobody silence the Akey or another Bkey, but each approver their own alarms", async () => {
    const { owner, machineID } = await ownedDevice();
    const one = await person("One");
    const two = await person("Two");
    await addBkey(owner, machineID, one.email);
    await addBkey(owner, machineID, two.email);
    const alarm = (by: Person, target: Person, on: 0 | 1, lang: "en" | "cn" = "en") =>
      h.call("POST", "/api/machine/limitAlarmSet", {
        form: { machineID, userId: target.userId, alarm: on },
        token: by.token,
        lang,
      });
    expect((await alarm(one, owner, 0, "cn")).body).toMatchObject({
      hwcode: HW.AKEY_UNCHANGEABLE.code,
      msg: HW.AKEY_UNCHANGEABLE.zh,
    });
    expect((await alarm(one, two, 0)).body).toMatchObject({
      hwcode: HW.DEVICE_NO_PERMISSION.code,
      msg: HW.DEVICE_NO_PERMISSION.en,
    });
    const levels = async () =>
      (
        await h.call("POST", "/api/admin/select", {
          form: { machineID, infoType: 2 },
          token: owner.token,
        })
      ).body.hwdata.list as { user_id: number; alarm: number }[];
    const alarmOf = async (p: Person) =>
      (await levels()).find((m) => m.user_id === p.userId)?.alarm;
    expect(await alarmOf(owner)).toBe(1);
    expect(await alarmOf(two)).toBe(1);
    // One's own switch, the Akey's too (the Bkey tab offers it on every row).
    expect(code((await alarm(one, one, 0)).body)).toBe(0);
    expect(code((await alarm(owner, owner, 0)).body)).toBe(0);
    expect(await alarmOf(one)).toBe(0);
    expect(await alarmOf(owner)).toBe(0);
    expect(code((await alarm(owner, two, 0)).body)).toBe(0);
    expect(await alarmOf(two)).toBe(0);
  });

  it("tells an alarm stored before a stop once, when the server catches up", async () => {
    const { owner, machineID } = await ownedDevice();
    // Stored by the gateway, then the process stopped before any message was written.
    await h.db.insert(alarms).values({
      deviceId: machineID,
      uid: `r${seq}`,
      type: "raise",
      content: "Pressure low",
      time: h.clock.now(),
      createdAt: h.clock.now(),
    });
    expect(await h.app.services.messages.catchUpAlarms()).toBeGreaterThanOrEqual(1);
    expect(await h.app.services.messages.catchUpAlarms()).toBe(0);
    const told = (await inbox(owner)).list.filter(
      (m: { content: string }) => m.content === "Pressure low",
    );
    expect(told).toHaveLength(1);
  });

  it("transfers the device: the new Akey owns it, the old one stays as Bkey", async () => {
    const { owner, machineID } = await ownedDevice();
    const heir = await person("Heir");
    const self = await h.call("POST", "/api/machine/transfer", {
      form: { machineID, account: owner.email },
      token: owner.token,
    });
    expect(code(self.body)).toBe("04012401");
    const done = await h.call("POST", "/api/machine/transfer", {
      form: { machineID, account: heir.email },
      token: owner.token,
    });
    expect(code(done.body)).toBe(0);
    expect((await connect(heir, machineID)).body.hwdata.role).toBe("akey");
    expect((await connect(owner, machineID)).body.hwdata.role).toBe("bkey");
    const again = await h.call("POST", "/api/machine/transfer", {
      form: { machineID, account: heir.email },
      token: owner.token,
    });
    expect(code(again.body)).toBe(HW.DEVICE_NO_PERMISSION.code);
  });

  it("confirms all alarms in one click only for the Akey", async () => {
    const { owner, machineID } = await ownedDevice();
    const admin = await person("Admin");
    await addBkey(owner, machineID, admin.email);
    await h.db.insert(alarms).values({
      deviceId: machineID,
      uid: `c${seq}`,
      type: "raise",
      content: "Motor hot",
      time: h.clock.now(),
      createdAt: h.clock.now(),
    });
    const byBkey = await h.call("POST", "/api/machine/confirmMacAlarm", {
      form: { machineID },
      token: admin.token,
    });
    expect(code(byBkey.body)).toBe(HW.DEVICE_NO_PERMISSION.code);
    const byAkey = await h.call("POST", "/api/machine/confirmMacAlarm", {
      form: { machineID },
      token: owner.token,
    });
    expect(byAkey.body.hwdata).toEqual({ confirmed: 1 });
  });

  it("unbinds everyone when the Akey deletes the device", async () => {
    const { owner, machineID } = await ownedDevice();
    const visitor = await person("Visitor");
    const id = (await visit(visitor, machineID)).body.hwdata.id;
    await reply(owner, "visit", id, "agree");
    await h.call("POST", "/api/machine/del", {
      form: { delMachineID: machineID, isAkey: 1 },
      token: owner.token,
    });
    expect(code((await connect(visitor, machineID)).body)).toBe(203);
  });
});

describe("bad input", () => {
  it("is refused field by field with the shared rule's text, in Chinese and English", async () => {
    const { owner, machineID, device } = await ownedDevice();
    const cases: [string, Record<string, string | number>, string, string][] = [
      [
        "/api/v1/audit/addVisit",
        { machineID, message: "x".repeat(16) },
        "message",
        "v.leaveMessage",
      ],
      ["/api/v1/audit/visitReply", { requestId: 1, result: "maybe" }, "result", "v.replyResult"],
      [
        "/api/v1/audit/visitReply",
        { requestId: 1, result: "agree", visitTime: 5 },
        "visitTime",
        "v.visitTime",
      ],
      ["/api/admin/select", { machineID, infoType: 7 }, "infoType", "v.infoType"],
      ["/api/admin/updateLevel", { id: 1, machineID, limit: 9 }, "limit", "v.level"],
      [
        "/api/cloudSet/updateMachineInfo",
        { machineCode: device.machineCode, checkType: 5 },
        "checkType",
        "v.checkType",
      ],
    ];
    for (const [url, form, field, key] of cases) {
      for (const lang of ["en", "cn"] as const) {
        const res = await h.call("POST", url, { form, token: owner.token, lang });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ hwcode: HW.BAD_REQUEST.code, hwdata: { field } });
        const text = VALIDATION_MESSAGES[key as keyof typeof VALIDATION_MESSAGES];
        expect(res.body.msg).toBe(lang === "en" ? text.en : text.zh);
      }
    }
    const notListed = await h.call("POST", "/api/admin/blacklist/remove", {
      form: { machineID, userId: owner.userId },
      token: owner.token,
      lang: "en",
    });
    expect(notListed.body).toMatchObject({
      hwcode: HW.MEMBER_NOT_FOUND.code,
      msg: HW.MEMBER_NOT_FOUND.en,
    });
  });
});

describe("connect check", () => {
  it("refuses a closed cloud service to everyone, the Akey included", async () => {
    const { owner, machineID } = await ownedDevice();
    expect((await connect(owner, machineID)).body.hwdata.role).toBe("akey");
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: machineID, state: 0 },
      token: owner.token,
    });
    expect(code((await connect(owner, machineID)).body)).toBe(HW.CLOUD_CLOSED.code);
  });
});

describe("message centre", () => {
  it("reads, deletes one, clears all, and keeps messages private", async () => {
    const { owner, machineID } = await ownedDevice();
    const a = await person("Asker");
    const b = await person("Other");
    await visit(a, machineID);
    await bind(b, machineID);
    const list = await inbox(owner);
    expect(list.total).toBe(2);
    expect(await unread(owner)).toBe(2);

    const stranger = await person("Stranger");
    const peek = await h.call("GET", `/api/msg/v1/detail/${list.list[0].id}`, {
      token: stranger.token,
    });
    expect(code(peek.body)).toBe(HW.MESSAGE_NOT_FOUND.code);
    const wipe = await h.call("DELETE", "/api/msg/v1/clear", {
      json: { id: list.list[0].id, box: "inbox" },
      token: stranger.token,
    });
    expect(code(wipe.body)).toBe(HW.MESSAGE_NOT_FOUND.code);

    const read = await h.call("PUT", "/api/msg/v1/read", {
      json: { id: list.list[0].id, box: "inbox" },
      token: owner.token,
    });
    expect(read.body.hwdata.totalUnreadMsg).toBe(1);
    const one = await h.call("DELETE", "/api/msg/v1/clear", {
      json: { id: list.list[0].id, box: "inbox" },
      token: owner.token,
    });
    expect(one.body.hwdata.totalUnreadMsg).toBe(1);
    expect((await inbox(owner)).total).toBe(1);
    await h.call("DELETE", "/api/msg/v1/clear", { json: { box: "inbox" }, token: owner.token });
    expect((await inbox(owner)).total).toBe(0);
    // The requests themselves survive in the requesters' outboxes.
    expect((await inbox(a, "outbox")).total).toBe(1);
  });

  it("titles messages in the reader's language", async () => {
    const { owner, machineID } = await ownedDevice();
    const a = await person("Asker");
    await visit(a, machineID);
    const en = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox" },
      token: owner.token,
      lang: "en",
    });
    expect(en.body.hwdata.list[0].title).toBe("Asker asks to visit Press line");
    const cn = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox" },
      token: owner.token,
      lang: "cn",
    });
    expect(cn.body.hwdata.list[0].title).toBe("Asker 申请访问 Press line");
  });
});
