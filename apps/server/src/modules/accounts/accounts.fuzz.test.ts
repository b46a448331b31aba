import { emailField, flagField, pageField, personNameField } from "@keyway/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createHarness, type Harness } from "../../testing/harness.ts";

/**
 * Random and malformed bodies against every account endpoint: the answer is always the
 * envelope with a non-zero hwcode (a refusal, a 401 or a 429), never a 500 and never a
 * success. Where some random body could form a legitimate call, the generator is constrained
 * instead: one field always gets a value its rule refuses (or that matches nothing), or the
 * call is made without a valid token.
 */
let h: Harness;
let token: string;
let loggedOut: string;
beforeAll(async () => {
  h = await createHarness();
  token = await h.signUp("fuzz@example.com");
  loggedOut = await h.login("fuzz@example.com", "secret123", { terminalType: "tv" });
  await h.call("POST", "/api/user/logout", { token: loggedOut });
});
afterAll(() => h.close());

const FIELDS = [
  "loginName",
  "loginPwd",
  "countryCode",
  "terminalUUID",
  "terminalType",
  "terminalName",
  "terminalOS",
  "loginOemId",
  "keepLogin",
  "phone",
  "email",
  "password",
  "name",
  "oemid",
  "hideMap",
  "activeAccount",
  "SMSVerificationCode",
  "purpose",
  "code",
  "oldPwd",
  "newPwd",
  "account",
  "page",
  "pageSize",
  "token",
  "checkToken",
  "qrToken",
  "confirm",
  "challenge",
  "__proto__",
  "constructor",
];

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "1",
    "-1",
    "1e309",
    "NaN",
    "null",
    "true",
    "%00",
    "@",
    "0086",
    "+86",
    "a@b",
    "😀😀😀",
    "x".repeat(5000),
    "' or 1=1 --",
    "<script>",
    "13800138000",
    "123456",
    "abcdefghij-klmnopqrstuvwxyz",
  ),
  fc.integer().map(String),
);

/** Values the field's own rule refuses. */
const refusedBy = (schema: z.ZodType) => nasty.filter((v) => !schema.safeParse(v).success);
/** A token that is nobody's live session (an empty one would mean "this session"). */
const deadToken = nasty.filter((v) => v.trim() !== "");

type Method = "GET" | "POST" | "PUT" | "DELETE";
interface Endpoint {
  method: Method;
  url: string | fc.Arbitrary<string>;
  /** Fields always sent, with values that cannot form a valid call. */
  poison?: Record<string, fc.Arbitrary<string>>;
  /** The call succeeds for any body with a valid token: only callers without one. */
  noValidToken?: true;
}

const ENDPOINTS: Endpoint[] = [
  { method: "POST", url: "/api/user/login" },
  // An e-mail that is already registered and active: random rest or not, never a new account.
  {
    method: "POST",
    url: "/api/user/v1/register",
    poison: { email: fc.constant("fuzz@example.com") },
  },
  { method: "POST", url: "/api/user/activeAccount" },
  { method: "POST", url: "/api/user/logout", poison: { token: deadToken } },
  { method: "GET", url: "/api/user/selectInfo", noValidToken: true },
  { method: "POST", url: "/api/user/selectInfo", noValidToken: true },
  { method: "POST", url: "/api/user/getUserId", noValidToken: true },
  { method: "POST", url: "/api/user/selectFriendsList", poison: { page: refusedBy(pageField) } },
  { method: "POST", url: "/api/safety/update", poison: { hideMap: refusedBy(flagField) } },
  { method: "POST", url: "/api/common/emailCode" },
  { method: "POST", url: "/api/common/mobSendMessage" },
  { method: "POST", url: "/api/common/mobCheckCode" },
  { method: "POST", url: "/api/common/emailVerify" },
  { method: "POST", url: "/api/v1/internal/smsVerificationCode" },
  { method: "POST", url: "/api/v1/internal/smsVerificationCodeCheck" },
  { method: "POST", url: "/api/v1/internal/emailVerificationCode" },
  { method: "POST", url: "/api/v1/internal/emailVerificationCodeCheck" },
  { method: "PUT", url: "/api/user/v1/password" },
  { method: "PUT", url: "/api/user/v1/userName", poison: { name: refusedBy(personNameField) } },
  { method: "PUT", url: "/api/user/v1/account" },
  { method: "POST", url: "/api/user/changeLoginPwd" },
  { method: "PUT", url: "/api/user/v1/hideMap", poison: { hideMap: refusedBy(flagField) } },
  { method: "DELETE", url: "/api/v1/users/account" },
  { method: "GET", url: "/api/user/v1/confirmAccount" },
  { method: "GET", url: "/api/user/v1/tokenInfo", poison: { page: refusedBy(pageField) } },
  {
    method: "DELETE",
    // Nobody's terminal: ids far above any this test creates, or no id at all.
    url: fc
      .oneof(
        fc.integer({ min: 1_000_000, max: 2 ** 31 - 1 }).map(String),
        // Not a junk string that still reads as a small id ("1", " 2", "0x1"): the caller's own.
        nasty.filter((id) => {
          const n = Number(id);
          return !(Number.isInteger(n) && n > 0 && n < 1_000_000);
        }),
      )
      .map((id) => `/api/user/v1/tokenInfo/${encodeURIComponent(id) || "x"}`),
  },
  { method: "GET", url: "/api/user/v1/passVerify" },
  { method: "GET", url: "/api/user/v1/emailVerify", poison: { email: refusedBy(emailField) } },
  { method: "POST", url: "/api/user/getQrToken", poison: { keepLogin: refusedBy(flagField) } },
  { method: "POST", url: "/api/user/qrLoginCheck" },
  { method: "POST", url: "/api/user/qrLoginScan" },
  { method: "POST", url: "/api/user/qrLoginConfirm" },
  { method: "GET", url: "/api/v1/users/twoFactorAuthentication", noValidToken: true },
  // A code always: without one the call starts a set-up. No set-up is open, so none is right.
  {
    method: "POST",
    url: "/api/v1/users/enableTwoFactorAuthentication",
    poison: { code: deadToken },
  },
  { method: "POST", url: "/api/user/twoFactorLogin" },
  { method: "DELETE", url: "/api/v1/users/twoFactorAuthentication" },
  { method: "POST", url: "/api/v1/users/twoFactorRecoveryCodes" },
];

const fields = fc.dictionary(fc.constantFrom(...FIELDS), nasty, { maxKeys: 8 });
const jsonFields = fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 8 });
/** Text that is not JSON at all (valid JSON is covered by the other payloads). */
const brokenJson = fc.string({ unit: "binary" }).filter((v) => {
  try {
    JSON.parse(v);
    return false;
  } catch {
    return true;
  }
});

type Payload =
  | { type: "form"; value: Record<string, string> }
  | { type: "json"; value: unknown }
  | { type: "raw-json"; value: string };

/** Bodies for an endpoint: objects carry its poison; bare JSON values only where none is needed. */
function payloadFor(endpoint: Endpoint): fc.Arbitrary<Payload> {
  const poison = endpoint.poison ? fc.record(endpoint.poison) : fc.constant({});
  const objects: fc.Arbitrary<Payload>[] = [
    fc.tuple(fields, poison).map(([f, p]) => ({ type: "form" as const, value: { ...f, ...p } })),
    fc
      .tuple(jsonFields, poison)
      .map(([f, p]) => ({ type: "json" as const, value: { ...f, ...p } })),
  ];
  // A GET sends no body: broken JSON would be a call without the poison.
  if (endpoint.method !== "GET")
    objects.push(brokenJson.map((v) => ({ type: "raw-json" as const, value: v })));
  if (endpoint.poison) return fc.oneof(...objects);
  return fc.oneof(
    ...objects,
    fc.jsonValue().map((v) => ({ type: "json" as const, value: v })),
  );
}

/** The cloudtoken to send: the fuzz user's, or (where required) none, garbage or a dead one. */
function tokenFor(endpoint: Endpoint): fc.Arbitrary<string | undefined> {
  const invalid = fc.oneof(
    fc.constant(undefined),
    fc.constant(loggedOut),
    fc.string({ minLength: 1 }).filter((v) => /^[\x21-\x7e]+$/.test(v)),
  );
  return endpoint.noValidToken ? invalid : fc.oneof(fc.constant(token), invalid);
}

const call = fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
  fc.record({
    endpoint: fc.constant(endpoint),
    url: typeof endpoint.url === "string" ? fc.constant(endpoint.url) : endpoint.url,
    payload: payloadFor(endpoint),
    // chain() runs at generation time, after beforeAll made the tokens.
    token: tokenFor(endpoint),
  }),
);

describe("account endpoints under random input", () => {
  it("always answer with the envelope and a non-zero hwcode, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(call, async ({ endpoint, url, payload, token: cloudtoken }) => {
        const { method } = endpoint;
        const headers: Record<string, string> = cloudtoken ? { cloudtoken } : {};
        let data: string | undefined;
        let query = "";
        if (payload.type === "form") {
          const params = new URLSearchParams(payload.value).toString();
          if (method === "GET") query = `?${params}`;
          else {
            headers["content-type"] = "application/x-www-form-urlencoded";
            data = params;
          }
        } else if (method !== "GET") {
          headers["content-type"] = "application/json";
          data = payload.type === "json" ? JSON.stringify(payload.value) : payload.value;
        } else if (payload.type === "json" && payload.value && typeof payload.value === "object") {
          const entries = Object.entries(payload.value).map(([k, v]): [string, string] => [
            k,
            typeof v === "string" ? v : JSON.stringify(v),
          ]);
          query = `?${new URLSearchParams(entries).toString()}`;
        }
        const res = await h.app.inject({
          method,
          url: url + query,
          headers,
          payload: data,
          remoteAddress: `192.0.2.${Math.floor(Math.random() * 250) + 1}`,
        });
        expect(res.statusCode).toBeLessThan(500);
        const envelope = res.json();
        expect(envelope).toHaveProperty("hwcode");
        expect(typeof envelope.msg).toBe("string");
        expect(envelope.msg.length).toBeGreaterThan(0);
        expect(String(envelope.hwcode), `${method} ${url}`).not.toBe("0");
        // SPEC: activeAccount answers 1 or 0.
        if (url === "/api/user/activeAccount") expect(envelope.hwdata).toBe(0);
      }),
      { numRuns: 600 },
    );
  });
});
