import { type Lang, type ProvisionedDevice, validationMessage } from "@keyway/shared";
import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { seedDemo } from "../seed.ts";
import { createHarness, type Harness } from "../testing/harness.ts";
import { type AppRoute, type FieldSchema, listRoutes } from "../testing/routes.ts";

/**
 * Every route of the app, found by Fastify's own onRoute hook (not a hand-kept list), under
 * text PostgreSQL cannot store and random junk: no answer is a 5xx, and every refusal is
 * the envelope with a non-zero hwcode and a msg. First a sweep that puts a NUL or a lone
 * surrogate in each place of each route and expects exactly the format error; then
 * fast-check, as the real user, the operator, nobody and a stranger with a made-up token.
 */
const recorded = vi.hoisted(() => [] as { method: string | string[]; url: string }[]);
vi.mock("fastify", async (importOriginal) => {
  const actual = await importOriginal<typeof import("fastify")>();
  const fastify = ((options?: object) => {
    const app = actual.default(options);
    app.addHook("onRoute", (route) => {
      recorded.push({ method: route.method, url: route.url });
    });
    return app;
  }) as typeof actual.default;
  return { ...actual, default: fastify };
});

let h: Harness;
let routes: AppRoute[];
const tokens = { user: "", operator: "", dead: "" };
let userEmail = "fuzz@example.com";
let device: ProvisionedDevice;
beforeAll(async () => {
  h = await createHarness();
  routes = listRoutes(h.app, recorded);
  tokens.user = await h.signUp(userEmail);
  tokens.dead = await h.login(userEmail, "secret123", { terminalType: "tv" });
  await h.call("POST", "/api/user/logout", { token: tokens.dead });
  await seedDemo(h.app.services.accounts);
  tokens.operator = await h.login("operator@keyway.local", "operator123");
  // The user owns a device (ids 1, 2... are real rows), and its credentials open the tunnel.
  const [owned, spare] = await h.provision(tokens.operator, 2, "MT8071iE");
  await h.addDevice(tokens.user, owned, "Fuzzed");
  device = spare;
}, 120_000);
afterAll(() => h.close());

/** Only the external broker (absent here) may call its hooks: everyone else is refused first. */
const BROKER_HOOKS = new Set(["/api/internal/v1/mqtt/auth", "/api/internal/v1/mqtt/acl"]);
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** Percent-encodes like a careless client: a lone surrogate as its three UTF-8-style bytes. */
function percent(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join("")
        : encodeURIComponent(ch);
  }
  return out;
}
const encodeForm = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${percent(k)}=${percent(v)}`)
    .join("&");

interface Call {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

async function send(call: Call): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: call.method as "GET",
    url: call.url,
    headers: call.headers,
    payload: call.payload,
    // Each call from its own address: the per-address limits stay out of the way.
    remoteAddress: `10.${rand(256)}.${rand(256)}.${rand(254) + 1}`,
  });
}
const rand = (n: number) => Math.floor(Math.random() * n);

/** The answer is no 5xx, and a refusal is the envelope: a non-zero hwcode and a msg. */
function expectSane(call: Call, res: LightMyRequestResponse): { hwcode?: string } {
  const where = `${call.method} ${call.url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  let body: unknown;
  try {
    body = res.json();
  } catch {
    // Not JSON: only a success may be something else (a file, the API document's page).
    expect(res.statusCode, where).toBeLessThan(400);
    return {};
  }
  const envelope = body as { hwcode?: unknown; msg?: unknown };
  if (res.statusCode >= 400 || (typeof body === "object" && body !== null && "hwcode" in body)) {
    expect(envelope.hwcode, where).toBeDefined();
    const hwcode = String(envelope.hwcode);
    if (hwcode !== "0" || res.statusCode >= 400) {
      expect(hwcode, where).not.toBe("0");
      expect(typeof envelope.msg, where).toBe("string");
      expect((envelope.msg as string).length, where).toBeGreaterThan(0);
    }
    return { hwcode };
  }
  return {};
}

/** The placeholders of a route's pattern, each `:name` and a `*`, filled in. */
const fillUrl = (route: AppRoute, value: (name: string) => string) =>
  route.url.replace(/:(\w+)/g, (_m, name: string) => value(name)).replace("*", () => value("*"));

/** Who calls: the operator for the back office, a device for the tunnel, the user elsewhere. */
function authFor(route: AppRoute): Record<string, string> {
  if (route.url === "/tunnel")
    return { authorization: basic(device.machineCode, device.deviceSecret) };
  if (route.url.startsWith("/api/operator/")) return { cloudtoken: tokens.operator };
  return { cloudtoken: tokens.user };
}

describe("every endpoint", () => {
  it("finds the app's routes, hidden ones too", () => {
    expect(routes.length).toBeGreaterThan(200);
    const keys = routes.map((r) => `${r.method} ${r.url}`);
    for (const known of [
      "POST /api/v1/cloudSet/scanCodeCheck",
      "GET /tunnel",
      "GET /ws",
      "DELETE /api/user/v1/tokenInfo/:id",
    ])
      expect(keys).toContain(known);
  });

  it("answers a NUL or lone surrogate anywhere with the format error naming the field", async () => {
    let formatErrors = 0;
    for (const [i, route] of routes.entries()) {
      // Half the routes in English: the message follows the caller's language.
      const lang: Lang = i % 2 ? "en" : "cn";
      const msg = validationMessage("v.characters", lang);
      const auth = authFor(route);
      const headers = { ...auth, cookie: `lang=${lang}` };
      const plain = fillUrl(route, (name) => (name === "*" ? "index.html" : "1"));
      const cases: { call: Call; field: string | null }[] = [
        { call: { method: route.method, url: `${plain}?junk=a%00b`, headers }, field: "junk" },
        ...[...route.params, ...(route.url.includes("*") ? ["*"] : [])].map((param) => ({
          call: {
            method: route.method,
            url: fillUrl(route, (name) => (name === param ? "1%00" : "1")),
            headers,
          },
          field: param,
        })),
      ];
      if (route.method !== "GET") {
        const field = route.body[0] ?? "junk";
        const json = (body: unknown, path: string) => ({
          call: {
            method: route.method,
            url: plain,
            headers: { ...headers, "content-type": "application/json" },
            payload: JSON.stringify(body),
          },
          field: path,
        });
        cases.push(
          json({ [field]: "a\u0000" }, field),
          json({ [field]: "\ud800" }, field),
          json({ [field]: "x\udfffy" }, field),
          json({ [field]: "ok", more: [{ name: "ok" }, { name: "\ud83d" }] }, "more.1.name"),
          json({ "k\u0000": 1 }, "k\u0000"),
          json("\u0000", ""),
          {
            call: {
              method: route.method,
              url: plain,
              headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
              payload: encodeForm({ [field]: "a\u0000b" }),
            },
            field,
          },
        );
      }
      for (const { call, field } of cases) {
        const res = await send(call);
        expectSane(call, res);
        const where = `${call.method} ${call.url} ${call.payload ?? ""}`;
        if (BROKER_HOOKS.has(route.url)) {
          expect(res.json(), where).toMatchObject({ hwcode: 403 });
          continue;
        }
        expect(res.json(), where).toEqual({
          hwcode: 400,
          // SPEC: activeAccount's every failure carries hwdata 0.
          hwdata: route.url === "/api/user/activeAccount" ? 0 : field ? { field } : null,
          msg,
        });
        formatErrors++;
      }
      // Nobody's token: refused too (113 where a token is needed, else the format error).
      const anonymous = { method: route.method, url: `${plain}?junk=%00` };
      const { hwcode } = expectSane(anonymous, await send(anonymous));
      expect(hwcode, `${route.method} ${route.url}`).toBeDefined();
      expect(hwcode).not.toBe("0");
    }
    expect(formatErrors).toBeGreaterThan(routes.length);
  });

  it("never answers random junk with a 5xx, and refuses every unstorable text", async () => {
    await fc.assert(
      fc.asyncProperty(randomCall(), async (c) => {
        const { sent, reaches } = c;
        const { hwcode } = expectSane(sent, await send(sent));
        // What the server decodes into a NUL or a lone surrogate is never a success.
        if (reaches) expect(hwcode, `${sent.method} ${sent.url}`).not.toBe("0");
        answered.set(hwcode ?? "(not JSON)", (answered.get(hwcode ?? "(not JSON)") ?? 0) + 1);
        // A session this call ended (logout, a removed terminal) is replaced for the next.
        if (hwcode === "113" && (c.caller === "user" || c.caller === "operator"))
          tokens[c.caller] = await sessionOf(c.caller);
      }),
      { numRuns: RUNS },
    );
    // The junk gets past the schemas too: services answered (successes, business codes).
    const deep = [...answered].filter(([code]) => !["400", "113"].includes(code));
    expect(deep.reduce((n, [, count]) => n + count, 0)).toBeGreaterThan(RUNS / 10);
    // 4,000 calls: about a minute alone, several on a loaded 2-core machine.
  }, 360_000);
});

const RUNS = 4000;
const answered = new Map<string, number>();

async function sessionOf(role: "user" | "operator") {
  if (role === "operator") return h.login("operator@keyway.local", "operator123");
  // The user may have been logged out (logout, a removed terminal) or even deleted.
  try {
    return await h.login(userEmail, "secret123");
  } catch {
    userEmail = `fuzz${rand(1e9)}@example.com`;
    return h.signUp(userEmail);
  }
}

const junk = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "2147483648",
    "1e309",
    "NaN",
    "null",
    "%",
    "%00",
    "😀",
    "x".repeat(3000),
    "' or 1=1 --",
    "<script>",
    "../../etc/passwd",
    "__proto__",
    "2026-13-45T99:00:00Z",
  ),
  fc.integer().map(String),
  fc.double().map(String),
);
const jsonJunk = fc.oneof(
  junk,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(junk, { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A value the field's documented rule accepts, or nearly: its edges and one step past them. */
function plausible(schema: FieldSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema) return junk;
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map((s) => plausible(s, depth)));
  if (schema.type === "integer" || schema.type === "number") {
    const min = Math.max(schema.minimum ?? -(2 ** 31), -(2 ** 53));
    const max = Math.min(schema.maximum ?? 2 ** 31, 2 ** 53);
    return fc.oneof(
      fc.integer({ min: 0, max: 5 }),
      fc.constantFrom(min, max, min - 1, max + 1, 2 ** 31, -1),
      fc.double({ min, max, noNaN: true }),
    );
  }
  if (schema.type === "boolean") return fc.boolean();
  if (schema.type === "array")
    return depth > 1
      ? fc.constant([])
      : fc.array(plausible(schema.items, depth + 1), { maxLength: 3 });
  if (schema.format === "email") return fc.constantFrom(userEmail, "nobody@example.com", "a@b");
  if (schema.format === "date-time" || /time|date/i.test(schema.pattern ?? ""))
    return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern, "u"));
    } catch {
      // A pattern JavaScript reads otherwise: plain text below.
    }
  }
  return fc.oneof(
    fc.string({ minLength: schema.minLength ?? 0, maxLength: (schema.maxLength ?? 30) + 1 }),
    fc.constantFrom(
      "1",
      "Test",
      "2026-11-21T08:00:00Z",
      "13800138000",
      "+86",
      "cn",
      device.machineCode,
    ),
  );
}

/** Documented fields (each usually present, mostly plausible) and a few made-up ones. */
function fieldsFor(route: AppRoute, names: string[]): fc.Arbitrary<Record<string, unknown>> {
  const known = names.map((name) =>
    fc.option(
      fc.oneof(
        { weight: 4, arbitrary: plausible(route.schemas[name]) },
        { weight: 1, arbitrary: jsonJunk },
      ),
      { freq: 6 },
    ),
  );
  const extra = fc.dictionary(
    fc.constantFrom("id", "page", "machineCode", "eid", "__proto__", "x"),
    jsonJunk,
    {
      maxKeys: 2,
    },
  );
  return fc.tuple(fc.tuple(...known), extra).map(([values, more]) => {
    const fields: Record<string, unknown> = { ...more };
    names.forEach((name, i) => {
      if (values[i] !== null) fields[name] = values[i];
    });
    return fields;
  });
}

const wire = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

/** One random request and whether the server decodes a NUL or lone surrogate out of it. */
function randomCall() {
  const bad = fc.oneof(
    fc.constant("\u0000"),
    fc.integer({ min: 0xd800, max: 0xdbff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0xdc00, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  );
  return fc.constantFrom(...routes).chain((route) =>
    fc
      .record({
        caller: fc.constantFrom("user", "user", "user", "operator", "none", "stranger", "dead"),
        params: fc.array(fc.oneof(fc.constantFrom("1", "2", "3", "index.html"), junk), {
          minLength: 2,
          maxLength: 2,
        }),
        query: fieldsFor(route, route.query),
        body: fieldsFor(route, route.body),
        bare: fc.option(jsonJunk, { freq: 8 }),
        encoding: fc.constantFrom("json", "json", "form", "form", "broken", "text"),
        // Where a NUL or lone surrogate goes, if anywhere.
        poison: fc.record({
          place: fc.oneof(
            { weight: 10, arbitrary: fc.constant("none") },
            { weight: 1, arbitrary: fc.constantFrom("query", "param", "body", "key", "deep") },
          ),
          text: bad,
          at: fc.nat(),
        }),
        basic: fc.option(fc.tuple(junk, junk), { freq: 4 }),
        stranger: fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
      })
      .map((c) => ({ ...c, ...request(route, c) })),
  );
}

type Random = {
  caller: string;
  params: string[];
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  bare: unknown;
  encoding: string;
  poison: { place: string; text: string; at: number };
  basic: [string, string] | null;
  stranger: string;
};

function request(route: AppRoute, c: Random): { sent: Call; reaches: boolean } {
  const { poison } = c;
  const spoil = (text: string) => {
    const at = poison.at % (text.length + 1);
    return text.slice(0, at) + poison.text + text.slice(at);
  };
  const headers: Record<string, string> = {};
  if (c.caller === "user" || c.caller === "operator" || c.caller === "dead")
    headers.cloudtoken = tokens[c.caller];
  if (c.caller === "stranger") headers.cloudtoken = c.stranger;
  if (c.basic) headers.authorization = basic(c.basic[0], c.basic[1]);
  if (route.url === "/tunnel" && c.caller === "user")
    headers.authorization = basic(device.machineCode, device.deviceSecret);

  const params = [...c.params];
  if (poison.place === "param") params[0] = spoil(params[0]);
  let n = 0;
  const url = fillUrl(route, () => percent(params[n++ % 2]) || "x");
  const query = Object.fromEntries(Object.entries(c.query).map(([k, v]) => [k, wire(v)]));
  if (poison.place === "query") query.q = spoil("v");
  const body: Record<string, unknown> = { ...c.body };
  if (poison.place === "body") body[route.body[0] ?? "x"] = spoil("v");
  if (poison.place === "key") body[spoil("k")] = "1";
  if (poison.place === "deep") body.more = [1, { inner: [spoil("v")] }];
  let payload: string | undefined;
  // Fastify reads no body on a GET.
  if (route.method !== "GET") {
    if (c.encoding === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = encodeForm(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, wire(v)])));
    } else {
      headers["content-type"] = c.encoding === "text" ? "text/plain" : "application/json";
      const value = c.bare !== null && poison.place === "none" ? c.bare : body;
      payload = JSON.stringify(value) + (c.encoding === "broken" ? "}" : "");
    }
  }
  const queryString = encodeForm(query);
  const sent = {
    method: route.method,
    url: queryString ? `${url}?${queryString}` : url,
    headers,
    payload,
  };

  // What the server itself decodes: a NUL from any encoding; a lone surrogate only from a
  // JSON escape (percent-encoded it is not UTF-8: a bad path, or other text in a query).
  const isNul = poison.text === "\u0000";
  const inBody = route.method !== "GET" && ["body", "key", "deep"].includes(poison.place);
  const hasParam = route.params.length > 0 || route.url.includes("*");
  const reaches =
    (poison.place === "param" && hasParam) ||
    (poison.place === "query" && isNul) ||
    (inBody && c.encoding === "json") ||
    // In a form, "deep" is JSON text: its NUL is the six characters \u0000.
    (inBody && c.encoding === "form" && isNul && poison.place !== "deep");
  return { sent, reaches };
}
