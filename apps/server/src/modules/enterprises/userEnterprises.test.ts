import { ENTERPRISES_PER_USER, HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

/** Enterprises users create themselves, and the operator's per-brand switch. */
let h: Harness;
let operator: string;
let founder: string;
let colleague: string;
let other: string; // another tenant: a user with an enterprise of their own

const create = (token: string, form: Record<string, string | number>, lang: "cn" | "en" = "en") =>
  h.call("POST", "/api/enterprises/v1/create", { form, token, lang });

const setSwitch = (oemid: string, userEnterprises: 0 | 1) =>
  h.call("PUT", "/api/operator/v1/brandSettings", {
    json: { oemid, userEnterprises },
    token: operator,
  });

/** Signs up a user of a brand (the oemid of the registration). */
async function signUpFor(email: string, oemid: string) {
  const reg = await h.call("POST", "/api/user/v1/register", {
    form: { email, password: "secret123", name: "Brand user", oemid },
  });
  expect(reg.body.hwcode).toBe(0);
  await h.call("POST", "/api/user/activeAccount", {
    form: { activeAccount: email, SMSVerificationCode: await h.lastCode(email) },
  });
  return h.login(email, "secret123");
}

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  founder = await h.signUp("founder@startup.com");
  colleague = await h.signUp("colleague@startup.com");
  other = await h.signUp("boss@rival.com");
});
afterAll(() => h.close());

describe("a user creates an enterprise", () => {
  let eid: number;

  it("makes the creator its admin, with projects on, and lists it for them", async () => {
    const before = await h.call("GET", "/api/enterprises/v1/creation", { token: founder });
    expect(before.body.hwdata).toEqual({
      allowed: true,
      created: 0,
      limit: ENTERPRISES_PER_USER,
    });
    const made = await create(founder, { name: "  Startup Automation  ", enableProject: 1 });
    expect(made.body.hwcode).toBe(0);
    eid = made.body.hwdata.eid;
    expect(made.body.hwdata).toMatchObject({
      name: "Startup Automation",
      enableProject: 1,
      isAdmin: 1,
    });
    const mine = await h.call("POST", "/api/enterprises/userEnterpriseList", { token: founder });
    expect(mine.body.hwdata.list).toEqual([
      expect.objectContaining({ eid, name: "Startup Automation", enableProject: 1, isAdmin: 1 }),
    ]);
    // The operator sees it among all enterprises.
    const all = await h.call("GET", "/api/operator/v1/enterprises?search=startup", {
      token: operator,
    });
    expect(all.body.hwdata.list.map((e: { eid: number }) => e.eid)).toEqual([eid]);
  });

  it("lets the owner create a project in it and invite a member and a maintainer", async () => {
    const project = await h.call("POST", "/api/project/add", {
      form: { name: "Line 1", description: "", eid, type: 1 },
      token: founder,
    });
    expect(project.body.hwcode).toBe(0);
    for (const kind of ["member", "maintenance"]) {
      const added = await h.call("POST", "/api/enterprises/v1/admin/members", {
        form: { eid, account: "colleague@startup.com", kind, isAdmin: 0 },
        token: founder,
      });
      expect(added.body.hwcode).toBe(0);
    }
    const theirs = await h.call("POST", "/api/enterprises/userEnterpriseList", {
      token: colleague,
    });
    expect(theirs.body.hwdata.list).toEqual([expect.objectContaining({ eid, isAdmin: 0 })]);
    expect([...theirs.body.hwdata.list[0].kinds].sort()).toEqual(["maintenance", "member"]);
  });

  it("validates the name with the shared schema, localized", async () => {
    const en = await create(founder, { name: "X" });
    expect(en.body).toMatchObject({ hwcode: 400, msg: "Enterprise names are 2-40 characters" });
    const zh = await create(founder, { name: "x".repeat(41) }, "cn");
    expect(zh.body.hwcode).toBe(400);
    expect(zh.body.msg).toMatch(/2-40/);
    const twice = await create(founder, { name: "startup automation" });
    expect(twice.body).toMatchObject({
      hwcode: HW.ENTERPRISE_NAME_TAKEN.code,
      msg: HW.ENTERPRISE_NAME_TAKEN.en,
    });
  });

  it("keeps another tenant out of the new enterprise", async () => {
    const made = await create(other, { name: "Rival Works" });
    const rivalEid = made.body.hwdata.eid as number;
    // The other tenant neither lists, reads, manages nor switches the founder's enterprise.
    const theirs = await h.call("POST", "/api/enterprises/userEnterpriseList", { token: other });
    expect(theirs.body.hwdata.list.map((e: { eid: number }) => e.eid)).toEqual([rivalEid]);
    const info = await h.call("GET", `/api/entportal/v1/enterprise/info?eid=${eid}`, {
      token: other,
    });
    expect(info.body.hwcode).toBe(HW.NO_PERMISSION.code);
    for (const [method, url, form] of [
      ["GET", `/api/enterprises/v1/admin/members?eid=${eid}`, undefined],
      [
        "POST",
        "/api/enterprises/v1/admin/members",
        { eid, account: "boss@rival.com", kind: "member", isAdmin: 1 },
      ],
      ["PUT", "/api/enterprises/v1/admin/project", { eid, enableProject: 0 }],
    ] as const) {
      const res = await h.call(method, url, { form, token: other });
      expect(res.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
    }
    const projects = await h.call("POST", "/eapi/web/c/project/list", {
      form: { eid, type: 1 },
      token: other,
    });
    expect(projects.body.hwcode).toBe(HW.NO_PERMISSION.code);
    // A member who is not an admin does not switch projects either.
    const byMember = await h.call("PUT", "/api/enterprises/v1/admin/project", {
      form: { eid, enableProject: 0 },
      token: colleague,
    });
    expect(byMember.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
  });

  it("lets the owner switch projects, but not those of an operator-created enterprise", async () => {
    const off = await h.call("PUT", "/api/enterprises/v1/admin/project", {
      form: { eid, enableProject: 0 },
      token: founder,
    });
    expect(off.body.hwdata).toMatchObject({ eid, enableProject: 0 });
    const perm = await h.call("POST", "/api/enterprises/enterprisePermission", {
      form: { eid },
      token: founder,
    });
    expect(perm.body.hwdata).toMatchObject({ enableProject: 0, canSetProject: true });
    await h.call("PUT", "/api/enterprises/v1/admin/project", {
      form: { eid, enableProject: 1 },
      token: founder,
    });

    const sold = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Operator Co", enableProject: 0 },
      token: operator,
    });
    const soldEid = sold.body.hwdata.eid as number;
    await h.call("POST", "/api/enterprises/v1/admin/members", {
      form: { eid: soldEid, account: "founder@startup.com", kind: "member", isAdmin: 1 },
      token: operator,
    });
    const refused = await h.call("PUT", "/api/enterprises/v1/admin/project", {
      form: { eid: soldEid, enableProject: 1 },
      token: founder,
    });
    expect(refused.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
    // Membership in it does not count against the founder's own limit.
    const creation = await h.call("GET", "/api/enterprises/v1/creation", { token: founder });
    expect(creation.body.hwdata.created).toBe(1);
  });

  it(`stops at ${ENTERPRISES_PER_USER} enterprises per user, also for parallel requests`, async () => {
    const user = await h.signUp("serial@founder.com");
    const attempts = await Promise.all(
      Array.from({ length: ENTERPRISES_PER_USER + 2 }, (_, i) =>
        create(user, { name: `Venture ${i + 1}` }),
      ),
    );
    const codes = attempts.map((a) => a.body.hwcode);
    expect(codes.filter((c) => c === 0)).toHaveLength(ENTERPRISES_PER_USER);
    expect(codes.filter((c) => c === HW.ENTERPRISE_CREATE_LIMIT.code)).toHaveLength(2);
    const zh = await create(user, { name: "One more" }, "cn");
    expect(zh.body).toMatchObject({
      hwcode: HW.ENTERPRISE_CREATE_LIMIT.code,
      msg: HW.ENTERPRISE_CREATE_LIMIT.zh,
    });
    const creation = await h.call("GET", "/api/enterprises/v1/creation", { token: user });
    expect(creation.body.hwdata).toMatchObject({ created: ENTERPRISES_PER_USER });
  });
});

describe("the operator's per-brand switch", () => {
  it("is on for every brand until the operator turns it off, and only the operator may", async () => {
    const list = await h.call("GET", "/api/operator/v1/brandSettings", { token: operator });
    expect(list.body.hwdata.list).toContainEqual({
      oemid: "vantage",
      name: { zh: "万泰云", en: "Vantage Cloud" },
      userEnterprises: 1,
    });
    const byUser = await h.call("PUT", "/api/operator/v1/brandSettings", {
      form: { oemid: "vantage", userEnterprises: 0 },
      token: founder,
    });
    expect(byUser.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
    expect(
      (await h.call("GET", "/api/operator/v1/brandSettings", { token: founder })).body.hwcode,
    ).toBe(HW.NO_MANAGEMENT_ACCESS.code);
    expect((await setSwitch("no-such-brand", 0)).body.hwcode).toBe(HW.BAD_REQUEST.code);
  });

  it("refuses the brand's users with a localized code, and leaves other brands alone", async () => {
    const vantageUser = await signUpFor("plant@vantage-customer.com", "vantage");
    expect((await setSwitch("vantage", 0)).body.hwcode).toBe(0);

    const creation = await h.call("GET", "/api/enterprises/v1/creation", { token: vantageUser });
    expect(creation.body.hwdata).toMatchObject({ allowed: false, created: 0 });
    const en = await create(vantageUser, { name: "Vantage Customer" });
    expect(en.body).toMatchObject({
      hwcode: HW.ENTERPRISE_CREATE_DISABLED.code,
      msg: HW.ENTERPRISE_CREATE_DISABLED.en,
    });
    const zh = await create(vantageUser, { name: "Vantage Customer" }, "cn");
    expect(zh.body.msg).toBe(HW.ENTERPRISE_CREATE_DISABLED.zh);
    const mine = await h.call("POST", "/api/enterprises/userEnterpriseList", {
      token: vantageUser,
    });
    expect(mine.body.hwdata.list).toEqual([]);

    // Users of the default brand still create theirs.
    const keywayUser = await h.signUp("plant@keyway-customer.com");
    expect((await create(keywayUser, { name: "Keyway Customer" })).body.hwcode).toBe(0);

    // Turned on again, the brand's users create enterprises again.
    expect((await setSwitch("vantage", 1)).body.hwcode).toBe(0);
    expect((await create(vantageUser, { name: "Vantage Customer" })).body.hwcode).toBe(0);
  });
});
