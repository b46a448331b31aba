import { HW, PROJECT_REPORT_COUNT_WEIGHT } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

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

const create = (token: string, form: Record<string, string | number> = {}) =>
  h.call("POST", "/api/project/add", {
    form: { name: "Line 3 packaging", description: "Bottling line", ...form },
    token,
    lang: "en",
  });

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@plant.com");
  colleague = await h.signUp("colleague@plant.com");
  stranger = await h.signUp("stranger@example.com");
  ownerId = await userId(owner);
  colleagueId = await userId(colleague);
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
        server: "mqtt://broker.example.com:1883",
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
      server: "mqtt://broker.example.com:1883",
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

  it("gives a visit URL through a project only when the project allows it", async () => {
    const { body } = await create(owner, { name: "Visits" });
    const id = body.hwdata.id;
    const [, , device] = devices;
    await h.call("POST", "/api/project/addMachine", {
      form: { id, machineId: device.id },
      token: owner,
    });
    const off = await h.call("POST", "/eapi/web/c/machine/getVisitUrl", {
      form: { id, machineId: device.id },
      token: owner,
      lang: "en",
    });
    expect(off.body).toMatchObject({
      hwcode: HW.PROJECT_VISIT_DISABLED.code,
      msg: HW.PROJECT_VISIT_DISABLED.en,
    });
    await h.call("POST", "/api/project/edit", {
      form: { id, enable_get_visit_url: 1 },
      token: owner,
    });
    const on = await h.call("POST", "/eapi/web/c/machine/getVisitUrl", {
      form: { id, machineId: device.id },
      token: owner,
    });
    // Past the project's switch, the visit itself still needs the device online.
    expect(on.body.hwcode).not.toBe(HW.PROJECT_VISIT_DISABLED.code);
    const wrongProject = await h.call("POST", "/eapi/web/c/machine/getVisitUrl", {
      form: { id, machineId: devices[1].id },
      token: owner,
    });
    expect(wrongProject.body.hwcode).toBe(HW.PROJECT_MACHINE_NOT_FOUND.code);
  });

  it("shows enterprise projects only when the enterprise has projects enabled", async () => {
    const made = async (enableProject: number) =>
      (
        await h.call("POST", "/api/operator/v1/enterprises", {
          form: { name: `Plant ${enableProject}`, enableProject },
          token: operator,
        })
      ).body.hwdata.eid as number;
    const [off, on] = [await made(0), await made(1)];
    for (const eid of [off, on])
      await h.call("POST", "/api/enterprises/v1/admin/members", {
        form: { eid, account: "owner@plant.com", kind: "member", isAdmin: 0 },
        token: operator,
      });
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
