import { HW, QR_LOGIN } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { qrLogins } from "./schema.ts";
import { base32Decode, totpCode, totpStep } from "./twoFactor.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const DESKTOP = {
  terminalUUID: "desk-1",
  terminalType: "web",
  terminalName: "Chrome 126",
  terminalOS: "Windows 10/11",
};

async function newQr(extra: Record<string, string | number> = {}) {
  const res = await h.call("POST", "/api/user/getQrToken", {
    form: { ...DESKTOP, ...extra },
    ip: "203.0.113.7",
  });
  expect(res.body.hwcode).toBe(0);
  return res.body.hwdata as { qrToken: string; checkToken: string; url: string };
}

const check = (checkToken: string, lang?: "cn" | "en") =>
  h.call("POST", "/api/user/qrLoginCheck", { form: { checkToken }, lang });
const scan = (qrToken: string, token?: string, lang?: "cn" | "en") =>
  h.call("POST", "/api/user/qrLoginScan", { form: { qrToken }, token, lang });
const answer = (qrToken: string, token: string, confirm: 0 | 1) =>
  h.call("POST", "/api/user/qrLoginConfirm", { form: { qrToken, confirm }, token });

describe("QR-code login", () => {
  it("gives a QR of the phone's confirm page, short-lived, both tokens stored only hashed", async () => {
    const res = await h.call("POST", "/api/user/getQrToken", { form: DESKTOP });
    const data = res.body.hwdata;
    expect(data.qrToken).toMatch(/^[\w-]{43}$/);
    expect(data.checkToken).toMatch(/^[\w-]{43}$/);
    expect(data.checkToken).not.toBe(data.qrToken);
    expect(new URL(data.url).pathname).toBe("/mobile/qrLogin");
    expect(new URL(data.url).searchParams.get("token")).toBe(data.qrToken);
    // The QR carries the confirm URL only: the check token is not in it.
    expect(data.url).not.toContain(data.checkToken);
    expect(data.qrImage).toMatch(/^data:image\/png;base64,/);
    expect(data.ttlSeconds).toBe(QR_LOGIN.ttlSeconds);
    expect(new Date(data.expiredTime).getTime() - h.clock.now().getTime()).toBe(
      QR_LOGIN.ttlSeconds * 1000,
    );
    const rows = await h.db.select().from(qrLogins);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(data.qrToken);
    expect(dump).not.toContain(data.checkToken);
  });

  it("logs the desktop in once a logged-in phone confirms; the desktop gets its own terminal", async () => {
    const phone = await h.signUp("scanner@example.com");
    const qr = await newQr();
    expect((await check(qr.checkToken)).body.hwdata).toEqual({ state: "waiting" });

    const seen = await scan(qr.qrToken, phone);
    expect(seen.body.hwcode).toBe(0);
    expect(seen.body.hwdata).toMatchObject({
      terminalType: "web",
      terminalName: "Chrome 126",
      terminalOS: "Windows 10/11",
      ip: "203.0.113.7",
    });
    expect((await check(qr.checkToken)).body.hwdata).toEqual({ state: "scanned" });

    expect((await answer(qr.qrToken, phone, 1)).body.hwcode).toBe(0);
    const done = await check(qr.checkToken);
    expect(done.body.hwcode).toBe(0);
    expect(done.body.hwdata.state).toBe("confirmed");
    const desktop = done.body.hwdata.result.token;
    expect(desktop).toMatch(/^[\w-]{43}$/);
    expect(done.body.hwdata.result).toMatchObject({ email: "scanner@example.com" });

    const info = await h.call("GET", "/api/user/selectInfo", { token: desktop });
    expect(info.body.hwdata.email).toBe("scanner@example.com");
    // Both sessions live: the phone's terminal and the desktop's new one.
    const list = await h.call("GET", "/api/user/v1/tokenInfo", { token: desktop });
    expect(list.body.hwdata.list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "web", name: "Chrome 126 (Windows 10/11)", current: true }),
        expect.objectContaining({ type: "android", current: false }),
      ]),
    );
    expect((await h.call("GET", "/api/user/selectInfo", { token: phone })).body.hwcode).toBe(0);

    // Used: no second session from the same QR, and the phone cannot answer it again.
    const again = await check(qr.checkToken, "en");
    expect(again.body).toMatchObject({
      hwcode: HW.QR_USED.code,
      msg: "The QR code has already been used",
    });
    expect((await scan(qr.qrToken, phone)).body.hwcode).toBe(HW.QR_USED.code);
    expect((await answer(qr.qrToken, phone, 1)).body.hwcode).toBe(HW.QR_USED.code);
  });

  it("keeps a web session of the phone that confirmed (same terminal kind as the desktop)", async () => {
    await h.signUp("webphone@example.com");
    const phoneWeb = await h.login("webphone@example.com", "secret123", { terminalType: "web" });
    const qr = await newQr();
    await scan(qr.qrToken, phoneWeb);
    await answer(qr.qrToken, phoneWeb, 1);
    expect((await check(qr.checkToken)).body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: phoneWeb })).body.hwcode).toBe(0);
  });

  it("refuses a QR cancelled on the phone", async () => {
    const phone = await h.signUp("canceller@example.com");
    const qr = await newQr();
    await scan(qr.qrToken, phone);
    expect((await answer(qr.qrToken, phone, 0)).body.hwcode).toBe(0);
    const res = await check(qr.checkToken, "cn");
    expect(res.body).toMatchObject({ hwcode: HW.QR_CANCELLED.code, msg: "登录已在手机上取消" });
    expect((await answer(qr.qrToken, phone, 1)).body.hwcode).toBe(HW.QR_CANCELLED.code);
  });

  it("refuses an expired QR on both sides", async () => {
    const phone = await h.signUp("sleepy@example.com");
    const qr = await newQr();
    h.clock.advance((QR_LOGIN.ttlSeconds + 1) * 1000);
    const desk = await check(qr.checkToken, "en");
    expect(desk.body).toMatchObject({
      hwcode: HW.QR_EXPIRED.code,
      msg: "The QR code has expired; refresh it",
    });
    expect((await scan(qr.qrToken, phone)).body.hwcode).toBe(HW.QR_EXPIRED.code);
    expect((await answer(qr.qrToken, phone, 1)).body.hwcode).toBe(HW.QR_EXPIRED.code);
  });

  it("gives the desktop a little time to collect a QR confirmed just before its end", async () => {
    const phone = await h.signUp("lastsecond@example.com");
    const qr = await newQr();
    h.clock.advance((QR_LOGIN.ttlSeconds - 1) * 1000);
    expect((await answer(qr.qrToken, phone, 1)).body.hwcode).toBe(0);
    h.clock.advance(5_000);
    expect((await check(qr.checkToken)).body.hwdata.state).toBe("confirmed");
  });

  it("refuses unknown tokens, and the QR token as a check token", async () => {
    const phone = await h.signUp("prober@example.com");
    const qr = await newQr();
    expect((await check(qr.qrToken)).body.hwcode).toBe(HW.QR_INVALID.code);
    const made = "A".repeat(43);
    expect((await check(made)).body.hwcode).toBe(HW.QR_INVALID.code);
    expect((await scan(made, phone)).body.hwcode).toBe(HW.QR_INVALID.code);
    // The phone side needs a login; a bad token format is a field error, not a 500.
    const anonymous = await scan(qr.qrToken);
    expect(anonymous.status).toBe(401);
    expect((await answer(qr.qrToken, "not-a-token", 1)).status).toBe(401);
    expect((await check("short")).body.hwcode).toBe(HW.BAD_REQUEST.code);
    // Still usable after all that.
    expect((await check(qr.checkToken)).body.hwdata.state).toBe("waiting");
  });

  it("does not ask the phone's user for the second factor", async () => {
    const phone = await h.signUp("secure@example.com");
    const setup = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token: phone,
    });
    const code = totpCode(base32Decode(setup.body.hwdata.secret), totpStep(h.clock.now()));
    await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token: phone,
      form: { code },
    });
    // The password alone no longer logs in ...
    const pw = await h.call("POST", "/api/user/login", {
      form: { loginName: "secure@example.com", loginPwd: "secret123" },
    });
    expect(pw.body.hwcode).toBe(HW.TWO_FACTOR_REQUIRED.code);
    // ... but the phone's session vouches for the desktop.
    const qr = await newQr();
    await answer(qr.qrToken, phone, 1);
    const done = await check(qr.checkToken);
    expect(done.body.hwcode).toBe(0);
    expect(done.body.hwdata.result.token).toBeTruthy();
  });

  it("limits QR requests and checks per address with a 429 envelope", async () => {
    const asks: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await h.call("POST", "/api/user/getQrToken", { form: DESKTOP, ip: "192.0.2.50" });
      asks.push(res.status);
    }
    expect(asks.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(asks.at(-1)).toBe(429);

    const qr = await newQr();
    let last = 0;
    let body: { hwcode: string | number } = { hwcode: 0 };
    for (let i = 0; i < 100 && last !== 429; i++) {
      const res = await h.call("POST", "/api/user/qrLoginCheck", {
        form: { checkToken: qr.checkToken },
        ip: "192.0.2.60",
      });
      last = res.status;
      body = res.body;
    }
    expect(last).toBe(429);
    expect(body.hwcode).toBe(HW.RATE_LIMITED.code);
  });
});
