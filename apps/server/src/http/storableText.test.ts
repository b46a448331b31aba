import { validationMessage } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../testing/harness.ts";
import { isStorableText, unstorablePath } from "./storableText.ts";

describe("unstorablePath", () => {
  it("finds a NUL or a lone surrogate in any string or key, and names where", () => {
    expect(unstorablePath({ a: "ok", b: ["fine", { c: "x\u0000" }] })).toBe("b.1.c");
    expect(unstorablePath({ a: "\ud83d" })).toBe("a"); // high half alone
    expect(unstorablePath({ a: "x\ude00y" })).toBe("a"); // low half alone
    expect(unstorablePath({ a: "\ude00\ud83d" })).toBe("a"); // both halves, wrong order
    expect(unstorablePath({ "k\u0000": 1 })).toBe("k\u0000");
    expect(unstorablePath("\u0000")).toBe("");
    // A surrogate pair is one character (😀), and other control characters are stored fine.
    expect(unstorablePath({ a: "😀 \u0001\t", b: 1, c: null, d: true })).toBeUndefined();
    // Binary bodies are not text.
    expect(unstorablePath({ file: Buffer.from([0, 0xd8]) })).toBeUndefined();
    expect(isStorableText("机器码 😀")).toBe(true);
  });

  it("walks nesting far deeper than the call stack", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(unstorablePath(deep)).toBe(Array(200_000).fill("0").join("."));
  });
});

describe("text PostgreSQL cannot store, sent to the API", () => {
  let h: Harness;
  let token: string;
  const zh = validationMessage("v.characters", "cn");
  const en = validationMessage("v.characters", "en");
  beforeAll(async () => {
    h = await createHarness();
    token = await h.signUp("text@example.com");
  });
  afterAll(() => h.close());

  const scan = "/api/v1/cloudSet/scanCodeCheck";

  it("is a format error naming the field, in JSON and form bodies (was a 500)", async () => {
    for (const machineCode of ["KW-\u0000", "KW-\ud800", "KW-\udfff"]) {
      const res = await h.call("POST", scan, { json: { machineCode }, token });
      expect(res).toEqual({
        status: 200,
        body: { hwcode: 400, hwdata: { field: "machineCode" }, msg: zh },
      });
    }
    const form = await h.call("POST", scan, { form: { machineCode: "KW-\u0000" }, token });
    expect(form.body).toEqual({ hwcode: 400, hwdata: { field: "machineCode" }, msg: zh });
    // Anywhere in the body, even in a field the schema would drop.
    const nested = await h.call("POST", scan, {
      json: { machineCode: "KW-1", list: [{ name: "x" }, { name: "\u0000" }] },
      token,
    });
    expect(nested.body).toEqual({ hwcode: 400, hwdata: { field: "list.1.name" }, msg: zh });
  });

  it("speaks the caller's language (lang cookie or query)", async () => {
    const cookie = await h.call("POST", scan, {
      json: { machineCode: "\u0000" },
      token,
      lang: "en",
    });
    expect(cookie.body.msg).toBe(en);
    const query = await h.call("POST", `${scan}?lang=en`, {
      json: { machineCode: "\u0000" },
      token,
    });
    expect(query.body.msg).toBe(en);
  });

  it("is refused in the query (%00) and in path parameters", async () => {
    const query = await h.call("GET", "/api/user/v1/emailVerify?email=a%00@b.cn", { token });
    // The storage rule, not the e-mail rule: the whole value is unusable.
    expect(query.body).toEqual({ hwcode: 400, hwdata: { field: "email" }, msg: zh });
    const param = await h.call("GET", "/api/msg/v1/detail/1%00", { token });
    expect(param.body).toEqual({ hwcode: 400, hwdata: { field: "id" }, msg: zh });
  });

  it("answers a path that is not UTF-8 or too long with the envelope, not Fastify's JSON", async () => {
    // %ED%A0%80 is a lone surrogate in UTF-8 form: the router refuses it before any hook.
    for (const id of ["%ED%A0%80", "%E0%A4%A"]) {
      const res = await h.call("GET", `/api/msg/v1/detail/${id}`, { token, lang: "en" });
      expect(res).toEqual({ status: 200, body: { hwcode: 400, hwdata: null, msg: en } });
    }
    // No hook has parsed the query or cookies yet: the language is still the caller's.
    const byQuery = await h.call("GET", "/api/msg/v1/detail/%ED%A0%80?lang=en", { token });
    expect(byQuery.body.msg).toBe(en);
    expect((await h.call("GET", "/api/msg/v1/detail/%ED%A0%80", { token })).body.msg).toBe(zh);
    const long = await h.call("GET", `/api/msg/v1/detail/${"1".repeat(101)}`, { token });
    expect(long.body).toEqual({
      hwcode: 400,
      hwdata: null,
      msg: validationMessage("v.text", "cn"),
    });
  });

  it("judges the token first: without one the answer is 113", async () => {
    const res = await h.call("POST", scan, { json: { machineCode: "\u0000" } });
    expect(res.status).toBe(401);
    expect(res.body.hwcode).toBe(113);
  });

  it("lets a surrogate pair through: the look-up runs and finds no such device", async () => {
    const res = await h.call("POST", scan, { json: { machineCode: "KW-😀😀😀" }, token });
    expect(res.body.hwcode).toBe("04010102");
  });

  it("refuses a device credential with a NUL as a wrong one (the tunnel's Basic auth)", async () => {
    const authorization = `Basic ${Buffer.from("KW-\u0000:secret").toString("base64")}`;
    const res = await h.app.inject({ method: "GET", url: "/tunnel", headers: { authorization } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ hwcode: "10010301" });
  });
});
