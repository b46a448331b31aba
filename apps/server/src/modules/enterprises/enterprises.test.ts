import { type DeviceListPage, HW, type ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

let h: Harness;
let operator: string;
let admin: string; // admin member of Acme
let member: string; // enterprise member of Acme
let maintainer: string; // maintenance member of Acme
let outsider: string;
let eid: number;
let own: ProvisionedDevice[]; // Acme's devices (type 1)
let serviced: ProvisionedDevice; // a device Acme maintains (type 2)

const provision = (count: number) => h.provision(operator, count);

const devicelist = (token: string, form: Record<string, string | number>) =>
  h.call<DeviceListPage>("POST", "/eapi/ent/c/manager/device/group/devicelist", {
    form: { page: 1, pageSize: 5000, ...form },
    token,
  });

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  admin = await h.signUp("admin@acme.com");
  member = await h.signUp("member@acme.com");
  maintainer = await h.signUp("service@acme.com");
  outsider = await h.signUp("outsider@example.com");

  const created = await h.call("POST", "/api/operator/v1/enterprises", {
    form: { name: "Acme Plastics", platformName: "Acme Cloud", enableProject: 1 },
    token: operator,
  });
  expect(created.body.hwcode).toBe(0);
  eid = created.body.hwdata.eid;
  for (const [account, kind, isAdmin] of [
    ["admin@acme.com", "member", 1],
    ["member@acme.com", "member", 0],
    ["service@acme.com", "maintenance", 0],
  ] as const) {
    const res = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account, kind, isAdmin },
      token: operator,
    });
    expect(res.body.hwcode).toBe(0);
  }
  own = await provision(3);
  [serviced] = await provision(1);
  for (const d of own) {
    const res = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: d.machineCode, type: 1 },
      token: operator,
    });
    expect(res.body.hwcode).toBe(0);
  }
  await h.call("POST", "/api/enterprises/v1/admin/devices", {
    form: { eid, machineCode: serviced.machineCode, type: 2 },
    token: operator,
  });
});
afterAll(() => h.close());

describe("enterprise records", () => {
  it("only the operator creates enterprises", async () => {
    const res = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Rogue Inc" },
      token: admin,
      lang: "en",
    });
    expect(res.body).toMatchObject({
      hwcode: "06010201",
      msg: "No access to the management interface",
    });
    const bad = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "X" },
      token: operator,
      lang: "en",
    });
    expect(bad.body).toMatchObject({ hwcode: 400, msg: "Enterprise names are 2-40 characters" });
    const list = await h.call("GET", "/api/operator/v1/enterprises?search=acme", {
      token: operator,
    });
    expect(list.body.hwdata).toMatchObject({
      total: 1,
      list: [{ eid, name: "Acme Plastics", enableProject: 1 }],
    });
  });

  it("lists the caller's enterprises with kinds and admin flag", async () => {
    const mine = await h.call("POST", "/api/enterprises/userEnterpriseList", { token: admin });
    expect(mine.body.hwdata.list).toEqual([
      {
        eid,
        name: "Acme Plastics",
        enableProject: 1,
        platformName: "Acme Cloud",
        applyLogoUrl: "",
        kinds: ["member"],
        isAdmin: 1,
      },
    ]);
    expect(
      (await h.call("POST", "/api/enterprises/userEnterpriseList", { token: maintainer })).body
        .hwdata.list[0].kinds,
    ).toEqual(["maintenance"]);
    expect(
      (await h.call("POST", "/api/enterprises/userEnterpriseList", { token: outsider })).body.hwdata
        .list,
    ).toEqual([]);
  });

  it("gives the record and permissions to members only; the logo lookup is open", async () => {
    const info = await h.call("GET", `/api/entportal/v1/enterprise/info?eid=${eid}`, {
      token: member,
    });
    expect(info.body.hwdata).toMatchObject({
      eid,
      name: "Acme Plastics",
      kinds: ["member"],
      isAdmin: 0,
    });
    const refused = await h.call("GET", `/api/entportal/v1/enterprise/info?eid=${eid}`, {
      token: outsider,
      lang: "en",
    });
    expect(refused.body).toMatchObject({ hwcode: 403, msg: "User has no permission" });
    // A missing enterprise is refused the same way: no probing for ids.
    expect(
      (await h.call("GET", "/api/entportal/v1/enterprise/info?eid=999999", { token: outsider }))
        .body.hwcode,
    ).toBe(403);
    const perm = await h.call("POST", "/api/enterprises/enterprisePermission", {
      form: { eid },
      token: maintainer,
    });
    expect(perm.body.hwdata).toMatchObject({
      canSeeEnterpriseDevices: false,
      canSeeMaintenanceDevices: true,
      isAdmin: 0,
    });
    const logo = await h.call("GET", `/eapi/o/getlogo?eid=${eid}`);
    expect(logo.body.hwdata).toEqual({
      name: "Acme Plastics",
      platformName: "Acme Cloud",
      applyLogoUrl: "",
    });
    expect(
      (await h.call("POST", "/api/enterprises/getLogo", { form: { eid: 999999 } })).body.hwcode,
    ).toBe(HW.ENTERPRISE_NOT_FOUND.code);
  });
});

describe("enterprise device lists", () => {
  it("shows enterprise devices to members and maintenance devices to the maintenance team", async () => {
    const members = await devicelist(member, { eid, type: 1 });
    expect(members.body.hwdata.total).toBe(3);
    expect(members.body.hwdata.list.map((m) => m.machine_code).sort()).toEqual(
      own.map((d) => d.machineCode).sort(),
    );
    expect(members.body.hwdata.list[0]).toMatchObject({ eid, limit_authority: 0 });
    const maintenance = await devicelist(maintainer, { eid, type: 2 });
    expect(maintenance.body.hwdata.list.map((m) => m.machine_code)).toEqual([serviced.machineCode]);

    expect((await devicelist(maintainer, { eid, type: 1 })).body.hwcode).toBe(403);
    expect((await devicelist(member, { eid, type: 2 })).body.hwcode).toBe(403);
    expect((await devicelist(outsider, { eid, type: 1 })).body.hwcode).toBe(403);
    expect((await devicelist(admin, { eid, type: 2 })).body.hwdata.total).toBe(1);
    const legacy = await h.call("POST", "/api/enterprises/enterpriseDeviceList", {
      form: { eid, page: 1, pageSize: 5000 },
      token: member,
    });
    expect(legacy.body.hwdata.total).toBe(3);
  });

  it("searches, pages and filters by group", async () => {
    const byCode = await devicelist(member, { eid, type: 1, search: own[1].machineCode.slice(-5) });
    expect(byCode.body.hwdata.list.map((m) => m.machine_code)).toEqual([own[1].machineCode]);
    const page = await devicelist(member, { eid, type: 1, page: 2, pageSize: 2 });
    expect(page.body.hwdata).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page.body.hwdata.list).toHaveLength(1);
    const past = await devicelist(member, { eid, type: 1, page: 3, pageSize: 2 });
    expect(past.body.hwdata).toMatchObject({ list: [], total: 3 });
    // Page by page, only this list's devices: no maintenance device, none of anyone else.
    const seen: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const one = await devicelist(member, { eid, type: 1, page: n, pageSize: 1 });
      seen.push(...one.body.hwdata.list.map((m) => m.machine_code));
      expect((await devicelist(outsider, { eid, type: 1, page: n, pageSize: 1 })).body.hwcode).toBe(
        403,
      );
    }
    expect(seen.sort()).toEqual(own.map((d) => d.machineCode).sort());
    for (const [lang, msg] of [
      ["en", "Wrong page number"],
      ["cn", "页码格式错误"],
    ] as const) {
      const tooBig = await h.call("POST", "/eapi/ent/c/manager/device/group/devicelist", {
        form: { eid, type: 1, page: 1, pageSize: 5001 },
        token: member,
        lang,
      });
      expect(tooBig.body).toMatchObject({ hwcode: 400, msg });
    }
    const groups = await h.call("POST", "/eapi/ent/c/manager/device/group/all", {
      form: { eid },
      token: member,
    });
    expect(groups.body.hwdata).toEqual({ list: [], total: 0 });
    expect(
      (await h.call("POST", "/api/enterprises/getAllGroup", { form: { eid }, token: outsider }))
        .body.hwcode,
    ).toBe(403);
  });

  it("gives machine info and personnel only for devices the viewer may see", async () => {
    const ownId = (await devicelist(member, { eid, type: 1 })).body.hwdata.list[0].machine_id;
    const servicedId = (await devicelist(maintainer, { eid, type: 2 })).body.hwdata.list[0]
      .machine_id;
    const info = await h.call("POST", "/api/enterprises/machineInfo", {
      form: { eid, machineId: ownId },
      token: member,
    });
    expect(info.body.hwdata).toMatchObject({ machine_id: ownId, eid });
    expect(
      (
        await h.call("POST", "/api/enterprises/machineInfo", {
          form: { eid, machineId: servicedId },
          token: member,
        })
      ).body.hwcode,
    ).toBe("04010412");
    expect(
      (
        await h.call("POST", "/api/enterprises/machineBaseInfo", {
          form: { eid, machineId: ownId },
          token: outsider,
        })
      ).body.hwcode,
    ).toBe(403);
    const people = await h.call("POST", "/api/enterprises/machinePersonnel", {
      form: { eid, machineId: ownId },
      token: member,
    });
    expect(people.body.hwdata.list.map((m: { account: string }) => m.account).sort()).toEqual([
      "admin@acme.com",
      "member@acme.com",
    ]);
    const team = await h.call("POST", "/api/enterprises/machineMaintenancePersonnel", {
      form: { eid, machineId: servicedId },
      token: maintainer,
    });
    expect(team.body.hwdata.list).toMatchObject([
      { account: "service@acme.com", kind: "maintenance" },
    ]);
    const teamList = await h.call("POST", "/eapi/ent/c/manager/maintain/getteammember", {
      form: { eid },
      token: member,
    });
    expect(teamList.body.hwdata.list).toHaveLength(1);
  });

  it("lets the maintenance team set a maintenance remark, and nobody else", async () => {
    const servicedId = (await devicelist(maintainer, { eid, type: 2 })).body.hwdata.list[0]
      .machine_id;
    const ok = await h.call("POST", "/api/enterprises/UpdateMaintenanceRemark", {
      form: { eid, machineId: servicedId, remark: "Filter changed 11/20" },
      token: maintainer,
    });
    expect(ok.body.hwcode).toBe(0);
    expect(
      (await devicelist(maintainer, { eid, type: 2 })).body.hwdata.list[0].maintenance_remark,
    ).toBe("Filter changed 11/20");
    const refused = await h.call("POST", "/api/enterprises/UpdateMaintenanceRemark", {
      form: { eid, machineId: servicedId, remark: "x" },
      token: member,
      lang: "en",
    });
    // An ordinary member does not see the maintenance device at all: "does not exist".
    expect(refused.body).toMatchObject({ hwcode: "04010412", msg: "Device does not exist" });
    const outsiderTry = await h.call("POST", "/api/enterprises/UpdateMaintenanceRemark", {
      form: { eid, machineId: servicedId, remark: "x" },
      token: outsider,
      lang: "en",
    });
    expect(outsiderTry.body).toMatchObject({ hwcode: 403, msg: "User has no permission" });

    // SPEC §5 remark: at most 50 characters.
    const fifty = "m".repeat(50);
    const atLimit = await h.call("POST", "/api/enterprises/UpdateMaintenanceRemark", {
      form: { eid, machineId: servicedId, remark: fifty },
      token: maintainer,
    });
    expect(atLimit.body.hwcode).toBe(0);
    const tooLong = await h.call("POST", "/api/enterprises/UpdateMaintenanceRemark", {
      form: { eid, machineId: servicedId, remark: `${fifty}m` },
      token: maintainer,
      lang: "en",
    });
    expect(tooLong.body).toMatchObject({
      hwcode: 400,
      msg: "The remark cannot exceed 50 characters",
    });
    expect(
      (await devicelist(maintainer, { eid, type: 2 })).body.hwdata.list[0].maintenance_remark,
    ).toBe(fifty);
  });
});

describe("online state of enterprise devices", () => {
  type StateList = { list: { machine_id: number; machine_code: string; state: number }[] };
  const states = (token: string, ids: number[]) =>
    h.call<StateList>("POST", "/api/machine/machineStates", {
      form: { machineIds: ids.join(",") },
      token,
    });

  it("answers for the devices of the caller's lists, and nothing for anyone else", async () => {
    const ownIds = (await devicelist(member, { eid, type: 1 })).body.hwdata.list.map(
      (m) => m.machine_id,
    );
    const servicedId = (await devicelist(maintainer, { eid, type: 2 })).body.hwdata.list[0]
      .machine_id;
    const all = [...ownIds, servicedId];
    const forMember = await states(member, all);
    expect(forMember.body.hwdata.list.map((s) => s.machine_id).sort()).toEqual([...ownIds].sort());
    const forMaintainer = await states(maintainer, all);
    expect(forMaintainer.body.hwdata.list.map((s) => s.machine_id)).toEqual([servicedId]);
    const forAdmin = await states(admin, all);
    expect(forAdmin.body.hwdata.list).toHaveLength(4);
    // The refusal: an outsider gets nothing for those ids, all of them or by code.
    expect((await states(outsider, all)).body.hwdata.list).toEqual([]);
    const outsiderAll = await h.call<StateList>("POST", "/api/machine/machineStates", {
      token: outsider,
    });
    expect(outsiderAll.body.hwdata.list).toEqual([]);
    const byCode = await h.call<StateList>("POST", "/api/machine/getMachineStates", {
      form: { machineCodes: own.map((d) => d.machineCode).join(",") },
      token: outsider,
    });
    expect(byCode.body.hwdata.list).toEqual([]);
    const one = (token: string, machineCode: string) =>
      h.call("POST", "/api/machine/getMachineState", { form: { machineCode }, token });
    expect((await one(member, own[1].machineCode)).body.hwdata).toEqual({
      state: 0,
      online: false,
    });
    expect((await one(outsider, own[1].machineCode)).body.hwcode).toBe("04010412");
    expect((await one(member, serviced.machineCode)).body.hwcode).toBe("04010412");
  });
});

describe("devices held by enterprises", () => {
  it("an enterprise device cannot be added personally, and a personal one cannot be assigned", async () => {
    const personal = await h.call("POST", "/api/machine/add", {
      form: {
        machineName: "Mine",
        machineCode: own[0].machineCode,
        machinePwd: own[0].devicePassword,
      },
      token: outsider,
    });
    expect(personal.body.hwcode).toBe("04010112");
    const [d] = await provision(1);
    await h.call("POST", "/api/machine/add", {
      form: { machineName: "Mine", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token: outsider,
    });
    const assign = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: d.machineCode, type: 1 },
      token: operator,
    });
    expect(assign.body.hwcode).toBe("04010112");
    // Maintaining a customer's personal device is fine.
    const maintain = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: d.machineCode, type: 2 },
      token: operator,
    });
    expect(maintain.body.hwcode).toBe(0);
  });

  it("refuses an unknown code, a device of another enterprise, and a non-operator", async () => {
    const other = (
      await h.call("POST", "/api/operator/v1/enterprises", {
        form: { name: "Other Co" },
        token: operator,
      })
    ).body.hwdata.eid;
    const unknown = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid: other, machineCode: "KW-00000-00000", type: 1 },
      token: operator,
    });
    expect(unknown.body.hwcode).toBe("04010102");
    const taken = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid: other, machineCode: own[0].machineCode, type: 1 },
      token: operator,
      lang: "en",
    });
    expect(taken.body).toMatchObject({
      hwcode: "06010401",
      msg: "The device already belongs to another enterprise",
    });
    const [d] = await provision(1);
    const byAdmin = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: d.machineCode, type: 1 },
      token: admin,
    });
    expect(byAdmin.body.hwcode).toBe("06010201");
  });

  it("takes a device back from an enterprise", async () => {
    const [d] = await provision(1);
    const assigned = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode: d.machineCode, type: 1 },
      token: operator,
    });
    const id = assigned.body.hwdata.machine_id;
    expect((await devicelist(member, { eid, type: 1 })).body.hwdata.total).toBe(4);
    const removed = await h.call("DELETE", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineId: id, type: 1 },
      token: operator,
    });
    expect(removed.body.hwcode).toBe(0);
    expect((await devicelist(member, { eid, type: 1 })).body.hwdata.total).toBe(3);
    expect(
      (
        await h.call("DELETE", "/api/enterprises/v1/admin/devices", {
          form: { eid, machineId: id, type: 1 },
          token: operator,
        })
      ).body.hwcode,
    ).toBe("04010412");
  });
});

describe("enterprise administration", () => {
  it("lets an enterprise admin manage members, and refuses other members", async () => {
    const list = await h.call("GET", `/api/enterprises/v1/admin/members?eid=${eid}`, {
      token: admin,
    });
    expect(list.body.hwdata.total).toBe(3);
    const byMember = await h.call("GET", `/api/enterprises/v1/admin/members?eid=${eid}`, {
      token: member,
      lang: "en",
    });
    expect(byMember.body).toMatchObject({
      hwcode: "06010201",
      msg: "No access to the management interface",
    });

    const newcomer = await h.signUp("new@acme.com");
    const add = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: "new@acme.com", kind: "member" },
      token: admin,
    });
    expect(add.body.hwcode).toBe(0);
    expect((await devicelist(newcomer, { eid, type: 1 })).body.hwdata.total).toBe(3);
    const dup = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: "new@acme.com", kind: "member" },
      token: admin,
    });
    expect(dup.body.hwcode).toBe("06010301");
    const ghost = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: "ghost@acme.com", kind: "member" },
      token: admin,
    });
    expect(ghost.body.hwcode).toBe(HW.ACCOUNT_NOT_FOUND.code);
    const badKind = await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid, account: "new@acme.com", kind: "boss" },
      token: admin,
    });
    expect(badKind.body.hwcode).toBe(400);

    const userId = (await h.call("GET", "/api/user/selectInfo", { token: newcomer })).body.hwdata
      .id;
    const remove = await h.call("DELETE", "/api/enterprises/v1/admin/members", {
      form: { eid, userId, kind: "member" },
      token: admin,
    });
    expect(remove.body.hwcode).toBe(0);
    expect((await devicelist(newcomer, { eid, type: 1 })).body.hwcode).toBe(403);
    const again = await h.call("DELETE", "/api/enterprises/v1/admin/members", {
      form: { eid, userId, kind: "member" },
      token: admin,
    });
    expect(again.body.hwcode).toBe("06010302");
  });

  it("lets the admin group devices, and the group filter follows", async () => {
    const group = await h.call("POST", "/api/enterprises/v1/admin/groups", {
      form: { eid, name: "Line 2" },
      token: admin,
    });
    expect(group.body.hwcode).toBe(0);
    const groupId = group.body.hwdata.id;
    expect(
      (
        await h.call("POST", "/api/enterprises/v1/admin/groups", {
          form: { eid, name: "Line 2" },
          token: admin,
        })
      ).body.hwcode,
    ).toBe("04011001");
    expect(
      (
        await h.call("POST", "/api/enterprises/v1/admin/groups", {
          form: { eid, name: "Nope" },
          token: member,
        })
      ).body.hwcode,
    ).toBe("06010201");
    const target = (await devicelist(member, { eid, type: 1 })).body.hwdata.list[0];
    const move = await h.call("PUT", "/api/enterprises/v1/admin/devices/group", {
      form: { eid, machineId: target.machine_id, type: 1, groupId },
      token: admin,
    });
    expect(move.body.hwcode).toBe(0);
    const filtered = await devicelist(member, { eid, type: 1, groupId });
    expect(filtered.body.hwdata.list).toMatchObject([
      { machine_id: target.machine_id, groups: groupId, group_name: "Line 2" },
    ]);
    const groups = await h.call("POST", "/eapi/ent/c/manager/device/group/all", {
      form: { eid },
      token: member,
    });
    expect(groups.body.hwdata.list).toEqual([{ id: groupId, name: "Line 2" }]);
    expect(
      (
        await h.call("DELETE", "/api/enterprises/v1/admin/groups", {
          form: { eid, id: groupId },
          token: admin,
        })
      ).body.hwcode,
    ).toBe("04011201");
    await h.call("PUT", "/api/enterprises/v1/admin/devices/group", {
      form: { eid, machineId: target.machine_id, type: 1, groupId: 0 },
      token: admin,
    });
    expect(
      (
        await h.call("DELETE", "/api/enterprises/v1/admin/groups", {
          form: { eid, id: groupId },
          token: admin,
        })
      ).body.hwcode,
    ).toBe(0);
  });

  it("lets the admin see both device lists in the admin centre", async () => {
    const devices1 = await h.call("GET", `/api/enterprises/v1/admin/devices?eid=${eid}&type=1`, {
      token: admin,
    });
    expect(devices1.body.hwdata.total).toBe(3);
    const devices2 = await h.call("GET", `/api/enterprises/v1/admin/devices?eid=${eid}&type=2`, {
      token: admin,
    });
    expect(devices2.body.hwdata.total).toBeGreaterThanOrEqual(1);
    expect(
      (
        await h.call("GET", `/api/enterprises/v1/admin/devices?eid=${eid}&type=1`, {
          token: maintainer,
        })
      ).body.hwcode,
    ).toBe("06010201");
  });
});
