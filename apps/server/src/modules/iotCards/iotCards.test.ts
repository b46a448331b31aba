import { HW, type IotCardView, type ProvisionedDevice } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { alarms } from "../alarms/schema.ts";
import { devices as deviceTable } from "../devices/schema.ts";
import { startOneLinkStandIn } from "./oneLinkStandIn.ts";

/**
 * The card calls of SPEC §7 "IoT card" on the demo's simulator carrier: who sees which
 * cards, reads and their throttle, QR codes, warnings turned into one alarm message, and the
 * data centre's traffic. The simulator's profiles by ICCID ending: 09 heavy user (low
 * traffic), 08 weekly plan (expiring), 92 suspended.
 */
let h: Harness;
let operator: string;
let owner: string;
let colleague: string;
let stranger: string;
let ownerId: number;
const devices: Array<{ id: number; code: string }> = [];
const HEAVY = "89860400000000000109";
const WEEKLY = "89860400000000000208";
const SUSPENDED = "89860400000000000392";
const FARM = "89860400000000000503";

const provision = (count: number) => h.provision(operator, count);

async function userId(token: string): Promise<number> {
  const res = await h.call("GET", "/api/user/selectInfo", { token });
  return res.body.hwdata.id;
}

/** The device's `state` message, as the gateway receives it. */
async function report(device: { id: number; code: string }, iccid: string) {
  const payload = Buffer.from(JSON.stringify({ state: "online", iccid }));
  await h.app.services.gateway.ingest.handleUplink(device, "state", payload);
}

const list = (token: string, form: Record<string, string | number> = {}) =>
  h.call<{ list: IotCardView[]; total: number }>("POST", "/api/iotcard/iotCard/getIotCard", {
    form,
    token,
    lang: "en",
  });

const info = (token: string, query: string) =>
  h.call("GET", `/api/v1/iotcard/info?${query}`, { token, lang: "en" });

const cardAlarms = (deviceId: number) =>
  h.db
    .select()
    .from(alarms)
    .where(and(eq(alarms.deviceId, deviceId)));

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@farm.com");
  colleague = await h.signUp("colleague@farm.com");
  stranger = await h.signUp("stranger@example.com");
  ownerId = await userId(owner);
  for (const d of await provision(4))
    devices.push(await h.addDevice(owner, d, `Pump ${d.machineCode.slice(-3)}`));
  await report(devices[0], HEAVY);
  await report(devices[1], WEEKLY);
  await report(devices[2], SUSPENDED);
});
afterAll(() => h.close());

describe("IoT cards", () => {
  it("lists the cards the owner's devices report, read from the carrier shortly after", async () => {
    const first = await list(owner);
    expect(first.body.hwcode).toBe(0);
    expect(first.body.hwdata.total).toBe(3);
    expect(first.body.hwdata.list.map((c) => c.iccid).sort()).toEqual([HEAVY, WEEKLY, SUSPENDED]);
    // New cards are read in the background; until then their state is unknown.
    await h.app.services.iotCards.idle();
    const read = (await list(owner)).body.hwdata.list;
    const byIccid = new Map(read.map((c) => [c.iccid, c]));
    const heavy = byIccid.get(HEAVY);
    expect(heavy).toMatchObject({
      card_state: "working",
      machine_id: devices[0].id,
      machine_code: devices[0].code,
      carrier: "simulator",
      low_traffic: 1,
    });
    expect(heavy?.used_percent).toBeGreaterThanOrEqual(90);
    expect((heavy?.left_kb ?? 0) + (heavy?.used_kb ?? 0)).toBe(heavy?.total_kb);
    expect(heavy?.refreshed_at).not.toBeNull();
    expect(byIccid.get(WEEKLY)).toMatchObject({ card_state: "working", expiring: 1 });
    expect(byIccid.get(WEEKLY)?.days_left).toBeLessThanOrEqual(7);
    expect(byIccid.get(SUSPENDED)).toMatchObject({ card_state: "suspended", low_traffic: 0 });

    const filtered = await list(owner, { state: "suspended" });
    expect(filtered.body.hwdata.list.map((c) => c.iccid)).toEqual([SUSPENDED]);
    const search = await list(owner, { blur: devices[1].code.slice(-6) });
    expect(search.body.hwdata.list.map((c) => c.iccid)).toEqual([WEEKLY]);
  });

  it("turns low traffic and a near plan end into one alarm message each, not again on later reads", async () => {
    await h.app.services.iotCards.refreshDue();
    const traffic = (await cardAlarms(devices[0].id)).filter((a) => a.type === "iotCardTraffic");
    expect(traffic).toHaveLength(1);
    expect(traffic[0].content).toContain("Low traffic on 4G card");
    expect(traffic[0].content).toContain("流量不足");
    // Later periodic passes (every 6 hours) find the same conditions: nothing new.
    h.clock.advance(6 * 3_600_000 + 60_000);
    expect(await h.app.services.iotCards.refreshDue()).toBe(3);
    h.clock.advance(60_000);
    expect(await h.app.services.iotCards.refreshDue()).toBe(0);
    expect(
      (await cardAlarms(devices[0].id)).filter((a) => a.type === "iotCardTraffic"),
    ).toHaveLength(1);
    expect(
      (await cardAlarms(devices[1].id)).filter((a) => a.type === "iotCardExpiry"),
    ).toHaveLength(1);
    expect(await cardAlarms(devices[2].id)).toHaveLength(0);

    // Where users see alarms: the message centre (one alarm message per warning) and the alarm centre.
    await new Promise((done) => setTimeout(done, 300));
    const inbox = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox", type: 1, page: 1, pageSize: 50 },
      token: owner,
      lang: "en",
    });
    const contents: string[] = inbox.body.hwdata.list.map((m: { content: string }) => m.content);
    expect(contents.filter((c) => c.includes(`Low traffic on 4G card ${HEAVY}`))).toHaveLength(1);
    expect(contents.filter((c) => c.includes(`4G card ${WEEKLY} end`))).toHaveLength(1);
    const centre = await h.call("POST", "/api/v1/devices/alarmList", {
      form: { eid: 0, page: 1, pageSize: 50 },
      token: owner,
    });
    const types = centre.body.hwdata.list.map((a: { type: string }) => a.type);
    expect(types).toEqual(expect.arrayContaining(["iotCardTraffic", "iotCardExpiry"]));

    // The warning log of the device and of the whole context.
    const log = await h.call("POST", "/api/v1/iotcard/alarm/device/log", {
      form: { machineId: devices[0].id },
      token: owner,
    });
    expect(log.body.hwdata).toMatchObject({ total: 1 });
    expect(log.body.hwdata.list[0]).toMatchObject({
      kind: "lowTraffic",
      iccid: HEAVY,
      machine_id: devices[0].id,
      cleared: 0,
    });
    const all = await h.call("POST", "/api/v1/iotcard/alarm/device/log", {
      form: {},
      token: owner,
    });
    expect(all.body.hwdata.total).toBe(2);
  });

  it("gives a card's detail with its readings, warnings and the carriers' lag", async () => {
    const res = await info(owner, `iccid=${HEAVY}`);
    expect(res.body.hwcode).toBe(0);
    const detail = res.body.hwdata;
    expect(detail.card.iccid).toBe(HEAVY);
    expect(detail.history.length).toBeGreaterThanOrEqual(2);
    expect(detail.warnings.map((w: { kind: string }) => w.kind)).toEqual(["lowTraffic"]);
    expect(detail.lag_hours).toEqual({ min: 6, max: 12 });
    // By the device instead of the ICCID.
    const byDevice = await info(owner, `machineId=${devices[1].id}`);
    expect(byDevice.body.hwdata.card.iccid).toBe(WEEKLY);
    const none = await info(owner, `machineId=${devices[3].id}`);
    expect(none.body).toMatchObject({
      hwcode: HW.IOT_CARD_NOT_FOUND.code,
      msg: HW.IOT_CARD_NOT_FOUND.en,
    });
  });

  it("reads a card on demand at most once an hour", async () => {
    const refresh = (token = owner) =>
      h.call("POST", "/api/v1/iotcard/refresh", { form: { iccid: WEEKLY }, token, lang: "en" });
    const first = await refresh();
    expect(first.body.hwcode).toBe(0);
    expect(first.body.hwdata.refresh_after).not.toBeNull();
    const again = await refresh();
    expect(again.body).toMatchObject({
      hwcode: HW.IOT_CARD_REFRESH_TOO_SOON.code,
      msg: HW.IOT_CARD_REFRESH_TOO_SOON.en,
    });
    expect(again.body.hwdata.refresh_after).toBe(first.body.hwdata.refresh_after);
    h.clock.advance(61 * 60_000);
    expect((await refresh()).body.hwcode).toBe(0);
    // Someone who does not see the card cannot make the carrier be asked.
    expect((await refresh(stranger)).body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
  });

  it("shows a card's QR code, and finds the card again from what the phone app scanned", async () => {
    const qr = await h.call("GET", `/api/iotcard/iotCard/qrCode?iccid=${HEAVY.toLowerCase()}`, {
      token: owner,
    });
    expect(qr.body.hwcode).toBe(0);
    expect(qr.body.hwdata.content).toBe(`http://localhost:8080/iotCard/${HEAVY}`);
    expect(qr.body.hwdata.image).toMatch(/^data:image\/png;base64,/);
    for (const content of [qr.body.hwdata.content, HEAVY, ` ${HEAVY.toLowerCase()} `]) {
      const scanned = await h.call("POST", "/api/v1/iotcard/qrCode", {
        form: { content },
        token: owner,
      });
      expect(scanned.body.hwdata).toMatchObject({ iccid: HEAVY, machine_id: devices[0].id });
    }
    const junk = await h.call("POST", "/api/v1/iotcard/qrCode", {
      form: { content: "https://example.com/nothing" },
      token: owner,
    });
    expect(junk.body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
    const theirs = await h.call("POST", "/api/v1/iotcard/qrCode", {
      form: { content: qr.body.hwdata.content },
      token: stranger,
    });
    expect(theirs.body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
    const peek = await h.call("GET", `/api/iotcard/iotCard/qrCode?iccid=${HEAVY}`, {
      token: stranger,
    });
    expect(peek.body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
  });

  it("shows cards to the device's Akey and Bkeys only, personally", async () => {
    expect((await list(stranger)).body.hwdata).toEqual({ list: [], total: 0 });
    const peek = await info(stranger, `iccid=${HEAVY}`);
    expect(peek.body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
    const log = await h.call("POST", "/api/v1/iotcard/alarm/device/log", {
      form: { machineId: devices[0].id },
      token: stranger,
    });
    expect(log.body.hwcode).toBe(HW.EDIT_MACHINE_NOT_FOUND.code);
    expect(
      (await h.call("POST", "/api/v1/iotcard/alarm/device/log", { form: {}, token: stranger })).body
        .hwdata.total,
    ).toBe(0);

    // A Bkey of the first device sees its card (and only that one) ...
    const added = await h.call("POST", "/api/admin/push", {
      form: { machineID: devices[0].id, account: "colleague@farm.com" },
      token: owner,
    });
    expect(added.body.hwcode).toBe(0);
    expect((await list(colleague)).body.hwdata.list.map((c) => c.iccid)).toEqual([HEAVY]);
    // ... and no longer once made an ordinary user.
    const members = await h.call("POST", "/api/admin/select", {
      form: { machineID: devices[0].id, infoType: 2 },
      token: owner,
    });
    const colleagueId = await userId(colleague);
    const entry = members.body.hwdata.list.find(
      (m: { user_id: number }) => m.user_id === colleagueId,
    );
    const down = await h.call("POST", "/api/admin/updateLevel", {
      form: { id: entry.id, machineID: devices[0].id, limit: 1 },
      token: owner,
    });
    expect(down.body.hwcode).toBe(0);
    expect((await list(colleague)).body.hwdata.total).toBe(0);
    expect((await info(colleague, `iccid=${HEAVY}`)).body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
  });

  it("shows an enterprise's cards to the members who see the device's list", async () => {
    const { enterprises, accounts } = h.app.services;
    const ops = await accounts.findUser({ channel: "email", email: "operator@keyway.local" });
    const op = { userId: ops?.id ?? 0, role: "operator" as const };
    const { eid } = await enterprises.create(op, { name: "Farm Co", enableProject: 0 });
    await enterprises.addMember(op, {
      eid,
      account: { channel: "email", email: "colleague@farm.com" },
      kind: "member",
      isAdmin: false,
    });
    await enterprises.addMember(op, {
      eid,
      account: { channel: "email", email: "stranger@example.com" },
      kind: "maintenance",
      isAdmin: false,
    });
    // The enterprise's own device, in its enterprise list (type 1).
    const [d] = await provision(1);
    await enterprises.assignDevice(op, { eid, code: d.machineCode, type: 1 });
    const [row] = await h.db.select().from(deviceTable).where(eq(deviceTable.code, d.machineCode));
    await report({ id: row.id, code: row.code }, FARM);
    const member = await list(colleague, { eid });
    expect(member.body.hwdata.list.map((c) => [c.iccid, c.machine_code])).toEqual([
      [FARM, d.machineCode],
    ]);
    expect((await info(colleague, `eid=${eid}&iccid=${FARM}`)).body.hwcode).toBe(0);
    // The personal context does not show it: the colleague is no Akey or Bkey of it.
    expect((await info(colleague, `iccid=${FARM}`)).body.hwcode).toBe(HW.IOT_CARD_NOT_FOUND.code);
    // A maintenance member does not see the enterprise list's device, nor its card.
    expect((await list(stranger, { eid })).body.hwdata.total).toBe(0);
    expect((await info(stranger, `eid=${eid}&iccid=${FARM}`)).body.hwcode).toBe(
      HW.IOT_CARD_NOT_FOUND.code,
    );
    // The device's owner is not a member: refused outright.
    const outsider = await list(owner, { eid });
    expect(outsider.body.hwcode).toBe(HW.NO_PERMISSION.code);
    // The data centre's traffic of the enterprise context: its card for a member, a refusal
    // for someone outside the enterprise (also in the data centre's call).
    const traffic = (token: string) =>
      h.call("POST", "/api/v1/iotcard/traffic", {
        form: { eid, days: 7, utcOffset: 480 },
        token,
        lang: "en",
      });
    const seen = await traffic(colleague);
    expect(seen.body.hwcode).toBe(0);
    expect(seen.body.hwdata).toMatchObject({ cards: 1, byState: [{ state: "working", count: 1 }] });
    expect(seen.body.hwdata.byCard.map((c: { iccid: string }) => c.iccid)).toEqual([FARM]);
    expect((await traffic(stranger)).body.hwdata.cards).toBe(0);
    const refused = await traffic(owner);
    expect(refused.body).toMatchObject({ hwcode: HW.NO_PERMISSION.code, hwdata: null });
    // The personal context holds the owner's cards, not the enterprise's view of them.
    expect((await list(owner)).body.hwdata.total).toBe(3);
    expect(ownerId).toBeGreaterThan(0);
  });

  it("follows the device's reports: a replaced card shows as deleted, the new one appears", async () => {
    const NEW = "89860400000000000451";
    await report(devices[2], NEW);
    await h.app.services.iotCards.refreshDue();
    const cards = (await list(owner)).body.hwdata.list;
    const states = Object.fromEntries(cards.map((c) => [c.iccid, c.card_state]));
    expect(states[SUSPENDED]).toBe("deleted");
    expect(states[NEW]).toBe("working");
    // The device's card is now the new one.
    expect((await info(owner, `machineId=${devices[2].id}`)).body.hwdata.card.iccid).toBe(NEW);
  });

  it("sums the context's traffic for the data centre", async () => {
    const res = await h.call("POST", "/api/v1/iotcard/traffic", {
      form: { days: 7, utcOffset: 480 },
      token: owner,
    });
    expect(res.body.hwcode).toBe(0);
    const t = res.body.hwdata;
    expect(t.cards).toBe(3);
    expect(t.byDay).toHaveLength(7);
    expect(t.used_kb).toBe(
      t.byCard.reduce((s: number, c: { used_kb: number }) => s + c.used_kb, 0),
    );
    expect(t.byCard[0].iccid).not.toBe(SUSPENDED);
    expect(t.low_traffic).toBe(1);
    expect(t.expiring).toBe(1);
    expect(t.byState).toEqual(
      expect.arrayContaining([
        { state: "working", count: 3 },
        { state: "deleted", count: 1 },
      ]),
    );
    const theirs = await h.call("POST", "/api/v1/iotcard/traffic", { form: {}, token: stranger });
    expect(theirs.body.hwdata.cards).toBe(0);
  });

  it("refuses a malformed ICCID with the field's message in both languages", async () => {
    for (const [lang, msg] of [
      ["en", "An ICCID is 19-20 digits or letters"],
      ["cn", "ICCID 为 19-20 位数字或字母"],
    ] as const) {
      const res = await h.call("GET", "/api/v1/iotcard/info?iccid=12345", { token: owner, lang });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        hwcode: HW.BAD_REQUEST.code,
        msg,
        hwdata: { field: "iccid" },
      });
    }
    const state = await list(owner, { state: "broken" });
    expect(state.body).toMatchObject({
      hwcode: HW.BAD_REQUEST.code,
      msg: "Unknown IoT card state",
    });
    const noToken = await h.call("POST", "/api/iotcard/iotCard/getIotCard", { form: {} });
    expect(noToken.status).toBe(401);
  });
});

describe("IoT cards on China Mobile OneLink", () => {
  const ACCOUNT = { appid: "200216378200200", password: "onelink-pass" };
  const ICCID = "898604B30522D0395436";
  let one: Harness;
  let standIn: Awaited<ReturnType<typeof startOneLinkStandIn>>;
  let token: string;
  let device: { id: number; code: string };

  beforeAll(async () => {
    standIn = await startOneLinkStandIn(ACCOUNT);
    standIn.cards.set(ICCID, {
      msisdn: "1440412345678",
      imsi: "460040123456789",
      activeDate: "2025-03-14 10:13:44",
      cardStatus: "2",
      offeringId: "I00010101234",
      offeringName: "物联网 1GB 月包",
      totalAmount: 1024 * 1024,
      // 5 % left: low traffic.
      useAmount: 996_148,
      expiriedDate: "20271231235959",
    });
    one = await createHarness({
      config: {
        IOT_CARRIER: "onelink",
        ONELINK_APPID: ACCOUNT.appid,
        ONELINK_PASSWORD: ACCOUNT.password,
        ONELINK_ENDPOINT: standIn.endpoint,
      },
    });
    await seedDemo(one.app.services.accounts);
    const ops = await one.login("operator@keyway.local", "operator123");
    token = await one.signUp("plant@example.com");
    const [d] = (
      await one.call("POST", "/api/operator/v1/devices/provision", {
        form: { count: 1 },
        token: ops,
      })
    ).body.hwdata.list as ProvisionedDevice[];
    const added = await one.call("POST", "/api/machine/add", {
      form: { machineName: "Boiler", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token,
    });
    device = { id: added.body.hwdata.machine_id, code: d.machineCode };
    await one.app.services.gateway.ingest.handleUplink(
      device,
      "state",
      Buffer.from(JSON.stringify({ state: "online", iccid: ICCID.toLowerCase() })),
    );
  });
  afterAll(async () => {
    await one?.close();
    await standIn?.close();
  });

  const warnings = () =>
    one.db
      .select()
      .from(alarms)
      .where(and(eq(alarms.deviceId, device.id), eq(alarms.type, "iotCardTraffic")));

  it("reads the card from OneLink, and its low traffic becomes one alarm, cleared after a top-up", async () => {
    expect(await one.app.services.iotCards.refreshDue()).toBe(1);
    const res = await one.call("GET", `/api/v1/iotcard/info?iccid=${ICCID}`, { token });
    expect(res.body.hwdata.card).toMatchObject({
      iccid: ICCID,
      carrier: "onelink",
      msisdn: "1440412345678",
      card_state: "working",
      plan_name: "物联网 1GB 月包",
      total_kb: 1024 * 1024,
      used_kb: 996_148,
      low_traffic: 1,
      expire_time: "2027-12-31T15:59:59.000Z",
    });
    expect(await warnings()).toHaveLength(1);
    // Read again on demand: the same condition, no second alarm.
    const again = await one.call("POST", "/api/v1/iotcard/refresh", {
      form: { iccid: ICCID },
      token,
    });
    expect(again.body.hwcode).toBe(0);
    expect(await warnings()).toHaveLength(1);

    // A top-up: the warning is cleared; running low again next month is a new condition.
    const card = standIn.cards.get(ICCID);
    if (!card) throw new Error("no card");
    card.useAmount = 100 * 1024;
    one.clock.advance(61 * 60_000);
    await one.call("POST", "/api/v1/iotcard/refresh", { form: { iccid: ICCID }, token });
    const [cleared] = await warnings();
    expect(cleared.clearedAt).not.toBeNull();
    card.useAmount = 1_000_000;
    one.clock.advance(15 * 86_400_000);
    expect(await one.app.services.iotCards.refreshDue()).toBe(1);
    expect(await warnings()).toHaveLength(2);

    // The carrier stops the card: state follows; the warning of a stopped card ends.
    card.cardStatus = "4";
    one.clock.advance(7 * 3_600_000);
    await one.app.services.iotCards.refreshDue();
    // A new session: days have passed on the test clock.
    token = await one.login("plant@example.com", "secret123");
    const stopped = await one.call("GET", `/api/v1/iotcard/info?iccid=${ICCID}`, { token });
    expect(stopped.body.hwdata.card.card_state).toBe("outOfService");
    expect((await warnings()).every((w) => w.clearedAt !== null)).toBe(true);
  });

  it("keeps the last figures when OneLink refuses, and says so on an on-demand read", async () => {
    standIn.revokeTokens();
    standIn.refuse({ status: "12999", message: "系统繁忙，请稍后再试" });
    try {
      one.clock.advance(2 * 3_600_000);
      const res = await one.call("POST", "/api/v1/iotcard/refresh", {
        form: { iccid: ICCID },
        token,
        lang: "en",
      });
      expect(res.body).toMatchObject({
        hwcode: HW.IOT_CARD_CARRIER_FAILED.code,
        msg: HW.IOT_CARD_CARRIER_FAILED.en,
        hwdata: { last_error: "refused:12999" },
      });
      const kept = await one.call("GET", `/api/v1/iotcard/info?iccid=${ICCID}`, { token });
      expect(kept.body.hwdata.card).toMatchObject({
        card_state: "outOfService",
        msisdn: "1440412345678",
        // A neutral code the page words in the user's language, never the carrier's text.
        last_error: "refused:12999",
      });
      expect(JSON.stringify(kept.body)).not.toContain("系统繁忙");
    } finally {
      standIn.refuse(null);
    }
  });

  it("marks a card OneLink does not know (12009) unknown, and reads it again only when due", async () => {
    const card = standIn.cards.get(ICCID);
    standIn.cards.delete(ICCID);
    try {
      one.clock.advance(7 * 3_600_000);
      token = await one.login("plant@example.com", "secret123");
      expect(await one.app.services.iotCards.refreshDue()).toBe(1);
      const res = await one.call("GET", `/api/v1/iotcard/info?iccid=${ICCID}`, { token });
      expect(res.body.hwdata.card).toMatchObject({ card_state: "unknown", last_error: "" });
      expect(res.body.hwdata.card.refreshed_at).not.toBeNull();
      // Not asked again every half hour: the next read is the regular one, hours later.
      const asked = standIn.calls.length;
      one.clock.advance(31 * 60_000);
      expect(await one.app.services.iotCards.refreshDue()).toBe(0);
      expect(standIn.calls.length).toBe(asked);
    } finally {
      if (card) standIn.cards.set(ICCID, card);
    }
  });
});
