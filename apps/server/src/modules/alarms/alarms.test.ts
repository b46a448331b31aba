import { type AlarmPayload, deviceTopic, PUSH_SCENES } from "@keyway/protocol";
import { HW, type ProvisionedDevice, VALIDATION_MESSAGES } from "@keyway/shared";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { PushClient } from "../push/testClient.ts";

/**
 * The alarm centre against the real app: alarms of every device a user sees in a context,
 * filtered and paged; an alarm's life (raised, confirmed, cleared by the device or a reset);
 * statistics; and every refusal with its zh/en text.
 */

let h: Harness;
let operator: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
});
afterAll(async () => {
  for (const c of clients) c.end(true);
  await h?.close();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

type Person = Awaited<ReturnType<Harness["person"]>>;

const person = (name: string) => h.person(name);

const provision = async () => (await h.provision(operator))[0];

async function ownedDevice(owner: Person, machineName = "Press line") {
  const device = await provision();
  const added = await h.call("POST", "/api/machine/add", {
    form: { machineName, machineCode: device.machineCode, machinePwd: device.devicePassword },
    token: owner.token,
  });
  expect(added.body.hwcode).toBe(0);
  return { ...device, id: added.body.hwdata.machine_id as number };
}

/** What the device publishes on its alarm topic, through the gateway's own rules. */
async function publish(code: string, alarm: Partial<AlarmPayload> & { id: string }) {
  const ingest = h.app.services.gateway.ingest;
  const device = await ingest.identify(code);
  if (!device) throw new Error(`no device ${code}`);
  await ingest.handleUplink(
    device,
    "alarm",
    Buffer.from(
      JSON.stringify({
        type: "raise",
        content: `Alarm ${alarm.id}`,
        level: 1,
        time: h.clock.now().getTime(),
        ...alarm,
      }),
    ),
  );
}

const list = (p: Person, form: Record<string, string | number> = {}, lang?: "cn" | "en") =>
  h.call("POST", "/api/v1/devices/alarmList", { form, token: p.token, lang });
const deviceAlarms = (p: Person, query: Record<string, string | number>, lang?: "cn" | "en") =>
  h.call(
    "GET",
    `/api/v1/devices/alarms?${new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    )}`,
    { token: p.token, lang },
  );
const confirm = (p: Person, id: number | string, eid = 0, lang?: "cn" | "en") =>
  h.call("PUT", "/api/v1/devices/alarms", { form: { id, eid }, token: p.token, lang });
const reset = (p: Person, deviceCode: string, eid = 0, lang?: "cn" | "en") =>
  h.call("PUT", "/api/v1/devices/imageReset", { form: { deviceCode, eid }, token: p.token, lang });
const kanban = (p: Person, form: Record<string, string | number> = {}, lang?: "cn" | "en") =>
  h.call("POST", "/api/v1/devices/alarmKanban", { form, token: p.token, lang });

async function bindAsUser(owner: Person, user: Person, machineID: number) {
  const asked = await h.call("POST", "/api/v1/audit/addBind", {
    form: { machineID, message: "please" },
    token: user.token,
  });
  expect(asked.body.hwcode).toBe(0);
  const replied = await h.call("POST", "/api/v1/audit/bindReply", {
    form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok" },
    token: owner.token,
  });
  expect(replied.body.hwcode).toBe(0);
}

describe("the alarm centre of the personal context", () => {
  it("lists the alarms of all the user's devices, newest first, 6 a page, and nobody else's", async () => {
    const owner = await person("Owner");
    const stranger = await person("Stranger");
    const press = await ownedDevice(owner, "Press");
    const oven = await ownedDevice(owner, "Oven");
    const start = h.clock.now().getTime();
    for (let i = 0; i < 5; i++)
      await publish(press.machineCode, {
        id: `p${i}`,
        time: start + i * MIN,
        content: `Press ${i}`,
      });
    for (let i = 0; i < 3; i++)
      await publish(oven.machineCode, {
        id: `o${i}`,
        time: start + (10 + i) * MIN,
        content: `Oven ${i}`,
      });

    const first = await list(owner);
    expect(first.body.hwdata.total).toBe(8);
    expect(first.body.hwdata.list.map((a: { content: string }) => a.content)).toEqual([
      "Oven 2",
      "Oven 1",
      "Oven 0",
      "Press 4",
      "Press 3",
      "Press 2",
    ]);
    expect(first.body.hwdata.list[0]).toMatchObject({
      machine_id: oven.id,
      machine_code: oven.machineCode,
      machine_name: "Oven",
      confirmed: 0,
      confirmed_at: null,
      cleared: 0,
      cleared_at: null,
    });
    const second = await list(owner, { page: 2 });
    expect(second.body.hwdata.list.map((a: { content: string }) => a.content)).toEqual([
      "Press 1",
      "Press 0",
    ]);

    // One device: the SPEC's device list call, and the centre's device filter.
    const ovenOnly = await deviceAlarms(owner, { deviceCode: oven.machineCode });
    expect(ovenOnly.body.hwdata).toMatchObject({ total: 3, machine_id: oven.id });
    expect(ovenOnly.body.hwdata.rights).toEqual({ confirm: true, confirmAll: true, reset: true });
    expect((await list(owner, { deviceCode: press.machineCode })).body.hwdata.total).toBe(5);

    // Someone else sees none of them, and cannot name the device.
    expect((await list(stranger)).body.hwdata).toEqual({ list: [], total: 0 });
    const refused = await deviceAlarms(stranger, { deviceCode: oven.machineCode }, "en");
    expect(refused.body).toMatchObject({ hwcode: "04010412", msg: "Device does not exist" });
  });

  it("filters by level, state and time range", async () => {
    const owner = await person("Filter");
    const device = await ownedDevice(owner);
    const t0 = h.clock.now().getTime();
    await publish(device.machineCode, { id: "info", level: 0, time: t0 - 3 * HOUR });
    await publish(device.machineCode, { id: "minor", level: 1, time: t0 - 2 * HOUR });
    await publish(device.machineCode, { id: "major", level: 2, time: t0 - HOUR });
    await publish(device.machineCode, { id: "crit", level: 7, time: t0 });
    const contents = async (form: Record<string, string | number>) =>
      (await list(owner, { deviceCode: device.machineCode, ...form })).body.hwdata.list.map(
        (a: { content: string }) => a.content,
      );

    expect(await contents({ level: "critical" })).toEqual(["Alarm crit"]);
    expect(await contents({ level: "info" })).toEqual(["Alarm info"]);
    expect(
      await contents({
        startTime: new Date(t0 - 2.5 * HOUR).toISOString(),
        endTime: new Date(t0 - 0.5 * HOUR).toISOString(),
      }),
    ).toEqual(["Alarm major", "Alarm minor"]);

    const major = (await list(owner, { level: "major" })).body.hwdata.list[0];
    expect((await confirm(owner, major.id)).body.hwcode).toBe(0);
    expect(await contents({ state: "confirmed" })).toEqual(["Alarm major"]);
    expect(await contents({ state: "unconfirmed" })).toEqual([
      "Alarm crit",
      "Alarm minor",
      "Alarm info",
    ]);
    // Empty filters (a cleared select on the page) mean no filter.
    expect(await contents({ level: "", state: "", startTime: "", endTime: "" })).toHaveLength(4);
  });
});

describe("an alarm's life", () => {
  it("is pushed to the owner's browser with device, level and content for the pop-up", async () => {
    const owner = await person("Pushed");
    const device = await ownedDevice(owner, "Mixer");
    const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
    const socket = await PushClient.open(
      `${address.replace(/^http/, "ws")}/ws?token=${encodeURIComponent(owner.token)}`,
    );
    try {
      await socket.ready();
      await publish(device.machineCode, { id: "pushed", level: 3, content: "Mixer jammed" });
      const [alarm] = (await list(owner)).body.hwdata.list;
      expect(await socket.next()).toMatchObject({
        scene: PUSH_SCENES.deviceAlarm,
        body: {
          deviceId: device.id,
          deviceCode: device.machineCode,
          alarmId: alarm.id,
          level: 3,
          content: "Mixer jammed",
          deviceName: "Mixer",
          totalUnreadMsg: 1,
        },
      });
    } finally {
      socket.close();
    }
  });

  it("is raised and cleared by the device over MQTT, confirmed by its Akey", async () => {
    const owner = await person("Life");
    const device = await ownedDevice(owner);
    const port = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      username: device.machineCode,
      password: device.deviceSecret,
      reconnectPeriod: 0,
    });
    clients.push(client);
    const topic = deviceTopic(device.machineCode, "alarm");
    const send = (payload: object) =>
      client.publishAsync(topic, JSON.stringify(payload), { qos: 1 });
    const time = h.clock.now().getTime();
    await send({ id: "hot-1", type: "raise", level: 3, content: "Oven too hot", time });
    await send({ id: "hot-2", type: "raise", level: 2, content: "Door open", time: time + 1 });

    const raised = (await list(owner)).body.hwdata.list;
    const hot = raised.find((a: { content: string }) => a.content === "Oven too hot");
    expect(hot).toMatchObject({ level: 3, confirmed: 0, cleared: 0 });

    // The Akey confirms it: who and when are kept; again changes nothing.
    h.clock.advance(5 * MIN);
    const confirmed = await confirm(owner, hot.id);
    expect(confirmed.body.hwdata).toMatchObject({
      id: hot.id,
      confirmed: 1,
      confirmed_by: "Life",
      confirmed_at: h.clock.now().toISOString(),
      cleared: 0,
    });
    h.clock.advance(MIN);
    const again = await confirm(owner, hot.id);
    expect(again.body.hwdata.confirmed_at).toBe(confirmed.body.hwdata.confirmed_at);

    // The device reports it ended: a clear names the alarm and stores no new alarm.
    await send({
      id: "hot-1-clear",
      type: "clear",
      level: 0,
      content: "Oven back to normal",
      time: time + 10 * MIN,
      clears: "hot-1",
    });
    const after = (await list(owner)).body.hwdata;
    expect(after.total).toBe(2);
    expect(after.list.find((a: { id: number }) => a.id === hot.id)).toMatchObject({
      cleared: 1,
      cleared_by: null,
      cleared_at: new Date(time + 10 * MIN).toISOString(),
    });
    expect(
      (await list(owner, { state: "cleared" })).body.hwdata.list.map((a: { id: number }) => a.id),
    ).toEqual([hot.id]);
    expect((await list(owner, { state: "active" })).body.hwdata.total).toBe(1);

    // An old device's "clear" without `clears` is still an ordinary alarm.
    await send({ id: "legacy", type: "clear", content: "Cleared", time: time + 11 * MIN });
    expect((await list(owner)).body.hwdata.total).toBe(3);
    client.end(true);
  });

  it("clears the cloud's offline alarm when the device is back", async () => {
    const owner = await person("Offline");
    const device = await ownedDevice(owner);
    const ingest = h.app.services.gateway.ingest;
    const identity = await ingest.identify(device.machineCode);
    if (!identity) throw new Error("device missing");
    await ingest.setOnline(identity, true);
    await ingest.setOnline(identity, false);
    h.clock.advance(20 * MIN);
    await ingest.sweepOffline(() => false);
    const [offline] = (await list(owner)).body.hwdata.list;
    expect(offline).toMatchObject({ type: "offline", cleared: 0 });
    await ingest.setOnline(identity, true);
    expect((await list(owner)).body.hwdata.list[0]).toMatchObject({
      id: offline.id,
      cleared: 1,
    });
  });

  it("is reset by the Akey or a Bkey: every alarm still on cleared, every unconfirmed confirmed", async () => {
    const owner = await person("Resetter");
    const bkey = await person("Bkey");
    const user = await person("User");
    const device = await ownedDevice(owner);
    await bindAsUser(owner, user, device.id);
    await h.call("POST", "/api/admin/push", {
      form: { machineID: device.id, account: bkey.email },
      token: owner.token,
    });
    for (const id of ["a", "b", "c"]) await publish(device.machineCode, { id });
    const [c] = (await list(owner)).body.hwdata.list;
    await confirm(owner, c.id);

    // An ordinary user may confirm one but not reset; rights say so before they try.
    const userView = await deviceAlarms(user, { deviceCode: device.machineCode });
    expect(userView.body.hwdata.rights).toEqual({ confirm: true, confirmAll: false, reset: false });
    const refused = await reset(user, device.machineCode, 0, "en");
    expect(refused.body).toMatchObject({ hwcode: "04012201", msg: "No permission to operate" });
    const refusedZh = await reset(user, device.machineCode, 0, "cn");
    expect(refusedZh.body.msg).toBe(HW.DEVICE_NO_PERMISSION.zh);

    const done = await reset(bkey, device.machineCode);
    expect(done.body.hwdata).toEqual({ machine_id: device.id, cleared: 3, confirmed: 2 });
    const after = (await list(owner)).body.hwdata.list;
    expect(
      after.every((a: { cleared: number; confirmed: number }) => a.cleared && a.confirmed),
    ).toBe(true);
    expect(after.map((a: { cleared_by: string }) => a.cleared_by)).toEqual([
      "Bkey",
      "Bkey",
      "Bkey",
    ]);
    expect(after.find((a: { id: number }) => a.id === c.id).confirmed_by).toBe("Resetter");
    // Nothing left to reset.
    expect((await reset(owner, device.machineCode)).body.hwdata).toMatchObject({
      cleared: 0,
      confirmed: 0,
    });
  });
});

describe("who may confirm", () => {
  it("refuses visitors and read-only users one alarm, and strangers never see it", async () => {
    const owner = await person("Akey");
    const user = await person("Reader");
    const stranger = await person("Nobody");
    const device = await ownedDevice(owner);
    await bindAsUser(owner, user, device.id);
    await publish(device.machineCode, { id: "x" });
    const [alarm] = (await list(owner)).body.hwdata.list;

    // Read-only level: the user sees the alarm but may not confirm it.
    await h.call("POST", "/api/machine/limitReadSet", {
      form: { machineID: device.id, userId: (await userIdOf(user)) as number, write: 0 },
      token: owner.token,
    });
    expect((await list(user)).body.hwdata.total).toBe(1);
    const readOnly = await confirm(user, alarm.id, 0, "en");
    expect(readOnly.body).toMatchObject({ hwcode: "04012201", msg: "No permission to operate" });

    const hidden = await confirm(stranger, alarm.id, 0, "en");
    expect(hidden.body).toMatchObject({ hwcode: "04012501", msg: "The alarm does not exist" });
    const hiddenZh = await confirm(stranger, alarm.id, 0, "cn");
    expect(hiddenZh.body.msg).toBe("告警不存在");
    expect((await list(owner)).body.hwdata.list[0].confirmed).toBe(0);
  });

  it("gives confirm-all only to the Akey (personal) or a maintainer; others are refused", async () => {
    const owner = await person("AllOwner");
    const bkey = await person("AllBkey");
    const stranger = await person("Stranger");
    const device = await ownedDevice(owner);
    await h.call("POST", "/api/admin/push", {
      form: { machineID: device.id, account: bkey.email },
      token: owner.token,
    });
    await publish(device.machineCode, { id: "1" });
    await publish(device.machineCode, { id: "2" });
    for (const who of [bkey, stranger]) {
      const refused = await h.call("POST", "/api/machine/confirmMacAlarm", {
        form: { machineID: device.id },
        token: who.token,
        lang: "en",
      });
      expect(refused.body).toMatchObject({ hwcode: "04012201", msg: "No permission to operate" });
    }
    expect((await list(owner, { state: "unconfirmed" })).body.hwdata.total).toBe(2);
    const done = await h.call("POST", "/api/machine/confirmMacAlarm", {
      form: { machineID: device.id },
      token: owner.token,
    });
    expect(done.body.hwdata).toEqual({ confirmed: 2 });
    expect((await list(owner, { state: "unconfirmed" })).body.hwdata.total).toBe(0);
  });
});

async function userIdOf(p: Person): Promise<number> {
  return (await h.call("POST", "/api/user/selectInfo", { token: p.token })).body.hwdata.id;
}

describe("enterprise contexts", () => {
  let eid: number;
  let admin: Person;
  let member: Person;
  let maintainer: Person;
  let outsider: Person;
  let owned: ProvisionedDevice;
  let serviced: ProvisionedDevice;

  beforeAll(async () => {
    admin = await person("EntAdmin");
    member = await person("EntMember");
    maintainer = await person("EntService");
    outsider = await person("Outsider");
    const created = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Acme Alarms" },
      token: operator,
    });
    eid = created.body.hwdata.eid;
    for (const [p, kind, isAdmin] of [
      [admin, "member", 1],
      [member, "member", 0],
      [maintainer, "maintenance", 0],
    ] as const) {
      const res = await h.call("POST", "/api/enterprises/v1/admin/members", {
        form: { eid, account: p.email, kind, isAdmin },
        token: operator,
      });
      expect(res.body.hwcode).toBe(0);
    }
    owned = await provision();
    serviced = await provision();
    for (const [d, type] of [
      [owned, 1],
      [serviced, 2],
    ] as const) {
      const res = await h.call("POST", "/api/enterprises/v1/admin/devices", {
        form: { eid, machineCode: d.machineCode, type },
        token: operator,
      });
      expect(res.body.hwcode).toBe(0);
    }
    await publish(owned.machineCode, { id: "own-1", content: "Own device alarm" });
    await publish(serviced.machineCode, { id: "svc-1", content: "Serviced device alarm" });
  });

  const contents = async (p: Person) =>
    (await list(p, { eid })).body.hwdata.list.map((a: { content: string }) => a.content).sort();

  it("shows each kind of member the alarms of their list, admins both", async () => {
    expect(await contents(member)).toEqual(["Own device alarm"]);
    expect(await contents(maintainer)).toEqual(["Serviced device alarm"]);
    expect(await contents(admin)).toEqual(["Own device alarm", "Serviced device alarm"]);
    // The personal context of the same people holds none of them.
    expect((await list(member)).body.hwdata.total).toBe(0);
    const refused = await list(outsider, { eid }, "en");
    expect(refused.body).toMatchObject({ hwcode: 403, msg: "User has no permission" });
    const refusedZh = await kanban(outsider, { eid }, "cn");
    expect(refusedZh.body).toMatchObject({ hwcode: 403, msg: "用户没有权限" });
    // A device of the other list is not there for a member.
    const other = await list(member, { eid, deviceCode: serviced.machineCode }, "en");
    expect(other.body).toMatchObject({ hwcode: "04010412" });
  });

  it("lets members confirm, and admins or maintainers (of maintained devices) reset", async () => {
    const [own] = (await list(member, { eid })).body.hwdata.list;
    expect((await confirm(member, own.id, eid)).body.hwdata).toMatchObject({
      confirmed: 1,
      confirmed_by: "EntMember",
    });
    // Not from the personal context, where the device is not.
    expect((await confirm(member, own.id, 0)).body.hwcode).toBe("04012501");

    const memberRights = await list(member, { eid, deviceCode: owned.machineCode });
    expect(memberRights.body.hwdata.rights).toEqual({
      confirm: true,
      confirmAll: false,
      reset: false,
    });
    expect((await reset(member, owned.machineCode, eid)).body.hwcode).toBe("04012201");
    expect((await reset(admin, owned.machineCode, eid)).body.hwdata.cleared).toBe(1);

    const serviceRights = await list(maintainer, { eid, deviceCode: serviced.machineCode });
    expect(serviceRights.body.hwdata.rights).toEqual({
      confirm: true,
      confirmAll: true,
      reset: true,
    });
    const all = await h.call("POST", "/api/machine/confirmMacAlarm", {
      form: { machineID: serviceRights.body.hwdata.machine_id },
      token: maintainer.token,
    });
    expect(all.body.hwdata).toEqual({ confirmed: 1 });
    expect((await reset(maintainer, serviced.machineCode, eid)).body.hwdata.cleared).toBe(1);
  });
});

describe("statistics (alarmKanban)", () => {
  it("counts by level, by device and by day in the viewer's time zone", async () => {
    const owner = await person("Stats");
    const press = await ownedDevice(owner, "Press");
    const oven = await ownedDevice(owner, "Oven");
    // 2026-11-21T08:00Z is 16:00 in Shanghai; 17:00Z is already the 22nd there.
    const now = h.clock.now().getTime();
    await publish(press.machineCode, { id: "s1", level: 3, time: now - 26 * HOUR });
    await publish(press.machineCode, { id: "s2", level: 3, time: now - HOUR });
    await publish(press.machineCode, { id: "s3", level: 1, time: now - 2 * HOUR });
    await publish(oven.machineCode, { id: "s4", level: 0, time: now - 3 * HOUR });
    await publish(oven.machineCode, { id: "s5", level: 2, time: now - 20 * 24 * HOUR });

    const week = (await kanban(owner, { utcOffset: 480 })).body.hwdata;
    expect(week).toMatchObject({ total: 4, unconfirmed: 4, cleared: 0 });
    expect(week.byLevel).toEqual([
      { level: "info", count: 1 },
      { level: "minor", count: 1 },
      { level: "major", count: 0 },
      { level: "critical", count: 2 },
    ]);
    expect(week.byDevice).toEqual([
      { machine_id: press.id, machine_code: press.machineCode, machine_name: "Press", count: 3 },
      { machine_id: oven.id, machine_code: oven.machineCode, machine_name: "Oven", count: 1 },
    ]);
    expect(week.byDay).toHaveLength(8);
    expect(week.byDay.at(-1)).toEqual({ day: "2026-11-21", count: 3 });
    expect(week.byDay.at(-2)).toEqual({ day: "2026-11-20", count: 1 });

    // A new alarm raises today's bar; one device, one level, one state narrow it.
    await publish(oven.machineCode, { id: "s6", level: 3, time: now });
    const again = (await kanban(owner, { utcOffset: 480 })).body.hwdata;
    expect(again.byDay.at(-1)).toEqual({ day: "2026-11-21", count: 4 });
    const narrowed = (
      await kanban(owner, { utcOffset: 480, deviceCode: oven.machineCode, level: "critical" })
    ).body.hwdata;
    expect(narrowed.total).toBe(1);

    const month = (
      await kanban(owner, {
        startTime: new Date(now - 30 * 24 * HOUR).toISOString(),
        endTime: new Date(now).toISOString(),
      })
    ).body.hwdata;
    expect(month.total).toBe(6);
    expect(month.byDay).toHaveLength(31);
  });

  it("refuses bad ranges and values with their texts", async () => {
    const owner = await person("BadInput");
    const now = h.clock.now().getTime();
    const cases: [Record<string, string | number>, keyof typeof VALIDATION_MESSAGES][] = [
      [{ startTime: new Date(now - 100 * 24 * HOUR).toISOString() }, "v.alarmRange"],
      [
        { startTime: new Date(now).toISOString(), endTime: new Date(now - HOUR).toISOString() },
        "v.alarmRange",
      ],
      [{ startTime: "yesterday" }, "v.alarmTime"],
      [{ level: "severe" }, "v.alarmLevel"],
      [{ state: "gone" }, "v.alarmState"],
      [{ utcOffset: 9999 }, "v.utcOffset"],
      [{ eid: -1 }, "v.id"],
    ];
    for (const [form, key] of cases) {
      const en = await kanban(owner, form, "en");
      expect(en.body, JSON.stringify(form)).toMatchObject({
        hwcode: 400,
        msg: VALIDATION_MESSAGES[key].en,
      });
      const zh = await kanban(owner, form, "cn");
      expect(zh.body.msg).toBe(VALIDATION_MESSAGES[key].zh);
    }
  });
});

describe("bad input to the lists, confirm and reset", () => {
  it("answers the envelope with the field's text, never a 500", async () => {
    const owner = await person("Shapes");
    const cases: [
      "GET" | "POST" | "PUT",
      string,
      Record<string, string | number>,
      keyof typeof VALIDATION_MESSAGES,
    ][] = [
      ["POST", "/api/v1/devices/alarmList", { page: 0 }, "v.page"],
      ["POST", "/api/v1/devices/alarmList", { pageSize: 500 }, "v.page"],
      ["POST", "/api/v1/devices/alarmList", { deviceCode: "no!" }, "v.machineCode"],
      ["POST", "/api/v1/devices/alarmList", { endTime: "2026-13-45T99:00:00Z" }, "v.alarmTime"],
      ["PUT", "/api/v1/devices/alarms", { id: "abc" }, "v.id"],
      ["PUT", "/api/v1/devices/alarms", {}, "v.id"],
      ["PUT", "/api/v1/devices/imageReset", {}, "v.required"],
    ];
    for (const [method, url, form, key] of cases) {
      for (const lang of ["en", "cn"] as const) {
        const res = await h.call(method, url, { form, token: owner.token, lang });
        expect(res.status).toBe(200);
        expect(res.body, `${url} ${JSON.stringify(form)}`).toMatchObject({
          hwcode: 400,
          msg: VALIDATION_MESSAGES[key][lang === "en" ? "en" : "zh"],
        });
      }
    }
    const missing = await deviceAlarms(owner, {}, "en");
    expect(missing.body).toMatchObject({ hwcode: 400, msg: VALIDATION_MESSAGES["v.required"].en });
    const noToken = await h.call("POST", "/api/v1/devices/alarmList", { form: {} });
    expect(noToken.status).toBe(401);
  });
});
