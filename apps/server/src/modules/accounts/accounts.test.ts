import { HW, LOGIN_LOCK, VALIDATION_MESSAGES } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { terminals, users } from "./schema.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("register and activate", () => {
  it("registers by e-mail, activates with the mailed code, and logs in", async () => {
    const reg = await h.call("POST", "/api/user/v1/register", {
      form: { email: "Alice@Example.com", password: "secret123", name: "Alice", oemid: "vantage" },
    });
    expect(reg.body).toMatchObject({
      hwcode: 0,
      hwdata: { account: "alice@example.com", channel: "email" },
    });

    // Not activated yet: the right password is still refused.
    const early = await h.call("POST", "/api/user/login", {
      form: { loginName: "alice@example.com", loginPwd: "secret123" },
    });
    expect(early.body.hwcode).toBe(HW.ACCOUNT_NOT_ACTIVATED.code);

    const code = await h.lastCode("alice@example.com");
    const act = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "alice@example.com", SMSVerificationCode: code },
    });
    expect(act.body).toMatchObject({ hwcode: 0, hwdata: 1 });

    const token = await h.login("alice@example.com", "secret123");
    const info = await h.call("GET", "/api/user/selectInfo", { token });
    expect(info.body.hwdata).toMatchObject({
      name: "Alice",
      email: "alice@example.com",
      email_state: 1,
      phone_state: 0,
      hideMap: 0,
      role: "user",
    });
  });

  it("registers by phone with an 0086 prefix and logs in with country code 86", async () => {
    const reg = await h.call("POST", "/api/user/v1/register", {
      form: { phone: "008613800138000", countryCode: "86", password: "secret123", name: "Bob" },
    });
    expect(reg.body).toMatchObject({
      hwcode: 0,
      hwdata: { account: "13800138000", channel: "sms" },
    });
    const code = await h.lastCode("8613800138000");
    const act = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "13800138000", SMSVerificationCode: code },
    });
    expect(act.body.hwcode).toBe(0);
    const login = await h.call("POST", "/api/user/login", {
      form: { loginName: "13800138000", loginPwd: "secret123", countryCode: "86" },
    });
    expect(login.body.hwcode).toBe(0);
    expect(login.body.hwdata.result).toMatchObject({ phone: "13800138000", email: null });
    expect(login.body.hwdata.result.token).toMatch(/^[\w-]{40,}$/);
  });

  it("accepts JSON bodies as well as form posts", async () => {
    const reg = await h.call("POST", "/api/user/v1/register", {
      json: { email: "json@example.com", password: "secret123", name: "Jason" },
    });
    expect(reg.body.hwcode).toBe(0);
  });

  it("refuses a phone or e-mail that is already registered", async () => {
    await h.signUp("taken@example.com");
    const again = await h.call("POST", "/api/user/v1/register", {
      form: { email: "TAKEN@example.com", password: "other123", name: "Mallory" },
    });
    expect(again.body.hwcode).toBe(HW.ACCOUNT_EXISTS.code);
    expect(again.body.msg).toBe(HW.ACCOUNT_EXISTS.zh);
  });

  it("lets a new registrant take over a never-activated registration", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "pending@example.com", password: "first123", name: "First" },
    });
    h.clock.advance(2 * MINUTE);
    const second = await h.call("POST", "/api/user/v1/register", {
      form: { email: "pending@example.com", password: "second123", name: "Second" },
    });
    expect(second.body.hwcode).toBe(0);
    const code = await h.lastCode("pending@example.com");
    await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "pending@example.com", SMSVerificationCode: code },
    });
    const token = await h.login("pending@example.com", "second123");
    const info = await h.call("GET", "/api/user/selectInfo", { token });
    expect(info.body.hwdata.name).toBe("Second");
  });
});

describe("verification codes", () => {
  it("refuses a wrong code, then accepts the right one", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "wrong@example.com", password: "secret123", name: "Wrong" },
    });
    const code = await h.lastCode("wrong@example.com");
    const bad = code === "000000" ? "111111" : "000000";
    const refused = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "wrong@example.com", SMSVerificationCode: bad },
      lang: "en",
    });
    expect(refused.body).toMatchObject({ hwcode: HW.CODE_ERROR.code, msg: "Code error" });
    const accepted = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "wrong@example.com", SMSVerificationCode: code },
    });
    expect(accepted.body.hwcode).toBe(0);
  });

  it("expires a code after its lifetime", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "late@example.com", password: "secret123", name: "Late" },
    });
    const code = await h.lastCode("late@example.com");
    h.clock.advance(11 * MINUTE);
    const res = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "late@example.com", SMSVerificationCode: code },
      lang: "en",
    });
    expect(res.body).toMatchObject({
      hwcode: HW.CODE_EXPIRED.code,
      msg: "Validation code expired",
    });
  });

  it("invalidates a code after five wrong tries", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "guess@example.com", password: "secret123", name: "Guess" },
    });
    const code = await h.lastCode("guess@example.com");
    const wrong = code === "123456" ? "654321" : "123456";
    for (let i = 0; i < 5; i++) {
      const r = await h.call("POST", "/api/user/activeAccount", {
        form: { activeAccount: "guess@example.com", SMSVerificationCode: wrong },
      });
      expect(r.body.hwcode).toBe(HW.CODE_ERROR.code);
    }
    const late = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "guess@example.com", SMSVerificationCode: code },
    });
    expect(late.body.hwcode).toBe(HW.CODE_EXPIRED.code);
  });

  it("throttles resending, and a new code replaces the old one", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "resend@example.com", password: "secret123", name: "Resend" },
    });
    const first = await h.lastCode("resend@example.com");
    const tooSoon = await h.call("POST", "/api/common/emailCode", {
      form: { email: "resend@example.com", purpose: "register" },
      lang: "en",
    });
    expect(tooSoon.body).toMatchObject({
      hwcode: HW.CODE_TOO_FREQUENT.code,
      msg: "Send verification code too frequently",
    });
    h.clock.advance(61_000);
    const resent = await h.call("POST", "/api/common/emailCode", {
      form: { email: "resend@example.com", purpose: "register" },
    });
    expect(resent.body.hwcode).toBe(0);
    const second = await h.lastCode("resend@example.com");
    if (first !== second) {
      const old = await h.call("POST", "/api/user/activeAccount", {
        form: { activeAccount: "resend@example.com", SMSVerificationCode: first },
      });
      expect(old.body.hwcode).toBe(HW.CODE_ERROR.code);
    }
    const ok = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "resend@example.com", SMSVerificationCode: second },
    });
    expect(ok.body.hwcode).toBe(0);
  });

  it("caps SMS codes per phone per day", async () => {
    const phone = "13900139000";
    await h.call("POST", "/api/user/v1/register", {
      form: { phone, countryCode: "86", password: "secret123", name: "Daily" },
    });
    for (let i = 1; i < 10; i++) {
      h.clock.advance(61_000);
      const r = await h.call("POST", "/api/common/mobSendMessage", {
        form: { phone, countryCode: "86", purpose: "register" },
      });
      expect(r.body.hwcode).toBe(0);
    }
    h.clock.advance(61_000);
    const capped = await h.call("POST", "/api/v1/internal/smsVerificationCode", {
      form: { phone, countryCode: "86", purpose: "register" },
      lang: "en",
    });
    expect(capped.body).toMatchObject({
      hwcode: HW.SMS_DAILY_LIMIT.code,
      msg: "SMS daily limit exceeded",
    });
    h.clock.advance(24 * HOUR);
    const nextDay = await h.call("POST", "/api/common/mobSendMessage", {
      form: { phone, countryCode: "86", purpose: "register" },
    });
    expect(nextDay.body.hwcode).toBe(0);
  });

  it("checks a code without using it up (forgot-password step 2)", async () => {
    await h.signUp("check@example.com");
    h.clock.advance(61_000);
    await h.call("POST", "/api/common/emailCode", {
      form: { email: "check@example.com", purpose: "reset" },
    });
    const code = await h.lastCode("check@example.com");
    const checked = await h.call("POST", "/api/common/emailVerify", {
      form: { email: "check@example.com", purpose: "reset", code },
    });
    expect(checked.body.hwcode).toBe(0);
    const again = await h.call("POST", "/api/v1/internal/emailVerificationCodeCheck", {
      form: { email: "check@example.com", purpose: "reset", code },
    });
    expect(again.body.hwcode).toBe(0);
  });

  it("refuses a reset code for an account that does not exist", async () => {
    const res = await h.call("POST", "/api/common/emailCode", {
      form: { email: "nobody@example.com", purpose: "reset" },
    });
    expect(res.body.hwcode).toBe(HW.ACCOUNT_NOT_FOUND.code);
  });
});

describe("login", () => {
  it("refuses an unknown account and a wrong password with the SPEC codes", async () => {
    const unknown = await h.call("POST", "/api/user/login", {
      form: { loginName: "ghost@example.com", loginPwd: "whatever1" },
    });
    expect(unknown.body.hwcode).toBe("07010109");
    await h.signUp("carol@example.com", "right123");
    const wrong = await h.call("POST", "/api/user/login", {
      form: { loginName: "carol@example.com", loginPwd: "wrong123" },
      lang: "en",
    });
    expect(wrong.body).toMatchObject({ hwcode: "07010110", msg: "Password error" });
  });

  it("locks out the source of five wrong passwords only: the owner elsewhere still logs in", async () => {
    await h.signUp("dave@example.com", "right123");
    const attacker = "203.0.113.66";
    const tryFrom = (ip: string, loginPwd: string) =>
      h.call("POST", "/api/user/login", { form: { loginName: "dave@example.com", loginPwd }, ip });
    const answers: (string | number)[] = [];
    // 18 guesses and 2 right passwords: the 20 logins a minute one address may send at all.
    for (let i = 0; i < 18; i++) answers.push((await tryFrom(attacker, `wrong${i}xx`)).body.hwcode);
    expect(answers.slice(0, 4)).toEqual(Array(4).fill(HW.PASSWORD_ERROR.code));
    expect(answers.slice(4)).toEqual(Array(14).fill(HW.ACCOUNT_LOCKED.code));
    // Even the right password is refused from the locked-out source…
    expect((await tryFrom(attacker, "right123")).body.hwcode).toBe(HW.ACCOUNT_LOCKED.code);
    // …while the owner, from another address, is not locked out by the attacker.
    expect((await tryFrom("198.51.100.20", "right123")).body.hwcode).toBe(0);
    h.clock.advance(16 * MINUTE);
    expect((await tryFrom(attacker, "right123")).body.hwcode).toBe(0);
  });

  it("past 50 wrong passwords from many sources in an hour, lets in only the owner's known sources", async () => {
    await h.signUp("gus@example.com", "right123");
    const tryFrom = (ip: string, loginPwd: string) =>
      h.call("POST", "/api/user/login", { form: { loginName: "gus@example.com", loginPwd }, ip });
    const home = "198.51.100.30";
    expect((await tryFrom(home, "right123")).body.hwcode).toBe(0);
    // A guesser spread over addresses, two tries each: no single source reaches its lock.
    for (let i = 0; i < LOGIN_LOCK.accountMaxFailures; i++) {
      const r = await tryFrom(`203.0.113.${100 + Math.floor(i / 2)}`, `guess${i}xx`);
      expect(r.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    }
    // Now a new address is refused before its password is even tried; home still gets in.
    expect((await tryFrom("192.0.2.77", "right123")).body.hwcode).toBe(HW.ACCOUNT_LOCKED.code);
    expect((await tryFrom(home, "right123")).body.hwcode).toBe(0);
    h.clock.advance((LOGIN_LOCK.accountWindowMinutes + 1) * MINUTE);
    expect((await tryFrom("192.0.2.77", "right123")).body.hwcode).toBe(0);
  });

  it("a password reset by code ends every lock on the account", async () => {
    await h.signUp("fay@example.com", "right123");
    const attacker = "203.0.113.67";
    for (let i = 0; i < LOGIN_LOCK.maxFailures; i++) {
      await h.call("POST", "/api/user/login", {
        form: { loginName: "fay@example.com", loginPwd: `wrong${i}xx` },
        ip: attacker,
      });
    }
    await h.call("POST", "/api/common/emailCode", {
      form: { email: "fay@example.com", purpose: "reset" },
    });
    const code = await h.lastCode("fay@example.com");
    const reset = await h.call("PUT", "/api/user/v1/password", {
      form: { email: "fay@example.com", password: "newpass123", code },
    });
    expect(reset.body.hwcode).toBe(0);
    const after = await h.call("POST", "/api/user/login", {
      form: { loginName: "fay@example.com", loginPwd: "newpass123" },
      ip: attacker,
    });
    expect(after.body.hwcode).toBe(0);
  });

  it("answers 401 with hwcode 113 for a missing, unknown or expired token", async () => {
    const missing = await h.call("GET", "/api/user/selectInfo");
    expect(missing.status).toBe(401);
    expect(missing.body.hwcode).toBe(113);
    const unknown = await h.call("GET", "/api/user/selectInfo", { token: "not-a-token" });
    expect(unknown.status).toBe(401);

    await h.signUp("erin@example.com", "secret123");
    const session = await h.login("erin@example.com", "secret123");
    const kept = await h.login("erin@example.com", "secret123", { keepLogin: "1" });
    h.clock.advance(25 * HOUR);
    expect((await h.call("GET", "/api/user/selectInfo", { token: session })).status).toBe(401);
    expect((await h.call("GET", "/api/user/selectInfo", { token: kept })).status).toBe(200);
    h.clock.advance(30 * 24 * HOUR);
    expect((await h.call("GET", "/api/user/selectInfo", { token: kept })).status).toBe(401);
  });

  it("logs out: the token is refused afterwards", async () => {
    const token = await h.signUp("frank@example.com");
    const out = await h.call("POST", "/api/user/logout", { form: { token }, token });
    expect(out.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token })).status).toBe(401);
  });

  it("gives one token per terminal: logging in again from it replaces the old token", async () => {
    await h.signUp("gina@example.com");
    const first = await h.login("gina@example.com", "secret123", { terminalUUID: "same-browser" });
    const second = await h.login("gina@example.com", "secret123", { terminalUUID: "same-browser" });
    expect((await h.call("GET", "/api/user/selectInfo", { token: first })).status).toBe(401);
    const list = await h.call("GET", "/api/user/v1/tokenInfo?page=1&pageSize=15", {
      token: second,
    });
    expect(list.body.hwdata.total).toBe(2); // signUp's own terminal + this one
  });
});

describe("terminals", () => {
  it("lists terminals with paging and ends the session of a deleted one", async () => {
    const phone = await h.signUp("hank@example.com");
    const laptop = await h.login("hank@example.com", "secret123", {
      terminalName: "Chrome 156",
      terminalOS: "Linux",
      terminalType: "web",
    });
    const page = await h.call("GET", "/api/user/v1/tokenInfo?page=1&pageSize=15", { token: phone });
    expect(page.body.hwdata.total).toBe(2);
    const laptopRow = page.body.hwdata.list.find(
      (t: { name: string }) => t.name === "Chrome 156 (Linux)",
    );
    expect(laptopRow).toMatchObject({ type: "web", current: false });
    expect(Date.parse(laptopRow.expiredTime)).toBeGreaterThan(Date.parse(laptopRow.loginTime));

    const small = await h.call("GET", "/api/user/v1/tokenInfo?page=2&pageSize=1", { token: phone });
    expect(small.body.hwdata.list).toHaveLength(1);

    const del = await h.call("DELETE", `/api/user/v1/tokenInfo/${laptopRow.id}`, { token: phone });
    expect(del.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: laptop })).status).toBe(401);
    expect((await h.call("GET", "/api/user/selectInfo", { token: phone })).status).toBe(200);
  });

  it("refuses to delete another user's terminal", async () => {
    const ivy = await h.signUp("ivy@example.com");
    const jack = await h.signUp("jack@example.com");
    const jackList = await h.call("GET", "/api/user/v1/tokenInfo", { token: jack });
    const jackTerminal = jackList.body.hwdata.list[0].id;
    const res = await h.call("DELETE", `/api/user/v1/tokenInfo/${jackTerminal}`, { token: ivy });
    expect(res.body.hwcode).toBe(HW.TERMINAL_NOT_FOUND.code);
    expect((await h.call("GET", "/api/user/selectInfo", { token: jack })).status).toBe(200);
  });

  it("answers an id beyond the database's integer range as a wrong id, in the caller's language", async () => {
    const kim = await h.signUp("kim@example.com");
    const res = await h.call("DELETE", "/api/user/v1/tokenInfo/13800138000?lang=en", {
      token: kim,
    });
    expect(res.status).toBeLessThan(500);
    expect(res.body).toMatchObject({ hwcode: HW.BAD_REQUEST.code, msg: "Wrong id" });
    expect((await h.call("GET", "/api/user/selectInfo", { token: kim })).status).toBe(200);
    // Any other integer field alike (a message type here), in Chinese too.
    const type = (msgwhat: number) =>
      h.call("POST", "/api/user/getMsgCenterMsgs", { token: kim, lang: "cn", json: { msgwhat } });
    expect((await type(2147483648)).body).toMatchObject({
      hwcode: HW.BAD_REQUEST.code,
      msg: "数值格式错误",
    });
    expect((await type(2)).body.hwcode).toBe(0);
  });
});

describe("forgot password", () => {
  it("confirms the account, verifies the code and resets; old sessions end", async () => {
    const old = await h.signUp("kate@example.com", "before123");
    const confirm = await h.call("GET", "/api/user/v1/confirmAccount?email=kate@example.com");
    expect(confirm.body).toMatchObject({
      hwcode: 0,
      hwdata: { account: "ka***@example.com", channel: "email" },
    });
    h.clock.advance(61_000);
    await h.call("POST", "/api/common/emailCode", {
      form: { email: "kate@example.com", purpose: "reset" },
    });
    const code = await h.lastCode("kate@example.com");
    const wrongCode = await h.call("PUT", "/api/user/v1/password", {
      form: {
        email: "kate@example.com",
        password: "after123",
        code: code === "999999" ? "888888" : "999999",
      },
    });
    expect(wrongCode.body.hwcode).toBe(HW.CODE_ERROR.code);
    const reset = await h.call("PUT", "/api/user/v1/password", {
      form: { email: "kate@example.com", password: "after123", code },
    });
    expect(reset.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: old })).status).toBe(401);
    const oldPwd = await h.call("POST", "/api/user/login", {
      form: { loginName: "kate@example.com", loginPwd: "before123" },
    });
    expect(oldPwd.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    await h.login("kate@example.com", "after123");
    // The code is used up.
    const replay = await h.call("PUT", "/api/user/v1/password", {
      form: { email: "kate@example.com", password: "again1234", code },
    });
    expect(replay.body.hwcode).toBe(HW.CODE_EXPIRED.code);
  });

  it("says when the account does not exist", async () => {
    const res = await h.call("GET", "/api/user/v1/confirmAccount?phone=13700137000&countryCode=86");
    expect(res.body.hwcode).toBe(HW.ACCOUNT_NOT_FOUND.code);
  });
});

describe("account changes", () => {
  it("changes the name and refuses a bad one", async () => {
    const token = await h.signUp("leo@example.com");
    expect(
      (await h.call("PUT", "/api/user/v1/userName", { form: { name: "Leo Li" }, token })).body
        .hwcode,
    ).toBe(0);
    const bad = await h.call("PUT", "/api/user/v1/userName", {
      form: { name: "<script>" },
      token,
      lang: "en",
    });
    expect(bad.body).toMatchObject({
      hwcode: 400,
      msg: "Name must be 2-10 characters without special characters",
    });
    const info = await h.call("GET", "/api/user/selectInfo", { token });
    expect(info.body.hwdata.name).toBe("Leo Li");
  });

  it("changes the password: wrong current password refused, other terminals logged out", async () => {
    const here = await h.signUp("mia@example.com", "first123");
    const there = await h.login("mia@example.com", "first123");
    const wrong = await h.call("POST", "/api/user/changeLoginPwd", {
      form: { account: "mia@example.com", oldPwd: "nope1234", newPwd: "second123" },
      token: here,
    });
    expect(wrong.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    const ok = await h.call("POST", "/api/user/changeLoginPwd", {
      form: { account: "mia@example.com", oldPwd: "first123", newPwd: "second123" },
      token: here,
    });
    expect(ok.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: here })).status).toBe(200);
    expect((await h.call("GET", "/api/user/selectInfo", { token: there })).status).toBe(401);
    await h.login("mia@example.com", "second123");
  });

  it("changes the e-mail with a code sent to the new address", async () => {
    const token = await h.signUp("nina@example.com");
    await h.signUp("owner@example.com");
    const same = await h.call("POST", "/api/common/emailCode", {
      form: { email: "nina@example.com", purpose: "change" },
      token,
    });
    expect(same.body.hwcode).toBe(HW.SAME_AS_CURRENT.code);
    const taken = await h.call("POST", "/api/common/emailCode", {
      form: { email: "owner@example.com", purpose: "change" },
      token,
    });
    expect(taken.body.hwcode).toBe(HW.ACCOUNT_EXISTS.code);
    const anonymous = await h.call("POST", "/api/common/emailCode", {
      form: { email: "new-nina@example.com", purpose: "change" },
    });
    expect(anonymous.status).toBe(401);

    const sent = await h.call("POST", "/api/common/emailCode", {
      form: { email: "new-nina@example.com", purpose: "change" },
      token,
    });
    expect(sent.body.hwcode).toBe(0);
    const code = await h.lastCode("new-nina@example.com");
    const sameDirect = await h.call("PUT", "/api/user/v1/account", {
      form: { email: "nina@example.com", code },
      token,
    });
    // SPEC: this call answers 0 or 420; the reason's own text is in msg.
    expect(sameDirect.body).toMatchObject({
      hwcode: 420,
      hwdata: { reason: HW.SAME_AS_CURRENT.code },
      msg: HW.SAME_AS_CURRENT.zh,
    });
    const changed = await h.call("PUT", "/api/user/v1/account", {
      form: { email: "new-nina@example.com", code },
      token,
    });
    expect(changed.body.hwcode).toBe(0);
    await h.login("new-nina@example.com", "secret123");
    const oldLogin = await h.call("POST", "/api/user/login", {
      form: { loginName: "nina@example.com", loginPwd: "secret123" },
    });
    expect(oldLogin.body.hwcode).toBe(HW.ACCOUNT_NOT_FOUND.code);
  });

  it("adds a phone to an e-mail account, refusing a wrong code", async () => {
    const token = await h.signUp("omar@example.com");
    await h.call("POST", "/api/common/mobSendMessage", {
      form: { phone: "13600136000", countryCode: "86", purpose: "change" },
      token,
    });
    const code = await h.lastCode("8613600136000");
    const wrong = await h.call("PUT", "/api/user/v1/account", {
      form: {
        phone: "13600136000",
        countryCode: "86",
        code: code === "000000" ? "111111" : "000000",
      },
      token,
    });
    expect(wrong.body).toMatchObject({
      hwcode: 420,
      hwdata: { reason: HW.CODE_ERROR.code },
      msg: HW.CODE_ERROR.zh,
    });
    const ok = await h.call("PUT", "/api/user/v1/account", {
      form: { phone: "13600136000", countryCode: "86", code },
      token,
    });
    expect(ok.body.hwcode).toBe(0);
    const info = await h.call("GET", "/api/user/selectInfo", { token });
    expect(info.body.hwdata).toMatchObject({
      phone: "13600136000",
      phone_state: 1,
      email_state: 1,
    });
  });

  it("switches hide-map", async () => {
    const token = await h.signUp("pia@example.com");
    await h.call("PUT", "/api/user/v1/hideMap", { form: { hideMap: 1 }, token });
    expect((await h.call("GET", "/api/user/selectInfo", { token })).body.hwdata.hideMap).toBe(1);
    await h.call("PUT", "/api/user/v1/hideMap", { json: { hideMap: false }, token });
    expect((await h.call("GET", "/api/user/selectInfo", { token })).body.hwdata.hideMap).toBe(0);
    const bad = await h.call("PUT", "/api/user/v1/hideMap", { form: { hideMap: 7 }, token });
    expect(bad.body.hwcode).toBe(400);
  });

  it("verifies the current password and whether an e-mail is taken", async () => {
    const token = await h.signUp("quinn@example.com");
    expect(
      (await h.call("GET", "/api/user/v1/passVerify?password=secret123", { token })).body.hwcode,
    ).toBe(0);
    expect(
      (await h.call("GET", "/api/user/v1/passVerify?password=nope12", { token })).body.hwcode,
    ).toBe(HW.PASSWORD_ERROR.code);
    expect(
      (await h.call("GET", "/api/user/v1/emailVerify?email=quinn@example.com")).body.hwdata,
    ).toEqual({ exists: 1 });
    expect(
      (await h.call("GET", "/api/user/v1/emailVerify?email=free@example.com")).body.hwdata,
    ).toEqual({ exists: 0 });
  });

  it("deletes the account only with the right password", async () => {
    const token = await h.signUp("rosa@example.com");
    const wrong = await h.call("DELETE", "/api/v1/users/account", {
      form: { password: "nope1234" },
      token,
    });
    expect(wrong.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    const gone = await h.call("DELETE", "/api/v1/users/account", {
      json: { password: "secret123" },
      token,
    });
    expect(gone.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token })).status).toBe(401);
    const login = await h.call("POST", "/api/user/login", {
      form: { loginName: "rosa@example.com", loginPwd: "secret123" },
    });
    expect(login.body.hwcode).toBe(HW.ACCOUNT_NOT_FOUND.code);
  });
});

describe("formats and envelope", () => {
  it.each([
    [
      "phone",
      { phone: "12345", countryCode: "86", password: "secret123", name: "Sam" },
      "Wrong phone format",
    ],
    [
      "e-mail",
      { email: "not-an-email", password: "secret123", name: "Sam" },
      "Wrong e-mail format",
    ],
    [
      "password",
      { email: "sam@example.com", password: "123", name: "Sam" },
      "Password must be 6-20 characters",
    ],
    [
      "name",
      { email: "sam@example.com", password: "secret123", name: "S" },
      "Name must be 2-10 characters without special characters",
    ],
    ["neither", { password: "secret123", name: "Sam" }, "Enter a phone number or an e-mail"],
  ])("refuses a bad %s with a localized message", async (_what, form, en) => {
    const res = await h.call("POST", "/api/user/v1/register", { form, lang: "en" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hwcode: 400, msg: en });
    const zh = await h.call("POST", "/api/user/v1/register", { form });
    expect(zh.body.hwcode).toBe(400);
    expect(zh.body.msg).toMatch(/[\u4e00-\u9fa5]/);
  });

  it("accepts a non-Chinese phone by its own country's rules", async () => {
    const res = await h.call("POST", "/api/user/v1/register", {
      form: { phone: "2025550123", countryCode: "1", password: "secret123", name: "Uma" },
    });
    expect(res.body.hwcode).toBe(0);
    expect(await h.lastCode("12025550123")).toMatch(/^\d{6}$/);
  });

  it("refuses a code of the wrong length before looking it up", async () => {
    const res = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "x@example.com", SMSVerificationCode: "12345" },
      lang: "en",
    });
    expect(res.body).toMatchObject({ hwcode: 400, msg: "The code is 4 or 6 digits" });
  });

  it("answers malformed JSON with the envelope, not a 500", async () => {
    const res = await h.app.inject({
      method: "POST",
      url: "/api/user/login",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ hwcode: 400 });
  });

  it("answers an unknown API path with a 404 envelope", async () => {
    const res = await h.app.inject({ method: "GET", url: "/api/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ hwcode: 404 });
  });

  it("sends security headers and serves the OpenAPI document at /apiDoc", async () => {
    const res = await h.app.inject({ method: "GET", url: "/apiDoc/json" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
    const doc = res.json();
    expect(doc.paths["/api/user/login"].post.requestBody).toBeDefined();
    expect(Object.keys(doc.paths)).toContain("/api/user/v1/tokenInfo/{id}");
  });

  it("asks browsers to upgrade requests to https only when the platform is served over https", async () => {
    // Served over plain http (a LAN address), an upgrade would break every script and call.
    const plain = await h.app.inject({ method: "GET", url: "/apiDoc/json" });
    expect(plain.headers["content-security-policy"]).not.toContain("upgrade-insecure-requests");
    const secure = await createHarness({ config: { PUBLIC_URL: "https://keyway.example.com" } });
    try {
      const res = await secure.app.inject({ method: "GET", url: "/apiDoc/json" });
      expect(res.headers["content-security-policy"]).toContain("upgrade-insecure-requests");
    } finally {
      await secure.close();
    }
  });
});

describe("operator outbox", () => {
  it("is readable by the operator and refused to a user", async () => {
    await seedDemo(h.app.services.accounts);
    const user = await h.login("demo@keyway.local", "demo1234");
    const refused = await h.call("GET", "/api/operator/v1/outbox", { token: user, lang: "en" });
    expect(refused.body).toMatchObject({
      hwcode: "06010201",
      msg: "No access to the management interface",
    });
    const operator = await h.login("operator@keyway.local", "operator123");
    const outbox = await h.call("GET", "/api/operator/v1/outbox?page=1&pageSize=5", {
      token: operator,
    });
    expect(outbox.body.hwcode).toBe(0);
    expect(outbox.body.hwdata.list).toHaveLength(5);
    expect(outbox.body.hwdata.total).toBeGreaterThan(5);
    expect(outbox.body.hwdata.list[0]).toMatchObject({ status: "outbox" });
  });
});

describe("rate limits", () => {
  it("limits login attempts per IP with a 429 envelope", async () => {
    let last = 0;
    let body: { hwcode: number | string } = { hwcode: 0 };
    for (let i = 0; i < 25 && last !== 429; i++) {
      const res = await h.app.inject({
        method: "POST",
        url: "/api/user/login",
        remoteAddress: "203.0.113.9",
        payload: { loginName: "ghost@example.com", loginPwd: "whatever" },
      });
      last = res.statusCode;
      body = res.json();
    }
    expect(last).toBe(429);
    expect(body.hwcode).toBe(429);
    // Another address is not affected.
    const other = await h.app.inject({
      method: "POST",
      url: "/api/user/login",
      remoteAddress: "203.0.113.10",
      payload: { loginName: "ghost@example.com", loginPwd: "whatever" },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe("SPEC §7 calls without a shown payload", () => {
  it("getUserId answers the caller's id; no token, 401", async () => {
    const token = await h.signUp("uid@example.com");
    const info = await h.call("GET", "/api/user/selectInfo", { token });
    const res = await h.call("POST", "/api/user/getUserId", { token });
    expect(res.body).toMatchObject({ hwcode: 0, hwdata: { userid: info.body.hwdata.id } });
    const anonymous = await h.call("POST", "/api/user/getUserId");
    expect(anonymous).toMatchObject({ status: 401, body: { hwcode: 113 } });
  });

  it("selectFriendsList: the people of shared devices, managers and their members only", async () => {
    const akey = await h.signUp("f-akey@example.com", "secret123", "Anna");
    const bkey = await h.signUp("f-bkey@example.com", "secret123", "Bert");
    const member = await h.signUp("f-user@example.com", "secret123", "Carl");
    const visitor = await h.signUp("f-visit@example.com", "secret123", "Vera");
    const loner = await h.signUp("f-loner@example.com", "secret123", "Lone");
    const idOf = async (email: string) =>
      (await h.db.select().from(users).where(eq(users.email, email)))[0].id;
    const now = new Date();
    const [d1, d2] = await h.db
      .insert(devices)
      .values(
        ["F-0001", "F-0002"].map((code) => ({
          code,
          secretHash: "x",
          passwordHash: "x",
          createdAt: now,
        })),
      )
      .returning();
    const link = async (
      deviceId: number,
      email: string,
      role: "akey" | "bkey" | "user" | "visitor",
    ) =>
      h.db
        .insert(deviceLinks)
        .values({ deviceId, userId: await idOf(email), role, name: "M", createdAt: now });
    await link(d1.id, "f-akey@example.com", "akey");
    await link(d1.id, "f-bkey@example.com", "bkey");
    await link(d1.id, "f-user@example.com", "user");
    await link(d1.id, "f-visit@example.com", "visitor");
    await link(d2.id, "f-akey@example.com", "akey");
    await link(d2.id, "f-bkey@example.com", "user");
    const names = async (token: string) =>
      (await h.call("POST", "/api/user/selectFriendsList", { token })).body.hwdata.list.map(
        (f: { name: string }) => f.name,
      );

    const all = await h.call("POST", "/api/user/selectFriendsList", { token: akey });
    expect(all.body.hwdata.total).toBe(3);
    expect(all.body.hwdata.list[0]).toEqual({
      userid: await idOf("f-bkey@example.com"),
      name: "Bert",
      account: "f-***@example.com",
      devices: 2,
    });
    expect(await names(akey)).toEqual(["Bert", "Carl", "Vera"]);
    expect(await names(bkey)).toEqual(["Anna", "Carl", "Vera"]);
    // Ordinary users see the managers, not each other.
    expect(await names(member)).toEqual(["Anna", "Bert"]);
    expect(await names(visitor)).toEqual(["Anna", "Bert"]);
    expect(await names(loner)).toEqual([]);
    const paged = await h.call("POST", "/api/user/selectFriendsList", {
      form: { page: 2, pageSize: 2 },
      token: akey,
    });
    expect(paged.body.hwdata).toMatchObject({ total: 3, list: [{ name: "Vera" }] });
    for (const lang of ["cn", "en"] as const) {
      const bad = await h.call("POST", "/api/user/selectFriendsList", {
        form: { page: 0 },
        token: akey,
        lang,
      });
      expect(bad.body).toMatchObject({
        hwcode: 400,
        msg: VALIDATION_MESSAGES["v.page"][lang === "en" ? "en" : "zh"],
      });
    }
    expect((await h.call("POST", "/api/user/selectFriendsList")).status).toBe(401);
  });

  it("safety/update switches the security centre's hide-map", async () => {
    const token = await h.signUp("safety@example.com");
    const on = await h.call("POST", "/api/safety/update", { form: { hideMap: 1 }, token });
    expect(on.body).toMatchObject({ hwcode: 0, hwdata: { hideMap: 1 } });
    expect((await h.call("GET", "/api/user/selectInfo", { token })).body.hwdata.hideMap).toBe(1);
    const off = await h.call("POST", "/api/safety/update", { json: { hideMap: false }, token });
    expect(off.body.hwdata).toEqual({ hideMap: 0 });
    for (const lang of ["cn", "en"] as const) {
      const bad = await h.call("POST", "/api/safety/update", { form: { hideMap: 7 }, token, lang });
      expect(bad.body).toMatchObject({
        hwcode: 400,
        msg: VALIDATION_MESSAGES["v.flag"][lang === "en" ? "en" : "zh"],
      });
    }
    expect((await h.call("POST", "/api/safety/update", { form: { hideMap: 1 } })).status).toBe(401);
  });

  it("activeAccount answers 1, or 0 on every failure", async () => {
    await h.call("POST", "/api/user/v1/register", {
      form: { email: "act01@example.com", password: "secret123", name: "Act" },
    });
    const code = await h.lastCode("act01@example.com");
    const wrong = await h.call("POST", "/api/user/activeAccount", {
      form: {
        activeAccount: "act01@example.com",
        SMSVerificationCode: code === "000000" ? "111111" : "000000",
      },
    });
    expect(wrong.body).toMatchObject({ hwcode: HW.CODE_ERROR.code, hwdata: 0 });
    const unknown = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "nobody01@example.com", SMSVerificationCode: "123456" },
    });
    expect(unknown.body).toMatchObject({ hwcode: HW.ACCOUNT_NOT_FOUND.code, hwdata: 0 });
    const format = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "act01@example.com", SMSVerificationCode: "12" },
    });
    expect(format.body).toMatchObject({ hwcode: 400, hwdata: 0 });
    const malformed = await h.app.inject({
      method: "POST",
      url: "/api/user/activeAccount",
      headers: { "content-type": "application/json" },
      payload: "{nope",
    });
    expect(malformed.json()).toMatchObject({ hwcode: 400, hwdata: 0 });
    const ok = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: "act01@example.com", SMSVerificationCode: code },
    });
    expect(ok.body).toEqual({ hwcode: 0, hwdata: 1, msg: HW.OK.zh });
  });

  it("logout with a token in the body ends that terminal of the caller's, nobody else's", async () => {
    const phone = await h.signUp("lo@example.com");
    const laptop = await h.login("lo@example.com", "secret123");
    const stranger = await h.signUp("lo-other@example.com");
    for (const lang of ["cn", "en"] as const) {
      const refused = await h.call("POST", "/api/user/logout", {
        form: { token: stranger },
        token: phone,
        lang,
      });
      expect(refused.body).toMatchObject({
        hwcode: HW.TERMINAL_NOT_FOUND.code,
        msg: lang === "en" ? HW.TERMINAL_NOT_FOUND.en : HW.TERMINAL_NOT_FOUND.zh,
      });
    }
    const unknown = await h.call("POST", "/api/user/logout", {
      json: { token: "not-a-token" },
      token: phone,
    });
    expect(unknown.body.hwcode).toBe(HW.TERMINAL_NOT_FOUND.code);
    expect((await h.call("GET", "/api/user/selectInfo", { token: stranger })).status).toBe(200);

    const out = await h.call("POST", "/api/user/logout", { form: { token: laptop }, token: phone });
    expect(out.body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: laptop })).status).toBe(401);
    expect((await h.call("GET", "/api/user/selectInfo", { token: phone })).status).toBe(200);
    // Without a body: the caller's own session.
    expect((await h.call("POST", "/api/user/logout", { token: phone })).body.hwcode).toBe(0);
    expect((await h.call("GET", "/api/user/selectInfo", { token: phone })).status).toBe(401);
  });

  it("PUT v1/account refuses with 420 and the reason's text, in zh and en", async () => {
    const token = await h.signUp("acc420@example.com");
    for (const [lang, text] of [
      ["cn", HW.SAME_AS_CURRENT.zh],
      ["en", HW.SAME_AS_CURRENT.en],
    ] as const) {
      const res = await h.call("PUT", "/api/user/v1/account", {
        form: { email: "acc420@example.com", code: "123456" },
        token,
        lang,
      });
      expect(res.body).toEqual({
        hwcode: 420,
        hwdata: { reason: HW.SAME_AS_CURRENT.code },
        msg: text,
      });
    }
    const expired = await h.call("PUT", "/api/user/v1/account", {
      form: { email: "acc420-new@example.com", code: "123456" },
      token,
      lang: "en",
    });
    expect(expired.body).toMatchObject({
      hwcode: 420,
      hwdata: { reason: HW.CODE_EXPIRED.code },
      msg: HW.CODE_EXPIRED.en,
    });
    // Format errors keep the validation code, as on every call.
    const format = await h.call("PUT", "/api/user/v1/account", {
      form: { email: "not-an-email", code: "123456" },
      token,
    });
    expect(format.body.hwcode).toBe(400);
  });
});

describe("phone accounts", () => {
  const registerPhone = async (phone: string, password = "secret123") => {
    const reg = await h.call("POST", "/api/user/v1/register", {
      form: { phone, countryCode: "86", password, name: "Phone" },
    });
    expect(reg.body.hwcode).toBe(0);
    const act = await h.call("POST", "/api/user/activeAccount", {
      form: { activeAccount: phone, SMSVerificationCode: await h.lastCode(`86${phone}`) },
    });
    expect(act.body.hwdata).toBe(1);
  };

  it("refuses a phone that is already registered, with or without its prefix", async () => {
    await registerPhone("13500135000");
    h.clock.advance(2 * MINUTE);
    for (const phone of ["13500135000", "008613500135000"]) {
      const again = await h.call("POST", "/api/user/v1/register", {
        form: { phone, countryCode: "86", password: "other123", name: "Mallory" },
        lang: "en",
      });
      expect(again.body).toMatchObject({
        hwcode: HW.ACCOUNT_EXISTS.code,
        msg: HW.ACCOUNT_EXISTS.en,
      });
    }
  });

  it("refuses a replacement phone equal to the current one", async () => {
    await registerPhone("13400134000");
    const token = await h.login("13400134000", "secret123");
    const send = await h.call("POST", "/api/common/mobSendMessage", {
      form: { phone: "13400134000", countryCode: "86", purpose: "change" },
      token,
      lang: "en",
    });
    expect(send.body).toMatchObject({
      hwcode: HW.SAME_AS_CURRENT.code,
      msg: HW.SAME_AS_CURRENT.en,
    });
    const change = await h.call("PUT", "/api/user/v1/account", {
      form: { phone: "13400134000", countryCode: "86", code: "123456" },
      token,
    });
    expect(change.body).toMatchObject({
      hwcode: 420,
      hwdata: { reason: HW.SAME_AS_CURRENT.code },
      msg: HW.SAME_AS_CURRENT.zh,
    });
  });

  it("resets a forgotten password by phone: confirm, SMS code from the outbox, reset", async () => {
    await registerPhone("13300133000");
    const confirm = await h.call(
      "GET",
      "/api/user/v1/confirmAccount?phone=13300133000&countryCode=86",
    );
    expect(confirm.body.hwdata).toEqual({ account: "133****3000", channel: "sms" });
    const sent = await h.call("POST", "/api/v1/internal/smsVerificationCode", {
      form: { phone: "13300133000", countryCode: "86", purpose: "reset" },
    });
    expect(sent.body.hwcode).toBe(0);
    const code = await h.lastCode("8613300133000");
    const checked = await h.call("POST", "/api/common/mobCheckCode", {
      form: { phone: "13300133000", countryCode: "86", purpose: "reset", code },
    });
    expect(checked.body.hwcode).toBe(0);
    const reset = await h.call("PUT", "/api/user/v1/password", {
      form: { phone: "13300133000", countryCode: "86", password: "newpass123", code },
    });
    expect(reset.body.hwcode).toBe(0);
    await h.login("13300133000", "newpass123");
    const old = await h.call("POST", "/api/user/login", {
      form: { loginName: "13300133000", loginPwd: "secret123" },
    });
    expect(old.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
  });
});

describe("what is stored", () => {
  it("keeps the password as argon2id and the token only as a hash", async () => {
    const token = await h.signUp("stored@example.com", "secret123");
    const [user] = await h.db.select().from(users).where(eq(users.email, "stored@example.com"));
    expect(user.passwordHash.startsWith("$argon2id$")).toBe(true);
    expect(user.passwordHash).not.toContain("secret123");
    const rows = await h.db.select().from(terminals).where(eq(terminals.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("per-IP limit on code sending", () => {
  it("answers 429 after ten codes a minute from one address; another address goes on", async () => {
    const send = (i: number, ip: string) =>
      h.app.inject({
        method: "POST",
        url: "/api/common/mobSendMessage",
        remoteAddress: ip,
        payload: { phone: `1390000${String(1000 + i)}`, countryCode: "86", purpose: "register" },
      });
    for (let i = 0; i < 10; i++) expect((await send(i, "203.0.113.77")).statusCode).toBe(200);
    const limited = await send(10, "203.0.113.77");
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ hwcode: 429, msg: HW.RATE_LIMITED.zh });
    expect((await send(11, "203.0.113.78")).statusCode).toBe(200);
  });
});

describe("/apiDoc", () => {
  it("serves the Swagger UI page whose scripts and styles the CSP allows", async () => {
    const page = await h.app.inject({ method: "GET", url: "/apiDoc" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    const csp = String(page.headers["content-security-policy"]);
    const directive = (name: string) =>
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .find(([n]) => n === name)
        ?.slice(1) ?? [];
    expect(directive("script-src")).toEqual(["'self'"]);
    // No inline script (script-src 'self' would block it): every script is a same-origin file.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    const assets: string[] = [];
    for (const [, attrs, inline] of scripts) {
      const src = attrs.match(/src="([^"]+)"/)?.[1];
      expect(src).toBeDefined();
      expect(inline.trim()).toBe("");
      assets.push(src!);
    }
    const styles = [...page.body.matchAll(/<link rel="stylesheet"[^>]*href="([^"]+)"/g)];
    assets.push(...styles.map((m) => m[1]));
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, "http://localhost/apiDoc").pathname;
      const res = await h.app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(200);
    }
    // The initializer loads the document from the same origin (connect-src 'self').
    const init = await h.app.inject({
      method: "GET",
      url: "/apiDoc/static/swagger-initializer.js",
    });
    // By its absolute path (`urls`), not Swagger UI's ./json against the page (issue 17).
    const docUrl = init.body.match(/"urls":\[\{"url":"([^"]+)"/)?.[1];
    expect(docUrl).toBe("/apiDoc/json");
    expect(directive("connect-src")).toContain("'self'");
    const doc = await h.app.inject({ method: "GET", url: docUrl! });
    expect(doc.json().openapi).toMatch(/^3\./);
  });
});
