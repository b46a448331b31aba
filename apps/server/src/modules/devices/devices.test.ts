import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type DeviceListPage,
  GROUP_LIMIT,
  HW,
  type Machine,
  type ProvisionedDevice,
} from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

let h: Harness;
let operator: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  alice = await h.signUp("alice@example.com");
  bob = await h.signUp("bob@example.com");
});
afterAll(() => h.close());

const provision = (count = 1, model = "") => h.provision(operator, count, model);

async function add(token: string, d: ProvisionedDevice, name = "Line 1 HMI", extra = {}) {
  return h.call<Machine>("POST", "/api/machine/add", {
    form: { machineName: name, machineCode: d.machineCode, machinePwd: d.devicePassword, ...extra },
    token,
  });
}

const listOf = async (token: string, form: Record<string, string | number> = {}) =>
  (await h.call<DeviceListPage>("POST", "/api/machine/select", { form, token })).body.hwdata;

describe("provisioning", () => {
  it("issues codes with a device secret and password to the operator only", async () => {
    const refused = await h.call("POST", "/api/operator/v1/devices/provision", {
      form: { count: 1 },
      token: alice,
      lang: "en",
    });
    expect(refused.body).toMatchObject({
      hwcode: HW.NO_MANAGEMENT_ACCESS.code,
      msg: "No access to the management interface",
    });
    const issued = await provision(3, "MT8071iE");
    expect(issued).toHaveLength(3);
    expect(new Set(issued.map((d) => d.machineCode)).size).toBe(3);
    for (const d of issued) {
      expect(d.machineCode).toMatch(/^KW-[0-9A-Z]{5}-[0-9A-Z]{5}$/);
      expect(d.deviceSecret.length).toBeGreaterThanOrEqual(40);
      expect(d.devicePassword).toMatch(/^[a-z0-9]{10}$/);
    }
    const registry = await h.call(
      "GET",
      `/api/operator/v1/devices?search=${issued[0].machineCode}`,
      {
        token: operator,
      },
    );
    expect(registry.body.hwdata).toMatchObject({
      total: 1,
      list: [{ machine_code: issued[0].machineCode, model: "MT8071iE", akey: null }],
    });
    expect(JSON.stringify(registry.body)).not.toContain(issued[0].devicePassword);
    const userRegistry = await h.call("GET", "/api/operator/v1/devices", { token: alice });
    expect(userRegistry.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
  });

  it("refuses a count out of range", async () => {
    const res = await h.call("POST", "/api/operator/v1/devices/provision", {
      form: { count: 0 },
      token: operator,
      lang: "en",
    });
    expect(res.body).toMatchObject({ hwcode: 400, msg: "The count must be 1-1000" });
  });

  it("provisions from the command line as CSV whose passwords add the devices", async () => {
    const saved = { dataDir: process.env.DATA_DIR, url: process.env.DATABASE_URL };
    process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), "kw-cli-"));
    delete process.env.DATABASE_URL;
    try {
      const lines: string[] = [];
      const code = await runCli(["devices", "provision", "--count", "2", "--model", "FX5U"], (l) =>
        lines.push(l),
      );
      expect(code).toBe(0);
      expect(lines[0]).toBe("machine_code,device_secret,device_password,model");
      expect(lines).toHaveLength(3);
      const [machineCode, secret, password, model] = lines[1].split(",");
      expect(machineCode).toMatch(/^KW-/);
      expect(secret.length).toBeGreaterThan(40);
      expect(password).toHaveLength(10);
      expect(model).toBe("FX5U");
      expect(await runCli(["devices", "provision", "--count", "x"], () => {})).toBe(64);
    } finally {
      process.env.DATA_DIR = saved.dataDir;
      if (saved.url) process.env.DATABASE_URL = saved.url;
    }
  });
});

describe("adding devices", () => {
  it("makes the first user to add a device its Akey; others are refused", async () => {
    const [d] = await provision(1, "MT8071iE");
    const res = await add(alice, d);
    expect(res.body.hwcode).toBe(0);
    expect(res.body.hwdata).toMatchObject({
      machine_code: d.machineCode,
      machine_name: "Line 1 HMI",
      limit_authority: 3,
      icon: "/icons/hmi.svg",
      state: 0,
    });
    const again = await add(bob, d, "Mine now", {});
    expect(again.body.hwcode).toBe("04010112");
    const twice = await add(alice, d);
    expect(twice.body.hwcode).toBe("04010112");
    // Someone with only the code learns it is owned, and may ask to visit or bind it.
    const codeOnly = await add(bob, d, "Mine now", { machinePwd: "not-the-password" });
    expect(codeOnly.body.hwcode).toBe("04010112");
    const registry = await h.call("GET", `/api/operator/v1/devices?search=${d.machineCode}`, {
      token: operator,
    });
    expect(registry.body.hwdata.list[0].akey).toBe("alice@example.com");
  });

  it("refuses an unknown code and a wrong device password", async () => {
    const unknown = await h.call("POST", "/api/machine/add", {
      form: { machineName: "Ghost", machineCode: "KW-00000-00000", machinePwd: "whatever" },
      token: alice,
    });
    expect(unknown.body.hwcode).toBe("04010102");
    const [d] = await provision();
    const wrong = await h.call("POST", "/api/machine/add", {
      form: { machineName: "Guess", machineCode: d.machineCode, machinePwd: "not-it" },
      token: alice,
      lang: "en",
    });
    expect(wrong.body).toMatchObject({
      hwcode: HW.DEVICE_PASSWORD_ERROR.code,
      msg: "Wrong device password",
    });
    // The code stays free for its real owner.
    expect((await add(bob, d)).body.hwcode).toBe(0);
  });

  it("accepts a lower-case code and refuses bad names and codes with localized messages", async () => {
    const [d] = await provision();
    const lower = await add(alice, { ...d, machineCode: d.machineCode.toLowerCase() }, "Boiler");
    expect(lower.body.hwcode).toBe(0);
    const cases: Array<[Record<string, string>, string]> = [
      [
        { machineName: "", machineCode: "KW-ABCDE-FGHJK", machinePwd: "x" },
        "The device name cannot be empty, contain special characters or exceed 20 characters",
      ],
      [
        { machineName: "<b>", machineCode: "KW-ABCDE-FGHJK", machinePwd: "x" },
        "The device name cannot be empty, contain special characters or exceed 20 characters",
      ],
      [
        { machineName: "a".repeat(21), machineCode: "KW-ABCDE-FGHJK", machinePwd: "x" },
        "The device name cannot be empty, contain special characters or exceed 20 characters",
      ],
      [
        { machineName: "Ok", machineCode: "bad code!", machinePwd: "x" },
        "Wrong machine code format",
      ],
    ];
    for (const [form, msg] of cases) {
      const res = await h.call("POST", "/api/machine/add", { form, token: alice, lang: "en" });
      expect(res.body).toMatchObject({ hwcode: 400, msg });
    }
  });

  it("answers 401 before judging the body when the token is missing", async () => {
    const res = await h.call("POST", "/api/machine/add", { form: { machineName: "" } });
    expect(res.status).toBe(401);
  });
});

describe("the personal list", () => {
  it("shows only the caller's own devices, with search and group filter", async () => {
    const carol = await h.signUp("carol@example.com");
    const dave = await h.signUp("dave@example.com");
    const [d1, d2, d3] = await provision(3, "S7-1200");
    const group = (
      await h.call("POST", "/api/device/v1/userGroup", { form: { name: "Packing" }, token: carol })
    ).body.hwdata;
    await add(carol, d1, "Press A", { machineGroupID: group.id });
    await add(carol, d2, "Press B");
    await add(dave, d3, "Dave PLC");

    const all = await listOf(carol);
    expect(all.total).toBe(2);
    expect(all.list.map((m) => m.machine_name).sort()).toEqual(["Press A", "Press B"]);
    expect(all.list.every((m) => m.icon === "/icons/plc.svg")).toBe(true);
    expect((await listOf(dave)).list.map((m) => m.machine_code)).toEqual([d3.machineCode]);

    expect((await listOf(carol, { search: "press b" })).list.map((m) => m.machine_name)).toEqual([
      "Press B",
    ]);
    expect((await listOf(carol, { search: d1.machineCode.slice(3, 8) })).list[0].machine_code).toBe(
      d1.machineCode,
    );
    const grouped = await listOf(carol, { groupId: group.id });
    expect(grouped.list).toMatchObject([
      { machine_name: "Press A", groups: group.id, group_name: "Packing" },
    ]);
    expect((await listOf(carol, { search: "%" })).total).toBe(0);
  });

  it("answers in pages: the first of 5000 by default, later pages, past the end, none of another user's", async () => {
    const erin = await h.signUp("erin.pages@example.com");
    const frank = await h.signUp("frank.pages@example.com");
    const issued = await provision(5, "FX5U");
    for (const [i, d] of issued.entries()) await add(erin, d, `Erin ${i + 1}`);
    const [franks] = await provision(1);
    await add(frank, franks, "Frank PLC");

    // An old client (the phone app) sends no page: the whole list as the first page.
    const whole = await listOf(erin);
    expect(whole).toMatchObject({ total: 5, page: 1, pageSize: 5000 });
    expect(whole.list.map((m) => m.machine_name)).toEqual([
      "Erin 5",
      "Erin 4",
      "Erin 3",
      "Erin 2",
      "Erin 1",
    ]);
    const second = await listOf(erin, { page: 2, pageSize: 2 });
    expect(second).toMatchObject({ total: 5, page: 2, pageSize: 2 });
    expect(second.list.map((m) => m.machine_name)).toEqual(["Erin 3", "Erin 2"]);
    expect((await listOf(erin, { page: 3, pageSize: 2 })).list.map((m) => m.machine_name)).toEqual([
      "Erin 1",
    ]);
    expect(await listOf(erin, { page: 4, pageSize: 2 })).toMatchObject({ list: [], total: 5 });
    expect(await listOf(erin, { page: 2, pageSize: 5 })).toMatchObject({ list: [], total: 5 });

    const seen = new Set<string>();
    for (let page = 1; page <= 6; page++) {
      for (const m of (await listOf(erin, { page, pageSize: 1 })).list) seen.add(m.machine_code);
    }
    expect(seen).toEqual(new Set(issued.map((d) => d.machineCode)));
    expect((await listOf(frank, { page: 1, pageSize: 1 })).list.map((m) => m.machine_code)).toEqual(
      [franks.machineCode],
    );
    expect(await listOf(frank, { page: 2, pageSize: 1 })).toMatchObject({ list: [], total: 1 });

    for (const [lang, msg] of [
      ["en", "Wrong page number"],
      ["cn", "页码格式错误"],
    ] as const) {
      // A page past any offset PostgreSQL can read is refused like a page of 0, not a 500.
      const pages: Record<string, number>[] = [
        { pageSize: 5001 },
        { page: 0 },
        { page: 4_503_599_627_370_480 },
      ];
      for (const form of pages) {
        const refused = await h.call("POST", "/api/machine/select", { form, token: erin, lang });
        expect(refused.body).toMatchObject({ hwcode: 400, msg });
      }
    }
  });

  it("keeps another user's device out of reach: detail, state, edit, delete", async () => {
    const [d] = await provision();
    const id = (await add(alice, d, "Alice only")).body.hwdata.machine_id;
    const detail = await h.call("GET", `/api/device/v1/detail?deviceId=${id}`, { token: bob });
    expect(detail.body.hwcode).toBe("04010412");
    const state = await h.call("POST", "/api/machine/getMachineState", {
      form: { machineCode: d.machineCode },
      token: bob,
    });
    expect(state.body.hwcode).toBe("04010412");
    const edit = await h.call("POST", "/api/machine/update", {
      form: { updateMachineID: id, updateMachineName: "Stolen" },
      token: bob,
    });
    expect(edit.body.hwcode).toBe("04010412");
    const del = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: id, isAkey: 0 },
      token: bob,
      lang: "en",
    });
    // Decision 18: someone else's device answers exactly like a missing one.
    const missing = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: 99999999, isAkey: 0 },
      token: bob,
      lang: "en",
    });
    expect(del.body).toEqual(missing.body);
    expect(del.body).toMatchObject({ hwcode: "040103010", msg: "Device already deleted" });
    expect((await listOf(alice)).list.some((m) => m.machine_id === id)).toBe(true);
    const role = await h.call("GET", `/api/device/v1/user/role/info?deviceId=${id}`, {
      token: bob,
    });
    expect(role.body.hwdata).toEqual({ limit_authority: 0, role: "none" });
    const mine = await h.call("GET", `/api/device/v1/detail?deviceId=${id}`, { token: alice });
    expect(mine.body.hwdata.machine_name).toBe("Alice only");
    const myRole = await h.call("GET", `/api/device/v1/user/role/info?deviceId=${id}`, {
      token: alice,
    });
    expect(myRole.body.hwdata).toEqual({ limit_authority: 3, role: "akey" });
    const myState = await h.call("POST", "/api/machine/getMachineState", {
      form: { machineCode: d.machineCode },
      token: alice,
    });
    expect(myState.body.hwdata).toEqual({ state: 0, online: false });
  });

  it("edits name, remark, alias and group, refusing a long remark", async () => {
    const [d] = await provision();
    const id = (await add(alice, d, "Old name")).body.hwdata.machine_id;
    const group = (
      await h.call("POST", "/api/device/v1/userGroup", { form: { name: "Edits" }, token: alice })
    ).body.hwdata;
    const res = await h.call<Machine>("POST", "/api/machine/update", {
      form: {
        updateMachineID: id,
        updateMachineName: "New name",
        updateMachineRemark: "Second floor, left",
        updateMachineAlias: "L2",
        updateMachineGroupID: group.id,
      },
      token: alice,
    });
    expect(res.body.hwdata).toMatchObject({
      machine_name: "New name",
      machine_remark: "Second floor, left",
      alias: "L2",
      groups: group.id,
    });
    const long = await h.call("POST", "/api/machine/update", {
      form: {
        updateMachineID: id,
        updateMachineName: "New name",
        updateMachineRemark: "x".repeat(51),
      },
      token: alice,
      lang: "en",
    });
    expect(long.body).toMatchObject({ hwcode: 400, msg: "The remark cannot exceed 50 characters" });

    // The list reads its rows its own way (flatRows.ts; on PGlite as JSON text): each field as
    // the detail shows it, also text that JSON must escape.
    const tricky = 'New "7" \\ 一号线\t😀 </script>';
    await h.call("POST", "/api/machine/update", {
      form: { updateMachineID: id, updateMachineName: "New name", updateMachineRemark: tricky },
      token: alice,
    });
    await h.call("POST", "/api/machine/machineManualLocation", {
      form: { machineId: id, lat: 31.2304, lng: 121.4737, address: "Shanghai plant" },
      token: alice,
    });
    const detail = (
      await h.call<Machine>("GET", `/api/device/v1/detail?deviceId=${id}`, { token: alice })
    ).body.hwdata;
    expect(detail).toMatchObject({
      machine_remark: tricky,
      group_name: "Edits",
      lat: 31.2304,
      locationWay: "manual",
    });
    expect(detail.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const filters: Record<string, string | number>[] = [
      {},
      { groupId: group.id },
      { search: "new NAME" },
    ];
    for (const form of filters) {
      const listed = (await listOf(alice, form)).list.find((m) => m.machine_id === id);
      expect(listed).toEqual(detail);
    }
    const foreignGroup = (
      await h.call("POST", "/api/device/v1/userGroup", { form: { name: "Bobs" }, token: bob })
    ).body.hwdata;
    const wrongGroup = await h.call("POST", "/api/machine/update", {
      form: {
        updateMachineID: id,
        updateMachineName: "New name",
        updateMachineGroupID: foreignGroup.id,
      },
      token: alice,
    });
    expect(wrongGroup.body.hwcode).toBe(HW.GROUP_NOT_FOUND.code);
  });

  it("deletes: the Akey unbinds the device so it can be added again", async () => {
    const [d] = await provision();
    const id = (await add(alice, d)).body.hwdata.machine_id;
    const del = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: id, isAkey: 1 },
      token: alice,
    });
    expect(del.body.hwcode).toBe(0);
    expect((await listOf(alice)).list.some((m) => m.machine_id === id)).toBe(false);
    const again = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: id, isAkey: 1 },
      token: alice,
    });
    expect(again.body.hwcode).toBe("040103010");
    const gone = await h.call("POST", "/api/machine/del", {
      form: { delMachineID: 99999999 },
      token: alice,
    });
    expect(gone.body.hwcode).toBe("040103010");
    expect((await add(bob, d)).body.hwdata.limit_authority).toBe(3);
  });
});

describe("edit machine codes (SPEC §8)", () => {
  it("answers 04010412, 04010406 and 040104011 each with its own message", async () => {
    const [d1, d2, foreign] = await provision(3);
    const id1 = (await add(alice, d1, "First")).body.hwdata.machine_id;
    await add(alice, d2, "Second");
    await add(bob, foreign, "Bobs");
    const edit = (form: Record<string, string | number>, lang: "en" | "cn" = "en") =>
      h.call<Machine>("POST", "/api/machine/update", {
        form: { updateMachineID: id1, updateMachineName: "Renamed", ...form },
        token: alice,
        lang,
      });

    // The code of the device itself (any case) is accepted.
    const same = await edit({ updateMachineCode: d1.machineCode.toLowerCase() });
    expect(same.body.hwdata.machine_name).toBe("Renamed");

    const notFound = await edit({ updateMachineID: 99999999 });
    expect(notFound.body).toMatchObject({ hwcode: "04010412", msg: "Device does not exist" });

    const other = await edit({ updateMachineCode: d2.machineCode, updateMachineName: "X" });
    expect(other.body).toMatchObject({
      hwcode: "04010406",
      msg: "Edit failed: this machine code belongs to another of your devices",
    });
    // Someone else's code and an unknown code look alike: "does not match".
    for (const code of [foreign.machineCode, "KW-00000-00000"]) {
      const mismatch = await edit({ updateMachineCode: code, updateMachineName: "X" });
      expect(mismatch.body).toMatchObject({
        hwcode: "040104011",
        msg: "Edit failed: the machine code does not match this device",
      });
    }
    const zh = await edit({ updateMachineCode: d2.machineCode }, "cn");
    expect(zh.body.msg).toBe("修改失败：该机器码属于您的另一台设备");
    // Refused edits changed nothing.
    const detail = await h.call<Machine>("GET", `/api/device/v1/detail?deviceId=${id1}`, {
      token: alice,
    });
    expect(detail.body.hwdata.machine_name).toBe("Renamed");
  });
});

describe("device detail page", () => {
  it("pages the caller's own devices in detail with the list's filters", async () => {
    const carol = await h.signUp("carol.pages@example.com");
    const issued = await provision(5, "MT8071iE");
    for (const [i, d] of issued.entries()) await add(carol, d, `Carol ${i + 1}`);
    await add(bob, (await provision(1))[0], "Not Carols");
    const page = (form: Record<string, string | number> | null) =>
      h.call<{ list: Machine[]; total: number; page: number; pageSize: number }>(
        "POST",
        "/api/device/v1/detail/page",
        form ? { form, token: carol } : { token: carol },
      );
    const first = await page({ page: 1, pageSize: 2 });
    expect(first.body.hwdata).toMatchObject({ total: 5, page: 1, pageSize: 2 });
    expect(first.body.hwdata.list.map((m) => m.machine_name)).toEqual(["Carol 5", "Carol 4"]);
    expect(first.body.hwdata.list[0]).toMatchObject({ model: "MT8071iE", limit_authority: 3 });
    const last = await page({ page: 3, pageSize: 2 });
    expect(last.body.hwdata.list.map((m) => m.machine_name)).toEqual(["Carol 1"]);
    const past = await page({ page: 9, pageSize: 2 });
    expect(past.body.hwdata).toMatchObject({ list: [], total: 5 });
    const all = await page(null);
    expect(all.body.hwdata).toMatchObject({ total: 5, page: 1, pageSize: 20 });
    expect(all.body.hwdata.list.some((m) => m.machine_name === "Not Carols")).toBe(false);
    const search = await page({ search: "carol 3" });
    expect(search.body.hwdata.list.map((m) => m.machine_name)).toEqual(["Carol 3"]);
    const tooBig = await page({ pageSize: 5001 });
    expect(tooBig.body.hwcode).toBe(400);
    const anonymous = await h.call("POST", "/api/device/v1/detail/page", { form: {} });
    expect(anonymous.status).toBe(401);
  });
});

describe("groups", () => {
  it("creates, renames, refuses duplicates, moves devices and deletes only when empty", async () => {
    const erin = await h.signUp("erin@example.com");
    const create = (name: string) =>
      h.call("POST", "/api/device/v1/userGroup", { form: { name }, token: erin, lang: "en" });
    const a = (await create("Hall A")).body.hwdata;
    expect(a).toMatchObject({ name: "Hall A", deviceCount: 0 });
    expect((await create("Hall A")).body).toMatchObject({
      hwcode: "04011001",
      msg: "The group already exists",
    });
    expect((await create("")).body.hwcode).toBe(400);
    expect((await create("x".repeat(11))).body.msg).toBe(
      "Group names are 1-10 characters without special characters",
    );
    const b = (await create("Hall B")).body.hwdata;
    const renameDup = await h.call("PUT", "/api/device/v1/userGroup", {
      form: { id: b.id, name: "Hall A" },
      token: erin,
    });
    expect(renameDup.body.hwcode).toBe("04011001");
    expect(
      (
        await h.call("PUT", "/api/device/v1/userGroup", {
          form: { id: b.id, name: "Hall C" },
          token: erin,
        })
      ).body.hwcode,
    ).toBe(0);

    const [d1, d2] = await provision(2);
    const m1 = (await add(erin, d1, "One")).body.hwdata;
    const m2 = (await add(erin, d2, "Two")).body.hwdata;
    const move = await h.call("PUT", "/api/device/v1/userGroup/move", {
      form: { groupId: a.id, deviceIds: `${m1.machine_id},${m2.machine_id}` },
      token: erin,
    });
    expect(move.body.hwcode).toBe(0);
    const groups = (await h.call("GET", "/api/device/v1/userGroup", { token: erin })).body.hwdata;
    expect(groups.list).toEqual([
      { id: a.id, name: "Hall A", deviceCount: 2 },
      { id: b.id, name: "Hall C", deviceCount: 0 },
    ]);
    const notEmpty = await h.call("DELETE", "/api/device/v1/userGroup", {
      form: { id: a.id },
      token: erin,
      lang: "en",
    });
    expect(notEmpty.body).toMatchObject({
      hwcode: "04011201",
      msg: "Please delete all devices first",
    });
    await h.call("PUT", "/api/device/v1/userGroup/move", {
      json: { groupId: 0, deviceIds: [m1.machine_id, m2.machine_id] },
      token: erin,
    });
    expect(
      (await h.call("DELETE", `/api/device/v1/userGroup?id=${a.id}`, { token: erin })).body.hwcode,
    ).toBe(0);
    expect(
      (await h.call("GET", "/api/device/v1/userGroup", { token: erin })).body.hwdata.total,
    ).toBe(1);
  });

  it("keeps groups private and refuses moving someone else's device", async () => {
    const frank = await h.signUp("frank@example.com");
    const group = (
      await h.call("POST", "/api/device/v1/userGroup", { form: { name: "Frank" }, token: frank })
    ).body.hwdata;
    for (const [method, form] of [
      ["PUT", { id: group.id, name: "Mine" }],
      ["DELETE", { id: group.id }],
    ] as const) {
      const res = await h.call(method, "/api/device/v1/userGroup", { form, token: alice });
      expect(res.body.hwcode).toBe(HW.GROUP_NOT_FOUND.code);
    }
    expect(
      (await h.call("GET", "/api/device/v1/userGroup", { token: alice })).body.hwdata.list.some(
        (g: { id: number }) => g.id === group.id,
      ),
    ).toBe(false);
    const [d] = await provision();
    const aliceDevice = (await add(alice, d)).body.hwdata;
    const move = await h.call("PUT", "/api/device/v1/userGroup/move", {
      form: { groupId: group.id, deviceIds: String(aliceDevice.machine_id) },
      token: frank,
    });
    expect(move.body.hwcode).toBe("04010412");
  });

  it("stops at the group limit", async () => {
    const gina = await h.signUp("gina@example.com");
    for (let i = 0; i < GROUP_LIMIT; i++) {
      const r = await h.call("POST", "/api/device/v1/userGroup", {
        form: { name: `G${i}` },
        token: gina,
      });
      expect(r.body.hwcode).toBe(0);
    }
    const over = await h.call("POST", "/api/device/v1/userGroup", {
      form: { name: "One more" },
      token: gina,
      lang: "en",
    });
    expect(over.body).toMatchObject({
      hwcode: "04011002",
      msg: "You have reached the upper limit of groups",
    });
  });
});

describe("machine type icons", () => {
  it("maps name patterns to images with a default, and serves the images", async () => {
    const res = await h.call("GET", "/api/internal/v1/icons");
    expect(res.body.hwdata.default).toMatchObject({ image: "/icons/device.svg" });
    const hmi = res.body.hwdata.list.find((i: { image: string }) => i.image === "/icons/hmi.svg");
    expect(new RegExp(hmi.pattern, "i").test("MT8071iE")).toBe(true);
    const svg = await h.app.inject({ method: "GET", url: "/icons/hmi.svg" });
    expect(svg.headers["content-type"]).toContain("image/svg+xml");
    expect(svg.body).toContain("<svg");
    expect((await h.app.inject({ method: "GET", url: "/icons/nope.svg" })).statusCode).toBe(404);
    const [d] = await provision(1, "unknown-model");
    expect((await add(alice, d, "Thing")).body.hwdata.icon).toBe("/icons/device.svg");
  });
});
