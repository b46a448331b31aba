import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { CAMERA_ACCOUNT, HW, LOCATION_REFRESH_PER_DAY } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { ManualClock } from "../../infra/clock.ts";
import { decryptSecret } from "../../infra/crypto.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { createEzvizClient } from "./ezviz.ts";
import { cameraAccounts } from "./schema.ts";
import { createCameraService } from "./service.ts";

/**
 * A stand-in for the EZVIZ open platform: the lapp token and device-list calls, refusing
 * what EZVIZ refuses (form-encoded POSTs only, 10017 unknown AppKey, 10030 AppKey and Secret
 * not matching, 10005 frozen, 10002 unknown access token).
 */
interface StandIn {
  url: string;
  apps: Map<string, { secret: string; cameras: number; frozen?: boolean }>;
  /** Every call as EZVIZ would see it. */
  calls: Array<{ path: string; contentType: string; form: Record<string, string> }>;
  /** Answer 502 to everything (the platform is down). */
  down: boolean;
  close(): Promise<void>;
}

async function startEzvizStandIn(): Promise<StandIn> {
  const apps: StandIn["apps"] = new Map();
  const tokens = new Map<string, string>();
  const state = { down: false };
  const calls: StandIn["calls"] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const send = (payload: object) => {
        res.writeHead(200, { "content-type": "application/json;charset=UTF-8" });
        res.end(JSON.stringify(payload));
      };
      const contentType = req.headers["content-type"] ?? "";
      const form = Object.fromEntries(new URLSearchParams(body));
      calls.push({ path: req.url ?? "", contentType, form });
      if (state.down) {
        res.writeHead(502);
        res.end("Bad Gateway");
        return;
      }
      if (req.method !== "POST" || !contentType.startsWith("application/x-www-form-urlencoded"))
        return send({ code: "10001", msg: "参数错误" });
      if (req.url === "/api/lapp/token/get") {
        if (!form.appKey || !form.appSecret) return send({ code: "10001", msg: "参数错误" });
        const app = apps.get(form.appKey);
        if (!app) return send({ code: "10017", msg: "appKey不存在" });
        if (app.frozen) return send({ code: "10005", msg: "appKey异常" });
        if (app.secret !== form.appSecret)
          return send({ code: "10030", msg: "appkey和appSecret不匹配" });
        const accessToken = `at.${Math.random().toString(36).slice(2)}`;
        tokens.set(accessToken, form.appKey);
        return send({
          code: "200",
          msg: "操作成功!",
          data: { accessToken, expireTime: Date.now() + 7 * 24 * 3600_000 },
        });
      }
      if (req.url === "/api/lapp/device/list") {
        const appKey = tokens.get(form.accessToken ?? "");
        if (!appKey) return send({ code: "10002", msg: "accessToken异常或过期" });
        const total = apps.get(appKey)?.cameras ?? 0;
        const size = Number(form.pageSize ?? 10);
        return send({
          code: "200",
          msg: "操作成功!",
          page: { total, page: Number(form.pageStart ?? 0), size },
          data: Array.from({ length: Math.min(total, size) }, (_, i) => ({
            deviceSerial: `D${i}`,
            deviceName: `Camera ${i}`,
            status: 1,
          })),
        });
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apps,
    calls,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const KEY = "7f139f95ccab4ad0be82630b443edb0b";
const SECRET = "68309273efbb8cbe20bca9155cb225d5";
const KEY2 = "04dd4edbcc944faea177776aad714b72";
const SECRET2 = "dbc1b753f17d66986b776c7bb9a41622";
const FROZEN = "29c4b33d01d44d9cb6600328fdbfad41";

let ezviz: StandIn;
let h: Harness;
let operator: string;
let owner: string;
let admin: string;
let stranger: string;
const devices: Array<{ id: number; code: string }> = [];

const provision = (count: number) => h.provision(operator, count);

const addAccount = (token: string, form: Record<string, string | number>) =>
  h.call("POST", "/api/device/v1/ezviz/account", {
    form: { name: "Workshop cameras", appKey: KEY, secret: SECRET, remark: "", ...form },
    token,
    lang: "en",
  });

const listAccounts = (token: string, machineId?: number) =>
  h.call("GET", `/api/device/v1/ezviz/account${machineId ? `?machineId=${machineId}` : ""}`, {
    token,
    lang: "en",
  });

async function clearAccounts(token: string) {
  for (const a of (await listAccounts(token)).body.hwdata.list)
    await h.call("DELETE", "/api/device/v1/ezviz/account", { form: { id: a.id }, token });
}

beforeAll(async () => {
  ezviz = await startEzvizStandIn();
  ezviz.apps.set(KEY, { secret: SECRET, cameras: 3 });
  ezviz.apps.set(KEY2, { secret: SECRET2, cameras: 0 });
  ezviz.apps.set(FROZEN, { secret: SECRET, cameras: 1, frozen: true });
  h = await createHarness({ config: { EZVIZ_API_URL: ezviz.url } });
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@plant.com");
  admin = await h.signUp("admin@plant.com");
  stranger = await h.signUp("stranger@example.com");
  for (const d of await provision(2)) {
    const added = await h.call("POST", "/api/machine/add", {
      form: { machineName: "Camera HMI", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token: owner,
    });
    devices.push({ id: added.body.hwdata.machine_id, code: d.machineCode });
  }
  // admin@plant.com becomes a Bkey of the first device.
  const bkey = await h.call("POST", "/api/admin/push", {
    form: { account: "admin@plant.com", machineID: devices[0].id },
    token: owner,
  });
  expect(bkey.body.hwcode).toBe(0);
});
afterAll(async () => {
  await h.close();
  await ezviz.close();
});

describe("the EZVIZ adapter against its stand-in", () => {
  it("gets a token with a form-encoded POST and counts the account's cameras", async () => {
    const client = createEzvizClient({ baseUrl: ezviz.url });
    ezviz.calls.length = 0;
    expect(await client.check(KEY, SECRET)).toEqual({ ok: true, cameraCount: 3 });
    expect(ezviz.calls.map((c) => c.path)).toEqual([
      "/api/lapp/token/get",
      "/api/lapp/device/list",
    ]);
    expect(ezviz.calls[0].contentType).toBe("application/x-www-form-urlencoded");
    expect(ezviz.calls[0].form).toEqual({ appKey: KEY, appSecret: SECRET });
    expect(ezviz.calls[1].form.accessToken).toMatch(/^at\./);
  });

  it("tells the documented refusals apart from an unreachable platform", async () => {
    const client = createEzvizClient({ baseUrl: ezviz.url });
    expect(await client.check("nosuchkey", SECRET)).toEqual({
      ok: false,
      error: "EZVIZ_APPKEY_NOT_FOUND",
      refused: true,
    });
    expect(await client.check(KEY, "wrong")).toEqual({
      ok: false,
      error: "EZVIZ_SECRET_MISMATCH",
      refused: true,
    });
    expect(await client.check(FROZEN, SECRET)).toEqual({
      ok: false,
      error: "EZVIZ_APPKEY_FROZEN",
      refused: true,
    });
    ezviz.down = true;
    try {
      expect(await client.check(KEY, SECRET)).toEqual({
        ok: false,
        error: "EZVIZ_UNREACHABLE",
        refused: false,
      });
    } finally {
      ezviz.down = false;
    }
    // Nothing listening at all.
    const closed = createEzvizClient({ baseUrl: "http://127.0.0.1:9", timeoutMs: 2000 });
    expect((await closed.check(KEY, SECRET)).ok).toBe(false);
  });
});

describe("checkEzvizAppkey", () => {
  it("accepts the right pair and names the wrong field otherwise, storing nothing", async () => {
    const good = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: KEY, secret: SECRET },
      token: owner,
    });
    expect(good.body).toMatchObject({ hwcode: 0, hwdata: { valid: true, camera_count: 3 } });

    const wrongSecret = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: KEY, secret: "not-the-secret" },
      token: owner,
      lang: "en",
    });
    expect(wrongSecret.body).toMatchObject({
      hwcode: HW.EZVIZ_SECRET_MISMATCH.code,
      hwdata: { field: "secret" },
      msg: "The AppKey and the Secret do not match",
    });
    const wrongKey = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: "0000", secret: SECRET },
      token: owner,
      lang: "cn",
    });
    expect(wrongKey.body).toMatchObject({
      hwcode: HW.EZVIZ_APPKEY_NOT_FOUND.code,
      hwdata: { field: "appKey" },
      msg: "AppKey 不存在",
    });
    const frozen = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: FROZEN, secret: SECRET },
      token: owner,
    });
    expect(frozen.body.hwcode).toBe(HW.EZVIZ_APPKEY_FROZEN.code);
    ezviz.down = true;
    const down = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: KEY, secret: SECRET },
      token: owner,
      lang: "en",
    });
    ezviz.down = false;
    expect(down.status).toBe(200);
    expect(down.body.hwcode).toBe(HW.EZVIZ_UNREACHABLE.code);
    expect((await listAccounts(owner)).body.hwdata.total).toBe(0);
  });

  it("refuses empty fields with the validation envelope, and callers without a token", async () => {
    for (const form of [
      { appKey: "", secret: SECRET } as Record<string, string>,
      { appKey: KEY, secret: "   " },
      { secret: SECRET },
    ]) {
      const res = await h.call("POST", "/api/user/checkEzvizAppkey", {
        form,
        token: owner,
        lang: "en",
      });
      expect(res.status).toBe(200);
      expect(res.body.hwcode).toBe(HW.BAD_REQUEST.code);
      expect(res.body.msg).toBe("This field is required");
    }
    const anonymous = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: KEY, secret: SECRET },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.hwcode).toBe(HW.TOKEN_INVALID.code);
  });
});

describe("camera accounts", () => {
  beforeEach(async () => {
    await clearAccounts(owner);
    await clearAccounts(stranger);
  });

  it("adds an account checked at EZVIZ; the Secret is sealed in the database and masked in answers", async () => {
    const res = await addAccount(owner, { remark: "Hall A", isDefault: 0 });
    expect(res.body.hwcode).toBe(0);
    const account = res.body.hwdata;
    expect(account).toMatchObject({
      name: "Workshop cameras",
      app_key: KEY,
      secret: `********${SECRET.slice(-4)}`,
      remark: "Hall A",
      // The first account is the default one.
      is_default: 1,
      state: 1,
      camera_count: 3,
      checks_left: LOCATION_REFRESH_PER_DAY,
      machine_count: 0,
    });
    const listed = await listAccounts(owner);
    expect(listed.body.hwdata.total).toBe(1);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);

    const [row] = await h.db.select().from(cameraAccounts).where(eq(cameraAccounts.id, account.id));
    expect(row.secretSealed).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(decryptSecret("0".repeat(64), row.secretSealed)).toBe(SECRET);
  });

  it("stores nothing when EZVIZ refuses the pair, and refuses the same AppKey twice", async () => {
    const refused = await addAccount(owner, { secret: "wrong-secret" });
    expect(refused.body).toMatchObject({
      hwcode: HW.EZVIZ_SECRET_MISMATCH.code,
      hwdata: { field: "secret" },
    });
    expect((await listAccounts(owner)).body.hwdata.total).toBe(0);

    expect((await addAccount(owner, {})).body.hwcode).toBe(0);
    const twice = await addAccount(owner, { name: "Again" });
    expect(twice.body).toMatchObject({
      hwcode: HW.CAMERA_ACCOUNT_EXISTS.code,
      hwdata: { field: "appKey" },
    });
    // Another user may add the same AppKey to their own list.
    expect((await addAccount(stranger, {})).body.hwcode).toBe(0);
  });

  it("validates name, AppKey, Secret (non-empty) and the remark on both wire formats", async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ name: "" }, "name", "This field is required"],
      [{ appKey: "" }, "appKey", "This field is required"],
      [{ secret: "" }, "secret", "This field is required"],
      [{ remark: "x".repeat(51) }, "remark", "The remark cannot exceed 50 characters"],
      [{ name: "n".repeat(31) }, "name", "Text too long"],
    ];
    for (const [form, field, msg] of cases) {
      const res = await addAccount(owner, form);
      expect(res.body).toMatchObject({ hwcode: HW.BAD_REQUEST.code, hwdata: { field }, msg });
    }
    const json = await h.call("POST", "/api/device/v1/ezviz/account", {
      json: { name: "  ", appKey: KEY, secret: SECRET },
      token: owner,
      lang: "cn",
    });
    expect(json.body).toMatchObject({ hwcode: HW.BAD_REQUEST.code, msg: "此项为必填项" });
    expect((await listAccounts(owner)).body.hwdata.total).toBe(0);
  });

  it("keeps one default, edits without re-sending the Secret, and re-checks changed credentials", async () => {
    const first = (await addAccount(owner, {})).body.hwdata;
    const second = (
      await addAccount(owner, { name: "Gate", appKey: KEY2, secret: SECRET2, isDefault: 1 })
    ).body.hwdata;
    expect(second).toMatchObject({ is_default: 1, camera_count: 0 });
    let list = (await listAccounts(owner)).body.hwdata.list;
    expect(list.map((a: { is_default: number }) => a.is_default)).toEqual([0, 1]);

    // Rename only: the blank Secret keeps the stored one and EZVIZ is not asked.
    ezviz.calls.length = 0;
    const renamed = await h.call("POST", "/api/user/updateEzvizAccount", {
      form: { id: first.id, name: "Hall A", appKey: KEY, secret: "", remark: "r", isDefault: 1 },
      token: owner,
    });
    expect(renamed.body.hwdata).toMatchObject({ name: "Hall A", remark: "r", is_default: 1 });
    expect(ezviz.calls).toHaveLength(0);
    list = (await listAccounts(owner)).body.hwdata.list;
    expect(list.map((a: { is_default: number }) => a.is_default)).toEqual([1, 0]);

    // A wrong new Secret is refused and the stored one stays.
    const wrong = await h.call("POST", "/api/user/updateEzvizAccount", {
      form: { id: first.id, name: "Hall A", appKey: KEY, secret: "nope" },
      token: owner,
      lang: "en",
    });
    expect(wrong.body.hwcode).toBe(HW.EZVIZ_SECRET_MISMATCH.code);
    const [row] = await h.db.select().from(cameraAccounts).where(eq(cameraAccounts.id, first.id));
    expect(decryptSecret("0".repeat(64), row.secretSealed)).toBe(SECRET);

    // Moving the account to the other key pair: checked, then stored.
    await h.call("DELETE", `/api/device/v1/ezviz/account?id=${second.id}`, { token: owner });
    const moved = await h.call("POST", "/api/user/updateEzvizAccount", {
      form: { id: first.id, name: "Hall A", appKey: KEY2, secret: SECRET2 },
      token: owner,
    });
    expect(moved.body.hwdata).toMatchObject({
      app_key: KEY2,
      secret: `********${SECRET2.slice(-4)}`,
      camera_count: 0,
      // isDefault omitted means "not the default".
      is_default: 0,
    });
    expect(ezviz.calls.at(-2)?.form).toEqual({ appKey: KEY2, appSecret: SECRET2 });
  });

  it("shows, edits, checks and deletes only the caller's own accounts", async () => {
    const mine = (await addAccount(owner, {})).body.hwdata;
    expect((await listAccounts(stranger)).body.hwdata).toEqual({ list: [], total: 0 });
    const refusals = await Promise.all([
      h.call("POST", "/api/user/updateEzvizAccount", {
        form: { id: mine.id, name: "Mine now", appKey: KEY },
        token: stranger,
      }),
      h.call("POST", "/api/user/checkEzvizAccount", { form: { id: mine.id }, token: stranger }),
      h.call("DELETE", "/api/device/v1/ezviz/account", { form: { id: mine.id }, token: stranger }),
      // The stranger has no default account either.
      h.call("POST", "/api/user/checkEzvizAccount", { form: {}, token: stranger }),
    ]);
    for (const res of refusals) expect(res.body.hwcode).toBe(HW.CAMERA_ACCOUNT_NOT_FOUND.code);
    expect((await listAccounts(owner)).body.hwdata.list[0]).toMatchObject({
      name: "Workshop cameras",
      app_key: KEY,
    });
  });

  it("re-checks a stored account 5 times a rolling day; a refusal marks it invalid", async () => {
    const account = (await addAccount(owner, {})).body.hwdata;
    for (let i = LOCATION_REFRESH_PER_DAY - 1; i >= 0; i--) {
      // Without id: the default account.
      const res = await h.call("POST", "/api/user/checkEzvizAccount", { form: {}, token: owner });
      expect(res.body.hwdata).toMatchObject({ id: account.id, state: 1, checks_left: i });
    }
    const sixth = await h.call("POST", "/api/user/checkEzvizAccount", {
      form: { id: account.id },
      token: owner,
      lang: "en",
    });
    expect(sixth.body).toMatchObject({
      hwcode: HW.CAMERA_CHECK_DAILY_LIMIT.code,
      msg: "This account has run out of refreshes for the day",
    });

    h.clock.advance(24 * 3600_000 + 1000);
    // A day later the sessions have ended too (docs/architecture/accounts.md#login): sign in again.
    owner = await h.login("owner@plant.com", "secret123");
    admin = await h.login("admin@plant.com", "secret123");
    stranger = await h.login("stranger@example.com", "secret123");
    // The secret was changed at EZVIZ meanwhile: the check says so and the account shows it.
    ezviz.apps.set(KEY, { secret: "rotated-secret-0000", cameras: 3 });
    try {
      const refused = await h.call("POST", "/api/user/checkEzvizAccount", {
        form: { id: account.id },
        token: owner,
      });
      expect(refused.body.hwcode).toBe(HW.EZVIZ_SECRET_MISMATCH.code);
      const shown = (await listAccounts(owner)).body.hwdata.list[0];
      expect(shown).toMatchObject({
        state: 2,
        check_code: HW.EZVIZ_SECRET_MISMATCH.code,
        checks_left: LOCATION_REFRESH_PER_DAY - 1,
      });

      // An unreachable platform costs no check.
      ezviz.down = true;
      const down = await h.call("POST", "/api/user/checkEzvizAccount", {
        form: { id: account.id },
        token: owner,
      });
      expect(down.body.hwcode).toBe(HW.EZVIZ_UNREACHABLE.code);
      expect((await listAccounts(owner)).body.hwdata.list[0].checks_left).toBe(
        LOCATION_REFRESH_PER_DAY - 1,
      );
    } finally {
      ezviz.down = false;
      ezviz.apps.set(KEY, { secret: SECRET, cameras: 3 });
    }
  });
});

describe("limits", () => {
  beforeEach(async () => {
    await clearAccounts(owner);
  });

  it("keeps 20 accounts per user (13010103), also when they are added at once", async () => {
    const keys = Array.from({ length: CAMERA_ACCOUNT.perUser + 3 }, (_, i) => `limitkey${i}`);
    for (const key of keys) ezviz.apps.set(key, { secret: SECRET, cameras: 1 });
    const answers = await Promise.all(
      keys.map((appKey, i) => addAccount(owner, { appKey, name: `Cam ${i}` })),
    );
    const refused = answers.filter((a) => a.body.hwcode !== 0);
    expect(refused).toHaveLength(3);
    for (const a of refused)
      expect(a.body).toMatchObject({
        hwcode: HW.CAMERA_ACCOUNT_LIMIT.code,
        msg: HW.CAMERA_ACCOUNT_LIMIT.en,
      });
    expect((await listAccounts(owner)).body.hwdata.list).toHaveLength(CAMERA_ACCOUNT.perUser);
    const more = await addAccount(owner, { appKey: KEY2, secret: SECRET2 });
    expect(more.body.hwcode).toBe(HW.CAMERA_ACCOUNT_LIMIT.code);
  });

  it("counts parallel re-checks of one account: 5 pass, the rest are refused", async () => {
    const account = (await addAccount(owner, {})).body.hwdata;
    const [row] = await h.db.select().from(cameraAccounts).where(eq(cameraAccounts.id, account.id));
    // The service itself, so that every check reaches the count in the same tick.
    const cameras = createCameraService({
      db: h.db,
      clock: h.clock,
      secretKey: "0".repeat(64),
      ezviz: createEzvizClient({ baseUrl: ezviz.url }),
      roleOf: async () => "none",
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 9 }, () => cameras.checkAccount(row.userId, account.id)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(LOCATION_REFRESH_PER_DAY);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason).toMatchObject({
        key: "CAMERA_CHECK_DAILY_LIMIT",
      });
    expect((await listAccounts(owner)).body.hwdata.list[0].checks_left).toBe(0);
  });

  it("limits the calls that ask EZVIZ to 20 a minute per address, re-checks included", async () => {
    const account = (await addAccount(owner, {})).body.hwdata;
    const ip = "203.0.113.61";
    const codes: Array<number | string> = [];
    for (let i = 0; i < 21; i++) {
      const res = await h.call("POST", "/api/user/checkEzvizAppkey", {
        form: { appKey: KEY, secret: `guess-${i}` },
        token: owner,
        ip,
        lang: "en",
      });
      codes.push(res.body.hwcode);
      if (i === 20) {
        expect(res.status).toBe(429);
        expect(res.body.msg).toBe(HW.RATE_LIMITED.en);
      }
    }
    expect(codes.slice(0, 20).every((c) => c === HW.EZVIZ_SECRET_MISMATCH.code)).toBe(true);
    expect(codes[20]).toBe(HW.RATE_LIMITED.code);

    // A re-check that cannot reach EZVIZ costs no daily check, so it is limited per address.
    ezviz.down = true;
    try {
      const other = "203.0.113.62";
      const answers: Array<number | string> = [];
      for (let i = 0; i < 21; i++) {
        const res = await h.call("POST", "/api/user/checkEzvizAccount", {
          form: { id: account.id },
          token: owner,
          ip: other,
        });
        answers.push(res.body.hwcode);
      }
      expect(answers.slice(0, 20).every((c) => c === HW.EZVIZ_UNREACHABLE.code)).toBe(true);
      expect(answers[20]).toBe(HW.RATE_LIMITED.code);
    } finally {
      ezviz.down = false;
    }
    // Another address is not affected.
    const elsewhere = await h.call("POST", "/api/user/checkEzvizAppkey", {
      form: { appKey: KEY, secret: SECRET },
      token: owner,
      ip: "203.0.113.63",
    });
    expect(elsewhere.body.hwcode).toBe(0);
  });
});

describe("binding a camera account to a device", () => {
  beforeEach(async () => {
    await clearAccounts(owner);
    await clearAccounts(admin);
    await clearAccounts(stranger);
  });

  const bind = (token: string, machineId: number, ezvizAccountId: number) =>
    h.call("POST", "/api/machine/changeEzvizAccount", {
      form: { machineId, ezvizAccountId },
      token,
      lang: "en",
    });

  it("lets the Akey bind and release the device's camera account", async () => {
    const account = (await addAccount(owner, {})).body.hwdata;
    const other = (await addAccount(owner, { appKey: KEY2, secret: SECRET2, name: "Gate" })).body
      .hwdata;
    const bound = await bind(owner, devices[0].id, account.id);
    expect(bound.body).toMatchObject({
      hwcode: 0,
      hwdata: { machine_id: devices[0].id, ezviz_account_id: account.id },
    });
    const seen = (await listAccounts(owner, devices[0].id)).body.hwdata;
    expect(seen).toMatchObject({ machine_id: devices[0].id, ezviz_account_id: account.id });
    // The Machine itself carries it (SPEC §3 Machine ezviz_account_id): detail and list.
    const detail = await h.call("GET", `/api/device/v1/detail?deviceId=${devices[0].id}`, {
      token: owner,
    });
    expect(detail.body.hwdata).toMatchObject({
      machine_id: devices[0].id,
      ezviz_account_id: account.id,
    });
    const listed = await h.call("POST", "/api/machine/select", { form: {}, token: admin });
    expect(
      listed.body.hwdata.list.find((m: { machine_id: number }) => m.machine_id === devices[0].id),
    ).toMatchObject({ ezviz_account_id: account.id });
    expect(seen.list.find((a: { id: number }) => a.id === account.id).machine_count).toBe(1);

    // Changing moves the device to the other account.
    await bind(owner, devices[0].id, other.id);
    expect((await listAccounts(owner, devices[0].id)).body.hwdata.ezviz_account_id).toBe(other.id);
    // The Bkey sees which account it is, by id only (their list stays their own).
    const asAdmin = (await listAccounts(admin, devices[0].id)).body.hwdata;
    expect(asAdmin).toMatchObject({ list: [], ezviz_account_id: other.id });

    const released = await h.call("POST", "/api/machine/releaseEzvizAccount", {
      form: { machineId: devices[0].id },
      token: owner,
    });
    expect(released.body.hwdata).toEqual({ machine_id: devices[0].id, ezviz_account_id: 0 });
    expect((await listAccounts(owner, devices[0].id)).body.hwdata.ezviz_account_id).toBe(0);
    const after = await h.call("GET", `/api/device/v1/detail?deviceId=${devices[0].id}`, {
      token: owner,
    });
    expect(after.body.hwdata.ezviz_account_id).toBe(0);
  });

  it("refuses a Bkey, a stranger and someone else's account", async () => {
    const ownerAccount = (await addAccount(owner, {})).body.hwdata;
    const adminAccount = (await addAccount(admin, {})).body.hwdata;
    const strangerAccount = (await addAccount(stranger, {})).body.hwdata;

    const byBkey = await bind(admin, devices[0].id, adminAccount.id);
    expect(byBkey.body).toMatchObject({
      hwcode: HW.DEVICE_NO_PERMISSION.code,
      msg: "No permission to operate",
    });
    const bkeyRelease = await h.call("POST", "/api/machine/releaseEzvizAccount", {
      form: { machineId: devices[0].id },
      token: admin,
    });
    expect(bkeyRelease.body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);

    // A stranger's call looks like a missing device, also when reading the binding.
    expect((await bind(stranger, devices[0].id, strangerAccount.id)).body.hwcode).toBe(
      HW.EDIT_MACHINE_NOT_FOUND.code,
    );
    expect((await listAccounts(stranger, devices[0].id)).body.hwcode).toBe(
      HW.EDIT_MACHINE_NOT_FOUND.code,
    );
    const strangerRelease = await h.call("POST", "/api/machine/releaseEzvizAccount", {
      form: { machineId: devices[0].id },
      token: stranger,
    });
    expect(strangerRelease.body.hwcode).toBe(HW.EDIT_MACHINE_NOT_FOUND.code);

    // The Akey cannot bind another user's account to their device.
    expect((await bind(owner, devices[0].id, strangerAccount.id)).body.hwcode).toBe(
      HW.CAMERA_ACCOUNT_NOT_FOUND.code,
    );
    expect((await bind(owner, 999_999, ownerAccount.id)).body.hwcode).toBe(
      HW.EDIT_MACHINE_NOT_FOUND.code,
    );
    expect((await listAccounts(owner, devices[0].id)).body.hwdata.ezviz_account_id).toBe(0);
  });

  it("releases the devices of a deleted account", async () => {
    const account = (await addAccount(owner, {})).body.hwdata;
    await bind(owner, devices[0].id, account.id);
    await bind(owner, devices[1].id, account.id);
    expect((await listAccounts(owner)).body.hwdata.list[0].machine_count).toBe(2);
    const deleted = await h.call("DELETE", "/api/device/v1/ezviz/account", {
      form: { id: account.id },
      token: owner,
    });
    expect(deleted.body.hwcode).toBe(0);
    for (const d of devices)
      expect((await listAccounts(owner, d.id)).body.hwdata.ezviz_account_id).toBe(0);
  });
});

describe("the Secret in logs", () => {
  it("never appears in the server's log, also when EZVIZ refuses or is down", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const database = await createTestDatabase();
    const app = await buildApp({
      config: testConfig({ WEB_DIST: "/nonexistent", EZVIZ_API_URL: ezviz.url }),
      db: database.db,
      clock: new ManualClock(new Date("2026-11-21T08:00:00Z")),
      logger: { level: "trace", stream },
      sweepEveryMs: 0,
    });
    try {
      await app.ready();
      await seedDemo(app.services.accounts);
      let token = "";
      const send = async (method: "GET" | "POST", url: string, body?: object) => {
        const headers: Record<string, string> = {};
        if (token) headers.cloudtoken = token;
        if (body) headers["content-type"] = "application/x-www-form-urlencoded";
        const payload = body
          ? new URLSearchParams(
              Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]),
            ).toString()
          : undefined;
        return (await app.inject({ method, url, headers, payload })).json();
      };
      const login = await send("POST", "/api/user/login", {
        loginName: "demo@keyway.local",
        loginPwd: "demo1234",
        terminalUUID: "log-test",
      });
      token = login.hwdata.result.token;
      expect(
        (await send("POST", "/api/user/checkEzvizAppkey", { appKey: KEY, secret: SECRET })).hwcode,
      ).toBe(0);
      const created = await send("POST", "/api/device/v1/ezviz/account", {
        name: "Logged",
        appKey: KEY,
        secret: SECRET,
      });
      expect(created.hwcode).toBe(0);
      expect(
        (await send("POST", "/api/user/checkEzvizAccount", { id: created.hwdata.id })).hwcode,
      ).toBe(0);
      await send("POST", "/api/user/updateEzvizAccount", {
        id: created.hwdata.id,
        name: "Logged",
        appKey: KEY,
        secret: `${SECRET}x`,
      });
      ezviz.down = true;
      await send("POST", "/api/user/checkEzvizAppkey", { appKey: KEY2, secret: SECRET2 });
      ezviz.down = false;
      await send("GET", "/api/device/v1/ezviz/account");
      // A malformed body is refused without echoing it.
      await app.inject({
        method: "POST",
        url: "/api/user/checkEzvizAppkey",
        headers: { cloudtoken: token, "content-type": "application/json" },
        payload: `{"appKey":"${KEY}","secret":"${SECRET2}" oops}`,
      });
    } finally {
      ezviz.down = false;
      await app.close();
      await database.close();
    }
    const log = lines.join("");
    // The log did record these requests and the adapter's warnings...
    expect(log).toContain("/api/device/v1/ezviz/account");
    expect(log).toContain("EZVIZ refused the key pair");
    expect(log).toContain("EZVIZ unreachable");
    // ...but no Secret, in clear or URL-encoded.
    for (const secret of [SECRET, SECRET2, `${SECRET}x`]) expect(log).not.toContain(secret);
  });
});
