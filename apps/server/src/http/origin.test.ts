import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../seed.ts";
import { createHarness, type Harness } from "../testing/harness.ts";

/**
 * Origin isolation at the API (docs/security.md): the login token is a credential only in
 * the `cloudtoken` header, and state-changing calls from another site are refused whatever
 * they carry — the CSRF of a device's page on `<id>.visit.<host>` that made its attacker a
 * Bkey of the visitor's own device.
 */
let h: Harness;
let owner: string;
let machineID: number;
const VISIT_ORIGIN = "http://abcdefghijklmnopqrstuvwxyz.visit.localhost:8080";

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", {
    terminalType: "ops",
  });
  const [device] = await h.provision(operator);
  owner = await h.signUp("owner@example.com");
  await h.signUp("attacker@example.com");
  machineID = (await h.addDevice(owner, device, "Press")).id;
});
afterAll(async () => {
  await h?.close();
});

/** The device's Bkeys as its owner sees them. */
async function bkeys(): Promise<string[]> {
  const res = await h.call("POST", "/api/admin/select", {
    form: { machineID, infoType: 2, start: 0 },
    token: owner,
  });
  expect(res.body.hwcode).toBe(0);
  return JSON.stringify(res.body.hwdata).match(/attacker/g) ?? [];
}

function makeBkey(headers: Record<string, string>, lang = "en") {
  return h.app.inject({
    method: "POST",
    url: `/api/admin/push?language=${lang}`,
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    payload: `machineID=${machineID}&account=attacker%40example.com`,
  });
}

describe("the API and other sites", () => {
  it("does not take the token cookie as credentials (a cross-site form carries only that)", async () => {
    // The first line on its own (no Origin, as an old browser's same-origin form might send).
    const res = await makeBkey({ cookie: `token=${owner}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().hwcode).toBe(HW.TOKEN_INVALID.code);
    expect(await bkeys()).toEqual([]);
  });

  it("refuses a state-changing call from a visit host even with the token, localized", async () => {
    const attempts: Record<string, string>[] = [
      { "sec-fetch-site": "same-site", origin: VISIT_ORIGIN },
      { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      // Browsers without Sec-Fetch-* are judged by Origin; a sandboxed page says "null".
      { origin: VISIT_ORIGIN },
      { origin: "null" },
    ];
    for (const headers of attempts) {
      const res = await makeBkey({ cloudtoken: owner, ...headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        hwcode: HW.CROSS_SITE_REFUSED.code,
        msg: HW.CROSS_SITE_REFUSED.en,
      });
    }
    const zh = await makeBkey({ cloudtoken: owner, origin: "null" }, "cn");
    expect(zh.json().msg).toBe(HW.CROSS_SITE_REFUSED.zh);
    expect(await bkeys()).toEqual([]);
  });

  it("serves Keyway's own page, the phone app and reads as before", async () => {
    // A safe read from anywhere still needs the header, and changes nothing.
    const read = await h.app.inject({
      method: "GET",
      url: "/api/msg/v1/totalUnread?scene=0",
      headers: { cloudtoken: owner, "sec-fetch-site": "cross-site" },
    });
    expect(read.json().hwcode).toBe(0);
    const page = await makeBkey({
      cloudtoken: owner,
      "sec-fetch-site": "same-origin",
      origin: "http://localhost:8080",
    });
    expect(page.json().hwcode).toBe(0);
    // bkeys() posts as the phone app does: neither Origin nor Sec-Fetch-Site.
    expect(await bkeys()).toEqual(["attacker"]);
  });

  it("takes visit hosts only under its own domain", async () => {
    const foreign = await h.app.inject({
      method: "GET",
      url: "/",
      headers: { host: "abcdefghijklmnopqrstuvwxyz.visit.evil.example" },
    });
    // Not a visit: Keyway's own answer, not the relay's refusal page.
    expect(foreign.headers["x-keyway-hwcode"]).toBeUndefined();
    const own = await h.app.inject({
      method: "GET",
      url: "/",
      headers: { host: "abcdefghijklmnopqrstuvwxyz.visit.localhost:8080" },
    });
    expect(own.statusCode).toBe(403);
    expect(own.headers["x-keyway-hwcode"]).toBe(String(HW.VISIT_LINK_INVALID.code));
  });
});
