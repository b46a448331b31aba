import { LOGOUT_REASON, PUSH_SCENES } from "@keyway/protocol";
import { BRANDS, HW, TWO_FACTOR } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { PUSH_CLOSE } from "../push/service.ts";
import { PushClient } from "../push/testClient.ts";
import { twoFactorAuth, twoFactorRecoveryCodes } from "./schema.ts";
import {
  base32Decode,
  base32Encode,
  createTwoFactorService,
  totpCode,
  totpStep,
} from "./twoFactor.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const STEP_MS = TWO_FACTOR.periodSeconds * 1000;
const MINUTE = 60_000;

/** What an authenticator app shows now for this base32 secret. */
const codeNow = (secret: string, offsetSteps = 0) =>
  totpCode(base32Decode(secret), totpStep(h.clock.now()) + offsetSteps);
/** A 6-digit code that is certainly not the current one (nor its neighbours). */
const wrongCode = (secret: string) => {
  const near = [-1, 0, 1].map((d) => codeNow(secret, d));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, "0");
    if (!near.includes(candidate)) return candidate;
  }
};

/**
 * `db` whose SELECTs answer 20 ms late (every builder in the chain is wrapped, its `then`
 * delayed), so requests running together read before any of them writes.
 */
function slowReads(db: Db): Db {
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object);
        if (typeof value !== "function") return value;
        if (key === "then") {
          return (resolve: (v: unknown) => void, reject: (e: unknown) => void) =>
            value.call(object, (v: unknown) => setTimeout(() => resolve(v), 20), reject);
        }
        return (...args: unknown[]) => {
          const out = value.apply(object, args);
          return out && typeof out === "object" ? wrap(out) : out;
        };
      },
    });
  return new Proxy(db, {
    get(object, key) {
      const value = Reflect.get(object, key, object);
      if (key === "select" && typeof value === "function") {
        return (...args: unknown[]) => wrap(value.apply(object, args));
      }
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

async function passwordStep(email: string, password = "secret123", extra = {}) {
  return h.call("POST", "/api/user/login", {
    form: { loginName: email, loginPwd: password, terminalName: "Desk Chrome", ...extra },
  });
}

/** A user with two-factor on: their phone-app token, the secret and the recovery codes. */
async function userWithTwoFactor(email: string) {
  const token = await h.signUp(email);
  const setup = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", { token });
  const secret: string = setup.body.hwdata.secret;
  const on = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
    token,
    form: { code: codeNow(secret) },
  });
  expect(on.body.hwcode).toBe(0);
  // The next code must come from a later step (each step's code is accepted once).
  h.clock.advance(STEP_MS);
  return { token, secret, recoveryCodes: on.body.hwdata.recoveryCodes as string[] };
}

describe("TOTP (RFC 6238)", () => {
  it("gives the RFC's SHA-1 test values (last 6 digits)", () => {
    const secret = Buffer.from("12345678901234567890", "ascii");
    expect(totpCode(secret, totpStep(new Date(59_000)))).toBe("287082");
    expect(totpCode(secret, totpStep(new Date(1_111_111_109_000)))).toBe("081804");
    expect(totpCode(secret, totpStep(new Date(2_000_000_000_000)))).toBe("279037");
    expect(base32Decode(base32Encode(secret)).toString("ascii")).toBe("12345678901234567890");
  });
});

describe("enable two-factor login", () => {
  it("sets up a secret with an otpauth QR, turns on only with a right code, shows 10 recovery codes", async () => {
    const token = await h.signUp("setup@example.com");
    const before = await h.call("GET", "/api/v1/users/twoFactorAuthentication", { token });
    expect(before.body.hwdata).toEqual({ enabled: false, enabledTime: null, recoveryCodesLeft: 0 });

    const setup = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      lang: "en",
    });
    expect(setup.body.hwcode).toBe(0);
    const { secret, otpauthUrl, qrImage } = setup.body.hwdata;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/[^?]+:setup%40example\.com\?/);
    expect(new URL(otpauthUrl).searchParams.get("secret")).toBe(secret);
    expect(new URL(otpauthUrl).searchParams.get("digits")).toBe("6");
    expect(new URL(otpauthUrl).searchParams.get("period")).toBe("30");
    expect(qrImage).toMatch(/^data:image\/png;base64,/);

    // Sealed at rest: the database never holds the secret as the app shows it.
    const [row] = await h.db.select().from(twoFactorAuth);
    expect(row.secretSealed).not.toContain(secret);

    // Not on until confirmed: the password alone still logs in.
    expect((await passwordStep("setup@example.com")).body.hwcode).toBe(0);

    const wrong = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      form: { code: wrongCode(secret) },
      lang: "en",
    });
    expect(wrong.body).toMatchObject({
      hwcode: HW.TWO_FACTOR_CODE_ERROR.code,
      msg: "Wrong authenticator code",
    });
    const badFormat = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      form: { code: "12ab" },
    });
    expect(badFormat.body.hwcode).toBe(HW.BAD_REQUEST.code);

    const on = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      form: { code: codeNow(secret) },
    });
    expect(on.body.hwcode).toBe(0);
    const codes: string[] = on.body.hwdata.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    // Only keyed hashes are kept.
    const stored = await h.db.select().from(twoFactorRecoveryCodes);
    expect(stored.some((r) => codes.some((c) => r.codeHash.includes(c.replace("-", ""))))).toBe(
      false,
    );

    const after = await h.call("GET", "/api/v1/users/twoFactorAuthentication", { token });
    expect(after.body.hwdata).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });

    const again = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      lang: "cn",
    });
    expect(again.body).toMatchObject({
      hwcode: HW.TWO_FACTOR_ALREADY_ON.code,
      msg: "两步验证已开启",
    });
  });

  it("ends the user's other sessions when it turns on, each told over its push socket", async () => {
    const token = await h.signUp("sessions@example.com");
    const desk = await h.login("sessions@example.com", "secret123");
    const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
    const deskSocket = await PushClient.open(
      `${address.replace(/^http/, "ws")}/ws?token=${encodeURIComponent(desk)}`,
    );
    await deskSocket.ready();
    const setup = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", { token });
    const on = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      form: { code: codeNow(setup.body.hwdata.secret) },
    });
    expect(on.body.hwcode).toBe(0);
    // The desk's session was opened with the password alone: it is told, then refused.
    expect(await deskSocket.next()).toMatchObject({
      scene: PUSH_SCENES.userLogout,
      body: { reason: LOGOUT_REASON.twoFactorEnabled },
    });
    expect((await deskSocket.closedWith()).code).toBe(PUSH_CLOSE.loggedOut);
    expect((await h.call("GET", "/api/user/selectInfo", { token: desk })).status).toBe(401);
    // The session that turned it on stays.
    expect((await h.call("GET", "/api/user/selectInfo", { token })).body.hwcode).toBe(0);
  });

  it("refuses a set-up confirmed after it expired", async () => {
    const token = await h.signUp("slow-setup@example.com");
    const setup = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", { token });
    h.clock.advance((TWO_FACTOR.setupMinutes + 1) * MINUTE);
    const late = await h.call("POST", "/api/v1/users/enableTwoFactorAuthentication", {
      token,
      form: { code: codeNow(setup.body.hwdata.secret) },
    });
    expect(late.body.hwcode).toBe(HW.TWO_FACTOR_SETUP_EXPIRED.code);
  });

  it("refuses every two-factor call without a login", async () => {
    const calls = [
      h.call("GET", "/api/v1/users/twoFactorAuthentication"),
      h.call("POST", "/api/v1/users/enableTwoFactorAuthentication"),
      h.call("DELETE", "/api/v1/users/twoFactorAuthentication", { form: { password: "x" } }),
      h.call("POST", "/api/v1/users/twoFactorRecoveryCodes", { form: { code: "123456" } }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.hwcode).toBe(HW.TOKEN_INVALID.code);
    }
  });
});

describe("log in with two-factor on", () => {
  it("answers the password with a challenge, then logs in with the current code once", async () => {
    const { secret } = await userWithTwoFactor("two@example.com");
    const step = await passwordStep("two@example.com");
    const en = await h.call("POST", "/api/user/login", {
      form: { loginName: "two@example.com", loginPwd: "secret123" },
      lang: "en",
    });
    expect(en.body.msg).toBe("Enter the 6-digit code from your authenticator app");
    expect(step.body.hwcode).toBe(HW.TWO_FACTOR_REQUIRED.code);
    expect(step.body.hwdata.challenge).toMatch(/^[\w-]{40,}$/);
    expect(step.body.hwdata.token).toBeUndefined();

    const done = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(done.body.hwcode).toBe(0);
    const token = done.body.hwdata.result.token;
    const terminals = await h.call("GET", "/api/user/v1/tokenInfo", { token });
    expect(terminals.body.hwdata.list).toContainEqual(
      expect.objectContaining({ name: "Desk Chrome", current: true }),
    );

    // The same challenge does not open a second session.
    const reused = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: codeNow(secret, 1) },
    });
    expect(reused.body.hwcode).toBe(HW.TWO_FACTOR_CHALLENGE_EXPIRED.code);

    // The same code on a new challenge is a replay: refused.
    const next = await passwordStep("two@example.com");
    const replay = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: next.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(replay.body.hwcode).toBe(HW.TWO_FACTOR_CODE_ERROR.code);
    h.clock.advance(STEP_MS);
    const later = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: next.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(later.body.hwcode).toBe(0);
  });

  it("still refuses a wrong password before any code is asked", async () => {
    await userWithTwoFactor("two-pw@example.com");
    const res = await passwordStep("two-pw@example.com", "wrongpass");
    expect(res.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    expect(res.body.hwdata).toBeNull();
  });

  it("gives a challenge 5 tries, then the password step must be done again", async () => {
    const { secret } = await userWithTwoFactor("tries@example.com");
    const step = await passwordStep("tries@example.com");
    const challenge = step.body.hwdata.challenge;
    const left: number[] = [];
    for (let i = 0; i < TWO_FACTOR.triesPerChallenge; i++) {
      const res = await h.call("POST", "/api/user/twoFactorLogin", {
        form: { challenge, code: wrongCode(secret) },
      });
      expect(res.body.hwcode).toBe(HW.TWO_FACTOR_CODE_ERROR.code);
      left.push(res.body.hwdata.triesLeft);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const right = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge, code: codeNow(secret) },
      lang: "en",
    });
    expect(right.body).toMatchObject({
      hwcode: HW.TWO_FACTOR_CHALLENGE_EXPIRED.code,
      msg: "This login step has expired; log in with your password again",
    });
    // A new password step works.
    const fresh = await passwordStep("tries@example.com");
    const ok = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: fresh.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(ok.body.hwcode).toBe(0);
  });

  it("locks the account's second factor after 10 wrong codes across challenges", async () => {
    const { secret } = await userWithTwoFactor("lock@example.com");
    let last: string | number = 0;
    for (let i = 0; i < TWO_FACTOR.maxFailures; i++) {
      const step = await passwordStep("lock@example.com");
      const res = await h.call("POST", "/api/user/twoFactorLogin", {
        form: { challenge: step.body.hwdata.challenge, code: wrongCode(secret) },
      });
      last = res.body.hwcode;
    }
    expect(last).toBe(HW.TWO_FACTOR_LOCKED.code);
    // Locked: even the password step says so, and no challenge is given.
    const locked = await passwordStep("lock@example.com");
    expect(locked.body.hwcode).toBe(HW.TWO_FACTOR_LOCKED.code);
    expect(locked.body.hwdata).toBeNull();

    h.clock.advance((TWO_FACTOR.lockMinutes + 1) * MINUTE);
    const step = await passwordStep("lock@example.com");
    const ok = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(ok.body.hwcode).toBe(0);
  });

  it("counts wrong codes sent in parallel, each one: 10 at once lock the second factor", async () => {
    const { secret } = await userWithTwoFactor("parallel@example.com");
    const challenges: string[] = [];
    for (let i = 0; i * TWO_FACTOR.triesPerChallenge < TWO_FACTOR.maxFailures; i++) {
      challenges.push((await passwordStep("parallel@example.com")).body.hwdata.challenge);
    }
    // The same service over a database whose reads answer a little late, so the ten
    // requests interleave as they would on a busy server.
    const twoFactor = createTwoFactorService({
      db: slowReads(h.db),
      clock: h.clock,
      secretKey: testConfig({}).SECRET_KEY,
      openSession: async () => ({}),
      endOtherSessions: async () => {},
    });
    const context = { lang: "en", brand: BRANDS[0], ip: "198.51.100.7" } as const;
    const answers = await Promise.allSettled(
      Array.from({ length: TWO_FACTOR.maxFailures }, (_, i) =>
        twoFactor.completeLogin(challenges[i % challenges.length], wrongCode(secret), context),
      ),
    );
    const refusals = answers.map((a) =>
      a.status === "rejected" && a.reason instanceof AppError ? a.reason.key : "ok",
    );
    expect(refusals).toContain("TWO_FACTOR_LOCKED");
    const after = await passwordStep("parallel@example.com");
    expect(after.body.hwcode).toBe(HW.TWO_FACTOR_LOCKED.code);
  });

  it("lets a challenge expire after 5 minutes", async () => {
    const { secret } = await userWithTwoFactor("late@example.com");
    const step = await passwordStep("late@example.com");
    h.clock.advance((TWO_FACTOR.challengeMinutes + 1) * MINUTE);
    const res = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(res.body.hwcode).toBe(HW.TWO_FACTOR_CHALLENGE_EXPIRED.code);
  });

  it("takes a recovery code instead of the app's code, once", async () => {
    const { token, recoveryCodes } = await userWithTwoFactor("recover@example.com");
    const first = await passwordStep("recover@example.com");
    const used = await h.call("POST", "/api/user/twoFactorLogin", {
      // Typed without the dash and in capitals: still the same code.
      form: {
        challenge: first.body.hwdata.challenge,
        code: recoveryCodes[3].replace("-", "").toUpperCase(),
      },
    });
    expect(used.body.hwcode).toBe(0);
    const second = await passwordStep("recover@example.com");
    const again = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: second.body.hwdata.challenge, code: recoveryCodes[3] },
    });
    expect(again.body.hwcode).toBe(HW.TWO_FACTOR_CODE_ERROR.code);
    const status = await h.call("GET", "/api/v1/users/twoFactorAuthentication", { token });
    expect(status.body.hwdata.recoveryCodesLeft).toBe(9);
  });

  it("replaces the recovery codes against a current code", async () => {
    const { token, secret, recoveryCodes } = await userWithTwoFactor("regen@example.com");
    const res = await h.call("POST", "/api/v1/users/twoFactorRecoveryCodes", {
      token,
      form: { code: codeNow(secret) },
    });
    expect(res.body.hwcode).toBe(0);
    expect(res.body.hwdata.recoveryCodes).toHaveLength(10);
    const step = await passwordStep("regen@example.com");
    const old = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: recoveryCodes[0] },
    });
    expect(old.body.hwcode).toBe(HW.TWO_FACTOR_CODE_ERROR.code);
    const fresh = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: res.body.hwdata.recoveryCodes[0] },
    });
    expect(fresh.body.hwcode).toBe(0);
  });
});

describe("turn two-factor off", () => {
  it("needs the password or a code; afterwards the password alone logs in", async () => {
    const { token, secret } = await userWithTwoFactor("off@example.com");
    const nothing = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      json: {},
    });
    expect(nothing.body.hwcode).toBe(HW.BAD_REQUEST.code);
    const wrongPw = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      form: { password: "not-mine" },
    });
    expect(wrongPw.body.hwcode).toBe(HW.PASSWORD_ERROR.code);
    const wrongCodeRes = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      form: { code: wrongCode(secret) },
    });
    expect(wrongCodeRes.body.hwcode).toBe(HW.TWO_FACTOR_CODE_ERROR.code);
    expect((await passwordStep("off@example.com")).body.hwcode).toBe(HW.TWO_FACTOR_REQUIRED.code);

    const off = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      form: { code: codeNow(secret) },
    });
    expect(off.body.hwcode).toBe(0);
    expect((await passwordStep("off@example.com")).body.hwcode).toBe(0);
    const status = await h.call("GET", "/api/v1/users/twoFactorAuthentication", { token });
    expect(status.body.hwdata.enabled).toBe(false);
    expect(status.body.hwdata.recoveryCodesLeft).toBe(0);
    const twice = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      form: { password: "secret123" },
    });
    expect(twice.body.hwcode).toBe(HW.TWO_FACTOR_NOT_ON.code);
  });

  it("a pending challenge dies when two-factor is turned off with the password", async () => {
    const { token, secret } = await userWithTwoFactor("off-pw@example.com");
    const step = await passwordStep("off-pw@example.com");
    const off = await h.call("DELETE", "/api/v1/users/twoFactorAuthentication", {
      token,
      form: { password: "secret123" },
    });
    expect(off.body.hwcode).toBe(0);
    const res = await h.call("POST", "/api/user/twoFactorLogin", {
      form: { challenge: step.body.hwdata.challenge, code: codeNow(secret) },
    });
    expect(res.body.hwcode).toBe(HW.TWO_FACTOR_CHALLENGE_EXPIRED.code);
  });
});
