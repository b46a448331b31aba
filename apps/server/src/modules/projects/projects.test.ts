import { HW, PROJECT_REPORT_COUNT_WEIGHT } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { users } from "../accounts/schema.ts";
import { enterprises } from "../enterprises/schema.ts";
import { reportPoints } from "../reporting/schema.ts";

let h: Harness;
let operator: string;
let owner: string;
let colleague: string;
let stranger: string;
let colleagueId: number;
let ownerId: number;
const devices: Array<{ id: number; code: string }> = [];

const provision = (count: number) => h.provision(operator, count);

async function userId(token: string): Promise<number> {
  const res = await h.call("GET", "/api/user/selectInfo", { token });
  return res.body.hwdata.id;
}

/** The user's project switch (users.enable_project), as the operator sets it. */
const featureFor = (id: number, on: boolean) =>
  h.db.update(users).set({ enableProject: on }).where(eq(users.id, id));

const create = (token: string, form: Record<string, string | number> = {}) =>
  h.call("POST", "/api/project/add", {
    form: { name: "Line 3 packaging", description: "Bottling line", ...form },
    token,
    lang: "en",
  });

/** Two enterprises, projects off and on, with `account` in both as a `kind` member. */
async function enterprisesOffAndOn(name: string, account: string, kind: string) {
  const eids: number[] = [];
  for (const enableProject of [0, 1]) {
    const made = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: `${name} ${enableProject}`, enableProject },
      token: operator,
    });
    const eid = made.body.hwdata.eid as number;
    await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account, kind, isAdmin: 0 },
      token: operator,
    });
    eids.push(eid);
  }
  return eids;
}

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@plant.com");
  colleague = await h.signUp("colleague@plant.com");
  stranger = await h.signUp("stranger@example.com");
  ownerId = await userId(owner);
  colleagueId = await userId(colleague);
  // The project feature is a per-user switch (SPEC §6); these three have it.
  for (const id of [ownerId, colleagueId, await userId(stranger)]) await featureFor(id, true);
  for (const d of await provision(3))
    devices.push(await h.addDevice(owner, d, `HMI ${d.machineCode.slice(-3)}`));
});
afterAll(() => h.close());

describe("projects", () => {
  it("creates a project whose key is shown once, and lists it for its users only", async () => {
    const res = await create(owner, { report_state: 1, server: "https://mes.example.com/ingest" });
    expect(res.body.hwcode).toBe(0);
    const project = res.body.hwdata;
    expect(project).toMatchObject({
      name: "Line 3 packaging",
      description: "Bottling line",
      report_state: 1,
      server: "https://mes.example.com/ingest",
      limit_authority: 3,
      ownner: ownerId,
      user_length: 1,
      machine_length: 0,
      report_count: 0,
    });
    expect(project.secret_key).toMatch(/^[\w-]{32}$/);
    const again = await h.call("POST", "/api/project/get", {
      form: { id: project.id },
      token: owner,
    });
    expect(again.body.hwdata.secret_key).not.toBe(project.secret_key);
    expect(again.body.hwdata.secret_key).toMatch(/^\*+$/);

    const mine = await h.call("POST", "/api/project/get", { form: {}, token: owner });
    expect(mine.body.hwdata.list.map((p: { id: number }) => p.id)).toContain(project.id);
    // Someone outside sees nothing: not in the list, "does not exist" by id.
    const theirs = await h.call("POST", "/eapi/web/c/project/list", { form: {}, token: stranger });
    expect(theirs.body.hwdata.list).toEqual([]);
    const peek = await h.call("POST", "/eapi/web/c/project/info", {
      form: { id: project.id },
      token: stranger,
      lang: "en",
    });
    expect(peek.body).toMatchObject({
      hwcode: HW.PROJECT_NOT_FOUND.code,
      msg: HW.PROJECT_NOT_FOUND.en,
    });
  });

  it("refuses bad names, descriptions and servers with the field's message", async () => {
    const long = await create(owner, { name: "x".repeat(21) });
    expect(long.body).toMatchObject({ hwcode: 400, msg: "Project names are 1-20 characters" });
    const empty = await create(owner, { name: " " });
    expect(empty.body.hwcode).toBe(400);
    const desc = await create(owner, { description: "d".repeat(51) });
    expect(desc.body.msg).toBe("The project description can be at most 50 characters");
    const server = await create(owner, { server: "ftp://files.example.com" });
    expect(server.body.msg).toMatch(/mqtt:\/\//);
    const zh = await h.call("POST", "/api/project/add", {
      form: { name: "x".repeat(21) },
      token: owner,
      lang: "cn",
    });
    expect(zh.body.msg).toBe("项目名称为 1-20 个字符");
  });

  it("adds users by account; the SPEC's codes for duplicates and unknown accounts", async () => {
    const { body } = await create(owner, { name: "People" });
    const id = body.hwdata.id;
    const add = await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
    });
    expect(add.body.hwdata).toMatchObject({
      user_id: colleagueId,
      email: "colleague@plant.com",
      limit_authority: 2,
    });
    const twice = await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
      lang: "en",
    });
    expect(twice.body).toMatchObject({ hwcode: "08011007", msg: "User already in project" });
    const nobody = await h.call("POST", "/api/project/addUser", {
      form: { id, account: "13800000000", countryCode: "86" },
      token: owner,
      lang: "en",
    });
    expect(nobody.body).toMatchObject({ hwcode: "08011006", msg: "User does not exist" });
    const users = await h.call("POST", "/eapi/web/c/managerteam/members", {
      form: { id },
      token: colleague,
    });
    expect(
      users.body.hwdata.list.map((u: { limit_authority: number }) => u.limit_authority),
    ).toEqual([3, 2]);
    const seen = await h.call("POST", "/api/project/get", { form: { id }, token: colleague });
    expect(seen.body.hwdata).toMatchObject({ limit_authority: 2, user_length: 2 });
  });

  it("lets only the owner add users, transfer, reset the key or delete", async () => {
    const { body } = await create(owner, { name: "Owner only" });
    const id = body.hwdata.id;
    await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
    });
    const refused = [
      ["/api/project/addUser", { id, account: "stranger@example.com" }],
      ["/api/project/transfer", { id, transferUser: colleagueId }],
      ["/api/project/resetKey", { id }],
      ["/api/project/del", { id }],
      ["/api/project/edit", { id, report_state: 1 }],
      ["/api/project/addMachine", { id, machineId: devices[0].id }],
      ["/api/project/delUser", { id, delUserId: ownerId }],
    ] as const;
    for (const [url, form] of refused) {
      const res = await h.call("POST", url, { form, token: colleague, lang: "en" });
      expect(res.body, url).toMatchObject({
        hwcode: HW.PROJECT_NOT_OWNER.code,
        msg: "Only the project owner can do this",
      });
    }
    // A stranger is not told the project exists at all.
    const stranger403 = await h.call("POST", "/api/project/del", { form: { id }, token: stranger });
    expect(stranger403.body.hwcode).toBe(HW.PROJECT_NOT_FOUND.code);
    const still = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(still.body.hwcode).toBe(0);
  });

  it("counts machines: +1 length and +100000 report count each; a device in one project only", async () => {
    const { body } = await create(owner, { name: "Machines" });
    const id = body.hwdata.id;
    for (const d of devices.slice(0, 2)) {
      const res = await h.call("POST", "/api/project/addMachine", {
        form: { id, machineId: d.id },
        token: owner,
      });
      expect(res.body.hwdata).toMatchObject({
        machine_id: d.id,
        machine_code: d.code,
        name: "Machines",
        emq_project_id: id,
      });
    }
    let project = (await h.call("POST", "/api/project/get", { form: { id }, token: owner })).body
      .hwdata;
    expect(project).toMatchObject({
      machine_length: 2,
      report_count: 2 * PROJECT_REPORT_COUNT_WEIGHT,
      available_count: 2 * PROJECT_REPORT_COUNT_WEIGHT,
    });
    const other = (await create(owner, { name: "Other" })).body.hwdata.id;
    const taken = await h.call("POST", "/api/project/addMachine", {
      form: { id: other, machineId: devices[0].id },
      token: owner,
      lang: "en",
    });
    expect(taken.body).toMatchObject({
      hwcode: HW.PROJECT_MACHINE_TAKEN.code,
      msg: HW.PROJECT_MACHINE_TAKEN.en,
    });
    // A device the owner does not manage cannot be added.
    const [foreign] = await provision(1);
    const strangerDevice = await h.call("POST", "/api/machine/add", {
      form: {
        machineName: "Theirs",
        machineCode: foreign.machineCode,
        machinePwd: foreign.devicePassword,
      },
      token: stranger,
    });
    const notMine = await h.call("POST", "/api/project/addMachine", {
      form: { id, machineId: strangerDevice.body.hwdata.machine_id },
      token: owner,
    });
    expect(notMine.body.hwcode).toBe(HW.PROJECT_MACHINE_NOT_FOUND.code);

    const removed = await h.call("POST", "/api/project/delMachine", {
      form: { id, machineId: devices[0].id },
      token: owner,
    });
    expect(removed.body.hwcode).toBe(0);
    project = (await h.call("POST", "/api/project/get", { form: { id }, token: owner })).body
      .hwdata;
    expect(project).toMatchObject({ machine_length: 1, report_count: PROJECT_REPORT_COUNT_WEIGHT });
    const list = await h.call("POST", "/eapi/web/c/project/machine/list", {
      form: { id },
      token: owner,
    });
    expect(list.body.hwdata.list.map((m: { machine_id: number }) => m.machine_id)).toEqual([
      devices[1].id,
    ]);

    // Deleting the project frees its machines.
    expect(
      (await h.call("POST", "/api/project/del", { form: { id }, token: owner })).body.hwcode,
    ).toBe(0);
    const freed = await h.call("POST", "/api/project/addMachine", {
      form: { id: other, machineId: devices[1].id },
      token: owner,
    });
    expect(freed.body.hwcode).toBe(0);
    const gone = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(gone.body.hwcode).toBe(HW.PROJECT_NOT_FOUND.code);
  });

  it("transfers ownership (the target becomes 3, the old owner 2) and lets users quit", async () => {
    const { body } = await create(owner, { name: "Handover" });
    const id = body.hwdata.id;
    await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
    });
    const stays = await h.call("POST", "/api/project/delUser", {
      form: { id, delUserId: ownerId },
      token: owner,
      lang: "en",
    });
    expect(stays.body.hwcode).toBe(HW.PROJECT_OWNER_CANNOT_QUIT.code);
    const notUser = await h.call("POST", "/api/project/transfer", {
      form: { id, transferUser: 999_999 },
      token: owner,
    });
    expect(notUser.body.hwcode).toBe(HW.PROJECT_MEMBER_NOT_FOUND.code);
    // A personal project is open while its owner's switch is on: a target without it would
    // lock everyone out, so it is refused and nothing moves.
    await featureFor(colleagueId, false);
    const locked = await h.call("POST", "/api/project/transfer", {
      form: { id, transferUser: colleagueId },
      token: owner,
      lang: "en",
    });
    expect(locked.body).toMatchObject({
      hwcode: HW.PROJECT_TRANSFER_TARGET_DISABLED.code,
      msg: HW.PROJECT_TRANSFER_TARGET_DISABLED.en,
    });
    await featureFor(colleagueId, true);
    const kept = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(kept.body.hwdata).toMatchObject({ ownner: ownerId, limit_authority: 3 });
    const moved = await h.call("POST", "/api/project/transfer", {
      form: { id, transferUser: colleagueId },
      token: owner,
    });
    expect(moved.body.hwdata).toMatchObject({ ownner: colleagueId, limit_authority: 2 });
    const levels = await h.call("POST", "/api/project/getUser", { form: { id }, token: owner });
    expect(
      Object.fromEntries(
        levels.body.hwdata.list.map((u: { user_id: number; limit_authority: number }) => [
          u.user_id,
          u.limit_authority,
        ]),
      ),
    ).toEqual({ [colleagueId]: 3, [ownerId]: 2 });
    // The old owner is now an ordinary user: no key reset; the new owner may.
    const reset = await h.call("POST", "/api/project/resetKey", { form: { id }, token: owner });
    expect(reset.body.hwcode).toBe(HW.PROJECT_NOT_OWNER.code);
    const newKey = await h.call("POST", "/api/project/resetKey", {
      form: { id },
      token: colleague,
    });
    expect(newKey.body.hwdata.secret_key).toMatch(/^[\w-]{32}$/);
    // And the old owner may leave.
    const quit = await h.call("POST", "/api/project/delUser", {
      form: { id, delUserId: ownerId },
      token: owner,
    });
    expect(quit.body.hwcode).toBe(0);
    const after = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(after.body.hwcode).toBe(HW.PROJECT_NOT_FOUND.code);
  });

  it("edits report settings and shows the server with its delivery state to users", async () => {
    const { body } = await create(owner, { name: "Reporting" });
    const id = body.hwdata.id;
    const edited = await h.call("POST", "/api/project/edit", {
      form: {
        id,
        report_state: 1,
        server: "mqtts://broker.example.com:8883",
        interval: 2,
        enable_get_visit_url: 1,
      },
      token: owner,
    });
    expect(edited.body.hwdata).toMatchObject({
      report_state: 1,
      interval: 2,
      enable_get_visit_url: 1,
    });
    const server = await h.call("POST", "/api/project/getServer", { form: { id }, token: owner });
    expect(server.body.hwdata).toMatchObject({
      server: "mqtts://broker.example.com:8883",
      report_state: 1,
      interval: 2,
      delivery: { backlog: 0, delivered: 0, last_error: "" },
    });
    const badInterval = await h.call("POST", "/api/project/edit", {
      form: { id, interval: 25 },
      token: owner,
      lang: "en",
    });
    expect(badInterval.body).toMatchObject({
      hwcode: 400,
      msg: "The report interval is 0-24 hours",
    });
  });

  it("shows enterprise projects only when the enterprise has projects enabled", async () => {
    const [off, on] = await enterprisesOffAndOn("Plant", "owner@plant.com", "member");
    const disabled = await h.call("POST", "/api/project/get", {
      form: { eid: off, type: 1 },
      token: owner,
      lang: "en",
    });
    expect(disabled.body).toMatchObject({
      hwcode: HW.PROJECT_DISABLED.code,
      msg: HW.PROJECT_DISABLED.en,
    });
    const refused = await create(owner, { eid: off, type: 1 });
    expect(refused.body.hwcode).toBe(HW.PROJECT_DISABLED.code);
    const added = await create(owner, { eid: on, type: 1, name: "Plant project" });
    expect(added.body.hwdata).toMatchObject({ eid: on, type: 1 });
    const listed = await h.call("POST", "/api/project/get", {
      form: { eid: on, type: 1 },
      token: owner,
    });
    expect(listed.body.hwdata.list.map((p: { name: string }) => p.name)).toEqual(["Plant project"]);
    // Personal projects stay out of the enterprise list and the reverse.
    const personal = await h.call("POST", "/api/project/get", { form: {}, token: owner });
    expect(personal.body.hwdata.list.map((p: { name: string }) => p.name)).not.toContain(
      "Plant project",
    );
    // A member of the enterprise's other list (maintenance) does not see type 1.
    const outsider = await h.call("POST", "/api/project/get", {
      form: { eid: on, type: 1 },
      token: stranger,
    });
    expect(outsider.body.hwcode).toBe(HW.NO_PERMISSION.code);
  });
});

/** A device of the owner brought online for remote access (its agent's tunnel). */
async function online(device: { machineCode: string; deviceSecret: string }) {
  const auth = Buffer.from(`${device.machineCode}:${device.deviceSecret}`).toString("base64");
  const ws = await h.app.injectWS("/tunnel", { headers: { authorization: `Basic ${auth}` } });
  for (let i = 0; i < 50 && !h.app.services.tunnels.isOnline(await idOf(device)); i++)
    await new Promise((r) => setTimeout(r, 20));
  return ws;
}
const ids = new Map<string, number>();
const idOf = async (device: { machineCode: string }) => ids.get(device.machineCode) ?? 0;

describe("visit URLs through a project", () => {
  it("are refused with the switch off, with or without the project id; with it on a user gets one", async () => {
    const { body } = await create(owner, { name: "Visits" });
    const id = body.hwdata.id;
    const [issued] = await provision(1);
    const device = await h.addDevice(owner, issued, "Press");
    ids.set(issued.machineCode, device.id);
    await h.call("POST", "/api/project/addMachine", {
      form: { id, machineId: device.id },
      token: owner,
    });
    await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
    });
    const ws = await online(issued);
    try {
      const visit = (form: Record<string, number>, token = owner) =>
        h.call("POST", "/eapi/web/c/machine/getVisitUrl", {
          form: { machineId: device.id, ...form },
          token,
          lang: "en",
        });
      // Off: the Akey is refused too, also when the request leaves the project out.
      for (const form of [{ id }, {}] as Record<string, number>[]) {
        const off = await visit(form);
        expect(off.body).toMatchObject({
          hwcode: HW.PROJECT_VISIT_DISABLED.code,
          msg: HW.PROJECT_VISIT_DISABLED.en,
        });
      }
      const zh = await h.call("POST", "/eapi/web/c/machine/getVisitUrl", {
        form: { machineId: device.id },
        token: owner,
        lang: "cn",
      });
      expect(zh.body.msg).toBe(HW.PROJECT_VISIT_DISABLED.zh);

      await h.call("POST", "/api/project/edit", {
        form: { id, enable_get_visit_url: 1 },
        token: owner,
      });
      for (const form of [{ id }, {}] as Record<string, number>[]) {
        const on = await visit(form);
        expect(on.body.hwcode).toBe(0);
        expect(on.body.hwdata).toMatchObject({ machine_id: device.id, online: true, role: "akey" });
        expect(on.body.hwdata.url).toMatch(/^http/);
      }
      // The switch opens the project's door, not the device: a user without a right on the
      // device itself still has to apply (the access workflow's refusal, not a URL).
      const noRight = await visit({ id }, colleague);
      expect(noRight.body.hwcode).not.toBe(0);
      expect(noRight.body.hwcode).not.toBe(HW.PROJECT_VISIT_DISABLED.code);
      // Someone outside the project is not told it exists, with or without its id.
      for (const form of [{ id }, {}] as Record<string, number>[]) {
        const outside = await visit(form, stranger);
        expect(outside.body.hwcode).toBe(HW.PROJECT_NOT_FOUND.code);
      }
      const wrongProject = await visit({ id, machineId: devices[1].id });
      expect(wrongProject.body.hwcode).toBe(HW.PROJECT_MACHINE_NOT_FOUND.code);
    } finally {
      ws.terminate();
    }
  });
});

describe("every call and its refusals", () => {
  it("getMachine lists the machines; the owner removes a user (user_length drops), twice 08011102", async () => {
    const { body } = await create(owner, { name: "Calls" });
    const id = body.hwdata.id;
    const [issued] = await provision(1);
    const device = await h.addDevice(owner, issued, "Mixer");
    await h.call("POST", "/api/project/addMachine", {
      form: { id, machineId: device.id },
      token: owner,
    });
    await h.call("POST", "/api/project/addUser", {
      form: { id, account: "colleague@plant.com" },
      token: owner,
    });
    const machines = await h.call("POST", "/api/project/getMachine", {
      form: { id },
      token: colleague,
    });
    expect(machines.body.hwdata).toMatchObject({
      total: 1,
      list: [
        { machine_id: device.id, machine_code: device.code, emq_project_id: id, name: "Calls" },
      ],
    });
    // A level-2 user cannot remove a machine.
    const notOwner = await h.call("POST", "/api/project/delMachine", {
      form: { id, machineId: device.id },
      token: colleague,
      lang: "en",
    });
    expect(notOwner.body).toMatchObject({
      hwcode: HW.PROJECT_NOT_OWNER.code,
      msg: HW.PROJECT_NOT_OWNER.en,
    });
    expect(
      (await h.call("POST", "/api/project/get", { form: { id }, token: owner })).body.hwdata
        .machine_length,
    ).toBe(1);

    expect(
      (await h.call("POST", "/api/project/get", { form: { id }, token: owner })).body.hwdata
        .user_length,
    ).toBe(2);
    const removed = await h.call("POST", "/api/project/delUser", {
      form: { id, delUserId: colleagueId },
      token: owner,
    });
    expect(removed.body.hwcode).toBe(0);
    const after = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(after.body.hwdata.user_length).toBe(1);
    const twice = await h.call("POST", "/api/project/delUser", {
      form: { id, delUserId: colleagueId },
      token: owner,
      lang: "en",
    });
    expect(twice.body).toMatchObject({
      hwcode: "08011102",
      msg: HW.PROJECT_MEMBER_NOT_FOUND.en,
    });
    // The removed user no longer sees it.
    const gone = await h.call("POST", "/api/project/getMachine", {
      form: { id },
      token: colleague,
    });
    expect(gone.body.hwcode).toBe(HW.PROJECT_NOT_FOUND.code);
  });

  it("a non-member is told the project does not exist, on every read and write", async () => {
    const { body } = await create(owner, { name: "Private" });
    const id = body.hwdata.id;
    const calls = [
      ["/api/project/get", { id }],
      ["/eapi/web/c/project/info", { id }],
      ["/api/project/getUser", { id }],
      ["/eapi/web/c/managerteam/members", { id }],
      ["/api/project/getMachine", { id }],
      ["/eapi/web/c/project/machine/list", { id }],
      ["/api/project/getServer", { id }],
      ["/api/project/edit", { id, name: "Mine now" }],
      ["/api/project/delMachine", { id, machineId: devices[0].id }],
      ["/eapi/web/c/machine/getVisitUrl", { id, machineId: devices[0].id }],
    ] as const;
    for (const [url, form] of calls) {
      const res = await h.call("POST", url, { form, token: stranger, lang: "en" });
      expect(res.body, url).toMatchObject({
        hwcode: HW.PROJECT_NOT_FOUND.code,
        msg: HW.PROJECT_NOT_FOUND.en,
      });
    }
    const still = await h.call("POST", "/api/project/get", { form: { id }, token: owner });
    expect(still.body.hwdata.name).toBe("Private");
  });

  it("maintenance projects (type 2) need the enterprise's enableProject too", async () => {
    const [off, on] = await enterprisesOffAndOn("Service", "colleague@plant.com", "maintenance");
    const listed = await h.call("POST", "/eapi/web/c/project/list", {
      form: { eid: off, type: 2 },
      token: colleague,
      lang: "en",
    });
    expect(listed.body).toMatchObject({
      hwcode: HW.PROJECT_DISABLED.code,
      msg: HW.PROJECT_DISABLED.en,
    });
    expect((await create(colleague, { eid: off, type: 2 })).body.hwcode).toBe(
      HW.PROJECT_DISABLED.code,
    );
    const added = await create(colleague, { eid: on, type: 2, name: "Service round" });
    expect(added.body.hwdata).toMatchObject({ eid: on, type: 2, limit_authority: 3 });
    // The enterprise's projects are switched off (no operator edit call yet: the table, as
    // the operator's back office would): the project is closed to its users.
    await h.db.update(enterprises).set({ enableProject: false }).where(eq(enterprises.id, on));
    const refused = await h.call("POST", "/api/project/getServer", {
      form: { id: added.body.hwdata.id },
      token: colleague,
    });
    expect(refused.body.hwcode).toBe(HW.PROJECT_DISABLED.code);
  });
});

describe("the personal project switch (users.enable_project)", () => {
  it("gates personal projects: no list, no new project, and the owner's projects close", async () => {
    const token = await h.signUp("noproject@plant.com");
    const id = await userId(token);
    const list = await h.call("POST", "/api/project/get", { form: {}, token, lang: "en" });
    expect(list.body).toMatchObject({
      hwcode: HW.PROJECT_DISABLED_PERSONAL.code,
      msg: "Projects are not enabled for your account",
    });
    const zh = await create(token, {});
    expect(zh.body.hwcode).toBe(HW.PROJECT_DISABLED_PERSONAL.code);
    const cn = await h.call("POST", "/api/project/add", {
      form: { name: "Mine" },
      token,
      lang: "cn",
    });
    expect(cn.body.msg).toBe("您的账号未开通项目功能");

    await featureFor(id, true);
    const made = await create(token, { name: "Switched on" });
    expect(made.body.hwcode).toBe(0);
    await h.call("POST", "/api/project/addUser", {
      form: { id: made.body.hwdata.id, account: "colleague@plant.com" },
      token,
    });
    const seen = await h.call("POST", "/api/project/get", { form: {}, token: colleague });
    expect(seen.body.hwdata.list.map((p: { name: string }) => p.name)).toContain("Switched on");
    // Switched off again: the owner's project is closed to its users as well.
    await featureFor(id, false);
    const hidden = await h.call("POST", "/api/project/get", { form: {}, token: colleague });
    expect(hidden.body.hwdata.list.map((p: { name: string }) => p.name)).not.toContain(
      "Switched on",
    );
    const byId = await h.call("POST", "/api/project/getUser", {
      form: { id: made.body.hwdata.id },
      token: colleague,
    });
    expect(byId.body.hwcode).toBe(HW.PROJECT_DISABLED_PERSONAL.code);
  });
});

describe("report servers", () => {
  it("must be https:// or mqtts://; http:// and mqtt:// only on this machine", async () => {
    for (const server of ["http://mes.example.com/ingest", "mqtt://broker.example.com:1883"]) {
      const en = await create(owner, { server });
      expect(en.body, server).toMatchObject({
        hwcode: 400,
        msg: "The report server must be an mqtts:// or https:// address (mqtt:// and http:// only on this machine)",
      });
      const zh = await h.call("POST", "/api/project/add", {
        form: { name: "Plain", server },
        token: owner,
        lang: "cn",
      });
      expect(zh.body.msg).toBe(
        "上报服务器须为 mqtts:// 或 https:// 地址（mqtt:// 与 http:// 仅限本机）",
      );
    }
    const { body } = await create(owner, { name: "TLS" });
    const edit = await h.call("POST", "/api/project/edit", {
      form: { id: body.hwdata.id, server: "http://10.0.0.5/ingest" },
      token: owner,
    });
    expect(edit.body.hwcode).toBe(400);
    for (const server of [
      "https://mes.example.com/ingest",
      "mqtts://broker.example.com:8883/plant",
      "http://127.0.0.1:8080/ingest",
      "http://localhost:8080/ingest",
      "mqtt://[::1]:1883",
    ]) {
      const ok = await h.call("POST", "/api/project/edit", {
        form: { id: body.hwdata.id, server },
        token: owner,
      });
      expect(ok.body.hwdata?.server, server).toBe(server);
    }
  });
});

describe("a device leaving its owner's hands leaves the project", () => {
  async function reportingProject(name: string, machineIds: number[]) {
    const { body } = await create(owner, {
      name,
      report_state: 1,
      server: "https://mes.example.com/ingest",
    });
    for (const machineId of machineIds)
      await h.call("POST", "/api/project/addMachine", {
        form: { id: body.hwdata.id, machineId },
        token: owner,
      });
    return body.hwdata.id as number;
  }
  const data = (device: { id: number; code: string }, n: number) =>
    h.app.services.gateway.ingest.handleUplink(
      device,
      "data",
      Buffer.from(JSON.stringify({ time: Date.parse("2026-11-21T08:00:00Z") + n, values: { n } })),
    );
  const queued = async (projectId: number) =>
    (await h.db.select().from(reportPoints).where(eq(reportPoints.projectId, projectId))).map(
      (p) => p.deviceId,
    );
  const project = async (id: number) =>
    (await h.call("POST", "/api/project/get", { form: { id }, token: owner })).body.hwdata;

  it("when its Akey deletes (unbinds) it: counters drop, queued points go, no more are queued", async () => {
    const [a, b] = await provision(2);
    const kept = await h.addDevice(owner, a, "Kept");
    const unbound = await h.addDevice(owner, b, "Unbound");
    const id = await reportingProject("Unbind", [kept.id, unbound.id]);
    await data(kept, 1);
    await data(unbound, 2);
    expect(await queued(id)).toEqual([kept.id, unbound.id]);
    expect(await project(id)).toMatchObject({
      machine_length: 2,
      report_count: 2 * PROJECT_REPORT_COUNT_WEIGHT,
    });

    const del = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: unbound.id },
      token: owner,
    });
    expect(del.body.hwcode).toBe(0);
    expect(await project(id)).toMatchObject({
      machine_length: 1,
      report_count: PROJECT_REPORT_COUNT_WEIGHT,
    });
    const server = await h.call("POST", "/api/project/getServer", { form: { id }, token: owner });
    expect(server.body.hwdata.delivery.backlog).toBe(1);
    expect(await queued(id)).toEqual([kept.id]);
    await data(unbound, 3);
    expect(await queued(id)).toEqual([kept.id]);
    // Bound again by someone else, it is theirs to put in a project.
    const other = await h.addDevice(stranger, b, "Theirs now");
    const theirs = await h.call("POST", "/api/project/add", {
      form: { name: "New owner" },
      token: stranger,
    });
    const added = await h.call("POST", "/api/project/addMachine", {
      form: { id: theirs.body.hwdata.id, machineId: other.id },
      token: stranger,
    });
    expect(added.body.hwcode).toBe(0);
  });

  it("when the operator takes it out of the enterprise's list", async () => {
    const eid = (
      await h.call("POST", "/api/operator/v1/enterprises", {
        form: { name: "Leaving plant", enableProject: 1 },
        token: operator,
      })
    ).body.hwdata.eid as number;
    await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: "owner@plant.com", kind: "member", isAdmin: 0 },
      token: operator,
    });
    const [a, b] = await provision(2);
    const placed: Array<{ id: number; code: string }> = [];
    for (const d of [a, b]) {
      const res = await h.call("POST", "/api/enterprises/v1/admin/devices", {
        form: { eid, machineCode: d.machineCode, type: 1 },
        token: operator,
      });
      expect(res.body.hwcode).toBe(0);
      placed.push({ id: res.body.hwdata.machine_id, code: d.machineCode });
    }
    const made = await create(owner, {
      eid,
      type: 1,
      name: "Plant report",
      report_state: 1,
      server: "https://mes.example.com/ingest",
    });
    const id = made.body.hwdata.id;
    for (const d of placed)
      expect(
        (
          await h.call("POST", "/api/project/addMachine", {
            form: { id, machineId: d.id },
            token: owner,
          })
        ).body.hwcode,
      ).toBe(0);
    await data(placed[0], 1);
    await data(placed[1], 2);
    const out = await h.call("DELETE", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineId: placed[1].id, type: 1 },
      token: operator,
    });
    expect(out.body.hwcode).toBe(0);
    expect(await project(id)).toMatchObject({
      machine_length: 1,
      report_count: PROJECT_REPORT_COUNT_WEIGHT,
    });
    expect(await queued(id)).toEqual([placed[0].id]);
    await data(placed[1], 3);
    expect(await queued(id)).toEqual([placed[0].id]);
    const list = await h.call("POST", "/api/project/getMachine", { form: { id }, token: owner });
    expect(list.body.hwdata.list.map((m: { machine_id: number }) => m.machine_id)).toEqual([
      placed[0].id,
    ]);
  });
});
