import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.ts";

/**
 * Random and malformed bodies against every account endpoint: the answer is always the
 * envelope with a non-zero hwcode (or a 401/429 envelope), never a 500.
 */
let h: Harness;
let token: string;
beforeAll(async () => {
  h = await createHarness();
  token = await h.signUp("fuzz@example.com");
});
afterAll(() => h.close());

const ENDPOINTS: Array<[method: "GET" | "POST" | "PUT" | "DELETE", url: string]> = [
  ["POST", "/api/user/login"],
  ["POST", "/api/user/v1/register"],
  ["POST", "/api/user/activeAccount"],
  ["POST", "/api/common/emailCode"],
  ["POST", "/api/common/mobSendMessage"],
  ["POST", "/api/common/mobCheckCode"],
  ["POST", "/api/common/emailVerify"],
  ["POST", "/api/v1/internal/smsVerificationCode"],
  ["POST", "/api/v1/internal/smsVerificationCodeCheck"],
  ["POST", "/api/v1/internal/emailVerificationCode"],
  ["POST", "/api/v1/internal/emailVerificationCodeCheck"],
  ["PUT", "/api/user/v1/password"],
  ["PUT", "/api/user/v1/userName"],
  ["PUT", "/api/user/v1/account"],
  ["POST", "/api/user/changeLoginPwd"],
  ["PUT", "/api/user/v1/hideMap"],
  ["DELETE", "/api/v1/users/account"],
  ["GET", "/api/user/v1/confirmAccount"],
  ["GET", "/api/user/v1/tokenInfo"],
  ["GET", "/api/user/v1/passVerify"],
  ["GET", "/api/user/v1/emailVerify"],
  ["DELETE", "/api/user/v1/tokenInfo/abc"],
];

/** Endpoints where the generator's constants can form a valid call (e.g. name "null"). */
const SUCCESS_POSSIBLE = [
  "/api/user/v1/tokenInfo",
  "/api/user/v1/emailVerify",
  "/api/user/v1/hideMap",
  "/api/user/v1/userName",
];

const FIELDS = [
  "loginName",
  "loginPwd",
  "countryCode",
  "terminalUUID",
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
  "page",
  "pageSize",
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
  ),
  fc.integer().map(String),
);

const body = fc.dictionary(fc.constantFrom(...FIELDS), nasty, { maxKeys: 8 });

const rawPayload = fc.oneof(
  body.map((b) => ({ type: "form" as const, value: b })),
  fc.jsonValue().map((v) => ({ type: "json" as const, value: v })),
  fc.string({ unit: "binary" }).map((v) => ({ type: "raw-json" as const, value: v })),
);

describe("account endpoints under random input", () => {
  it("always answer with the envelope and never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS),
        rawPayload,
        fc.boolean(),
        async ([method, url], payload, authed) => {
          const headers: Record<string, string> = authed ? { cloudtoken: token } : {};
          let data: string | undefined;
          let query = "";
          if (payload.type === "form") {
            const params = new URLSearchParams(payload.value as Record<string, string>).toString();
            if (method === "GET") query = `?${params}`;
            else {
              headers["content-type"] = "application/x-www-form-urlencoded";
              data = params;
            }
          } else if (method !== "GET") {
            headers["content-type"] = "application/json";
            data = payload.type === "json" ? JSON.stringify(payload.value) : payload.value;
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
          if (res.statusCode === 200 && String(envelope.hwcode) === "0") {
            // Random input may only succeed where a field-less call is legitimate.
            expect(SUCCESS_POSSIBLE).toContain(url);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
