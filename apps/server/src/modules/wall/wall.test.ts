import type { AlarmPayload } from "@keyway/protocol";
import { type ProvisionedDevice, VALIDATION_MESSAGES } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

/**
 * The TV-box device wall against the real app: a user's devices with their online state,
 * the alarms still to confirm and the newest alarm; an enterprise's wall for its members
 * only; and the refusals (no token, a bad eid, an outsider) in both languages.
 */

let h: Harness;
let operator: string;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
});
afterAll(async () => {
  await h?.close();
});

type Person = Awaited<ReturnType<Harness["person"]>>;

const person = (name: string) => h.person(name);

async function provision(): Promise<ProvisionedDevice> {
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  return res.body.hwdata.list[0];
}

async function ownedDevice(owner: Person, machineName: string) {
  const device = await provision();
  const added = await h.call("POST", "/api/machine/add", {
    form: { machineName, machineCode: device.machineCode, machinePwd: device.devicePassword },
    token: owner.token,
  });
  expect(added.body.hwcode).toBe(0);
  return { ...device, id: added.body.hwdata.machine_id as number };
}

/** What the device publishes, through the gateway's own rules. */
async function uplink(code: string, kind: "alarm" | "state", payload: object) {
  const ingest = h.app.services.gateway.ingest;
  const device = await ingest.identify(code);
  if (!device) throw new Error(`no device ${code}`);
  await ingest.handleUplink(device, kind, Buffer.from(JSON.stringify(payload)));
}

async function raise(code: string, alarm: Partial<AlarmPayload> & { id: string }) {
  await uplink(code, "alarm", {
    type: "raise",
    content: `Alarm ${alarm.id}`,
    level: 1,
    time: h.clock.now().getTime(),
    ...alarm,
  });
}

const wall = (
  token: string | undefined,
  form: Record<string, string | number> = {},
  lang?: "cn" | "en",
) => h.call("POST", "/api/v1/devices/wall", { form, token, lang });

describe("the device wall", () => {
  it("shows each of the user's devices with its alarms to confirm and the newest one", async () => {
    const owner = await person("Owner");
    const stranger = await person("Stranger");
    const press = await ownedDevice(owner, "Press");
    await ownedDevice(owner, "Oven");
    await raise(press.machineCode, { id: "p1", content: "Oil low", level: 1 });
    h.clock.advance(60_000);
    await raise(press.machineCode, { id: "p2", content: "Motor hot", level: 3 });

    const res = await wall(owner.token);
    expect(res.body.hwcode).toBe(0);
    expect(res.body.hwdata.total).toBe(2);
    const byName = Object.fromEntries(
      res.body.hwdata.list.map((t: { machine_name: string }) => [t.machine_name, t]),
    );
    expect(byName.Press).toMatchObject({
      machine_code: press.machineCode,
      unconfirmed: 2,
      latest_alarm: { content: "Motor hot", level: 3, confirmed: 0, cleared: 0 },
    });
    expect(byName.Oven).toMatchObject({ unconfirmed: 0, latest_alarm: null, online: false });

    // Confirming an alarm takes it off the count; the newest stays shown as confirmed.
    const alarms = await h.call("POST", "/api/v1/devices/alarmList", {
      form: { deviceCode: press.machineCode },
      token: owner.token,
    });
    const newest = alarms.body.hwdata.list[0];
    const confirmed = await h.call("PUT", "/api/v1/devices/alarms", {
      form: { id: newest.id, eid: 0 },
      token: owner.token,
    });
    expect(confirmed.body.hwcode).toBe(0);
    const after = (await wall(owner.token)).body.hwdata.list.find(
      (t: { machine_name: string }) => t.machine_name === "Press",
    );
    expect(after).toMatchObject({
      unconfirmed: 1,
      latest_alarm: { content: "Motor hot", confirmed: 1 },
    });

    // Another user's wall holds none of it.
    expect((await wall(stranger.token)).body.hwdata).toEqual({ list: [], total: 0 });
  });

  it("follows the device's online state", async () => {
    const owner = await person("Online");
    const line = await ownedDevice(owner, "Line");
    const ingest = h.app.services.gateway.ingest;
    const identity = await ingest.identify(line.machineCode);
    if (!identity) throw new Error("no device");
    const tile = async () => (await wall(owner.token)).body.hwdata.list[0];
    expect(await tile()).toMatchObject({ online: false, state: 0 });
    await ingest.setOnline(identity, true);
    expect(await tile()).toMatchObject({ online: true, state: 1 });
    await ingest.setOnline(identity, false);
    expect(await tile()).toMatchObject({ online: false, state: 0 });
  });

  it("shows an enterprise's devices to its members only", async () => {
    const member = await person("Member");
    const outsider = await person("Outsider");
    const created = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Wall Works" },
      token: operator,
    });
    const eid = created.body.hwdata.eid as number;
    const joined = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: member.email, kind: "member", isAdmin: 0 },
      token: operator,
    });
    expect(joined.body.hwcode).toBe(0);
    const device = await provision();
    const assigned = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: device.machineCode, type: 1 },
      token: operator,
    });
    expect(assigned.body.hwcode).toBe(0);
    await raise(device.machineCode, { id: "e1", content: "Door open" });

    const seen = await wall(member.token, { eid });
    expect(seen.body.hwdata.list).toHaveLength(1);
    expect(seen.body.hwdata.list[0]).toMatchObject({
      machine_code: device.machineCode,
      unconfirmed: 1,
      latest_alarm: { content: "Door open" },
    });
    // Their personal wall does not hold the enterprise's device.
    expect((await wall(member.token)).body.hwdata.total).toBe(0);

    expect((await wall(outsider.token, { eid }, "en")).body).toMatchObject({
      hwcode: 403,
      msg: "User has no permission",
    });
    expect((await wall(outsider.token, { eid }, "cn")).body).toMatchObject({
      hwcode: 403,
      msg: "用户没有权限",
    });
  });

  it("refuses a missing token and a bad context", async () => {
    const res = await wall(undefined);
    expect(res.status).toBe(401);
    expect(res.body.hwcode).toBe(113);
    const owner = await person("Badger");
    for (const eid of [-1, "abc"]) {
      const en = await wall(owner.token, { eid }, "en");
      expect(en.body).toMatchObject({ hwcode: 400, msg: VALIDATION_MESSAGES["v.id"].en });
      const zh = await wall(owner.token, { eid }, "cn");
      expect(zh.body).toMatchObject({ hwcode: 400, msg: VALIDATION_MESSAGES["v.id"].zh });
    }
    // An enterprise that does not exist is refused like one the user is not in.
    expect((await wall(owner.token, { eid: 999_999 }, "en")).body.hwcode).not.toBe(0);
  });
});
