import { HW, VALIDATION_MESSAGES } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

/**
 * The refusals of issue 20's inputs and rights, in both languages: a visit kind that is not
 * web or screen, a setting that is not a flag, an activity page too large; and the remote
 * settings and activity for anyone but the device's Akey (change) and Bkeys (read): a user
 * with no identity on the device, and the Akey of another device.
 */
let h: Harness;
let owner: string;
let bkey: string;
let user: string;
let stranger: string;
let machineID: number;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", {
    terminalType: "ops",
  });
  const [device, other] = await h.provision(operator, 2);
  owner = await h.signUp("owner@example.com");
  bkey = await h.signUp("bkey@example.com");
  user = await h.signUp("user@example.com");
  stranger = await h.signUp("stranger@example.com");
  machineID = (await h.addDevice(owner, device, "Press")).id;
  // The stranger owns a device of their own: an Akey, but not of this one.
  await h.addDevice(stranger, other, "Elsewhere");
  const made = await h.call("POST", "/api/admin/push", {
    form: { machineID, account: "bkey@example.com" },
    token: owner,
  });
  expect(made.body.hwcode).toBe(0);
});
afterAll(async () => {
  await h?.close();
});

describe("issue 20's refusals", () => {
  it("refuses a visit kind that is not web or screen, and a setting that is not a flag, localized", async () => {
    const cases: Array<[string, string, Record<string, string | number>, string, string]> = [
      [
        "POST",
        "/api/v1/audit/getValidVisitUrl",
        { machineID, kind: "video" },
        "kind",
        "v.visitKind",
      ],
      [
        "POST",
        "/api/device/v1/remoteSettings",
        { deviceId: machineID, onsite_consent: "maybe" },
        "onsite_consent",
        "v.flag",
      ],
      [
        "GET",
        `/api/device/v1/visits/activity?deviceId=${machineID}&pageSize=501`,
        {},
        "pageSize",
        "v.page",
      ],
    ];
    for (const [method, url, form, field, key] of cases) {
      for (const lang of ["en", "cn"] as const) {
        const res = await h.call(method as "GET" | "POST", url, {
          ...(method === "POST" ? { form } : {}),
          token: owner,
          lang,
        });
        expect(res.body).toMatchObject({ hwcode: HW.BAD_REQUEST.code, hwdata: { field } });
        const text = VALIDATION_MESSAGES[key as keyof typeof VALIDATION_MESSAGES];
        expect(res.body.msg).toBe(lang === "en" ? text.en : text.zh);
      }
    }
    // Nothing was changed by the refused setting.
    const read = await h.call("GET", `/api/device/v1/remoteSettings?deviceId=${machineID}`, {
      token: owner,
    });
    expect(read.body.hwdata).toMatchObject({ onsite_consent: false, can_edit: true });
  });

  it("lets only the Akey change the remote settings, the Bkeys read them, nobody else either", async () => {
    const set = (token: string, lang: "en" | "cn") =>
      h.call("POST", "/api/device/v1/remoteSettings", {
        form: { deviceId: machineID, onsite_consent: 1 },
        token,
        lang,
      });
    for (const token of [bkey, user, stranger])
      for (const lang of ["en", "cn"] as const) {
        const refused = await set(token, lang);
        expect(refused.body).toMatchObject({
          hwcode: HW.DEVICE_NO_PERMISSION.code,
          msg: lang === "en" ? HW.DEVICE_NO_PERMISSION.en : HW.DEVICE_NO_PERMISSION.zh,
        });
      }
    const read = (token: string) =>
      h.call("GET", `/api/device/v1/remoteSettings?deviceId=${machineID}`, { token, lang: "en" });
    expect((await read(bkey)).body.hwdata).toMatchObject({
      onsite_consent: false,
      can_edit: false,
    });
    for (const token of [user, stranger])
      expect((await read(token)).body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
    expect((await set(owner, "en")).body.hwdata).toMatchObject({ onsite_consent: true });
  });

  it("shows a device's activity to its Akey and Bkeys only, the CSV too", async () => {
    const list = (token: string) =>
      h.call("GET", `/api/device/v1/visits/activity?deviceId=${machineID}`, {
        token,
        lang: "cn",
      });
    for (const token of [owner, bkey]) expect((await list(token)).body.hwcode).toBe(0);
    for (const token of [user, stranger])
      expect((await list(token)).body).toMatchObject({
        hwcode: HW.DEVICE_NO_PERMISSION.code,
        msg: HW.DEVICE_NO_PERMISSION.zh,
      });
    const csv = await h.app.inject({
      method: "GET",
      url: `/api/device/v1/visits/activity.csv?deviceId=${machineID}`,
      headers: { cloudtoken: stranger },
    });
    expect(csv.statusCode).toBe(403);
    expect(csv.json().hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
  });
});
