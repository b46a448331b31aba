import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../testing/harness.ts";
import { API_DOC_TEXTS } from "./apiDoc.ts";

/**
 * /apiDoc (issue 17): the OpenAPI document in the reader's language (`?language=cn|en`, the
 * `lang` cookie, Accept-Language; Chinese by default), and a Swagger UI page that loads it
 * from an absolute URL, so that the page's own query cannot break the document's URL.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read as plain JSON
type Doc = any;

/** What an OpenAPI 3 document must have, and every local `$ref` resolving. */
function expectValidOpenApi(doc: Doc) {
  expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
  expect(typeof doc.info.title).toBe("string");
  expect(typeof doc.info.version).toBe("string");
  expect(Object.keys(doc.paths).length).toBeGreaterThan(100);
  const refs: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object")
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") refs.push(value);
        else walk(value);
      }
  };
  for (const [path, item] of Object.entries<Record<string, Doc>>(doc.paths)) {
    expect(path).toMatch(/^\//);
    for (const [method, operation] of Object.entries(item)) {
      expect(METHODS, `${method} ${path}`).toContain(method);
      expect(operation.responses, `${method} ${path}`).toBeTypeOf("object");
      for (const tag of operation.tags ?? [])
        expect(doc.tags.map((t: { name: string }) => t.name)).toContain(tag);
    }
    walk(item);
  }
  for (const ref of refs) {
    expect(ref, ref).toMatch(/^#\//);
    const target = ref
      .slice(2)
      .split("/")
      .reduce((node: Doc, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
    expect(target, ref).toBeDefined();
  }
  for (const tag of doc.tags) expect(typeof tag.name).toBe("string");
}

async function docOf(url: string, headers: Record<string, string> = {}) {
  const res = await h.app.inject({ method: "GET", url, headers });
  expect(res.statusCode, url).toBe(200);
  return res.json() as Doc;
}

describe("/apiDoc/json", () => {
  it("answers a valid OpenAPI document in Chinese by default and with ?language=cn", async () => {
    for (const url of ["/apiDoc/json", "/apiDoc/json?language=cn"]) {
      const doc = await docOf(url);
      expectValidOpenApi(doc);
      expect(doc.info.title).toBe("Keyway 接口文档");
      expect(doc.info.description).toBe(API_DOC_TEXTS.description.zh);
      const messages = doc.tags.find((t: { name: string }) => t.name === "messages");
      expect(messages.description).toBe("消息中心：收件箱与发件箱");
      expect(doc.paths["/api/user/login"].post.requestBody).toBeDefined();
    }
  });

  it("answers in English with ?language=en, the lang cookie or Accept-Language", async () => {
    const asked = [
      (await docOf("/apiDoc/json?language=en")).info,
      (await docOf("/apiDoc/json", { cookie: "lang=en" })).info,
      (await docOf("/apiDoc/json", { "accept-language": "en-GB,en;q=0.8" })).info,
    ];
    for (const info of asked) {
      expect(info.title).toBe("Keyway API");
      expect(info.description).toBe(API_DOC_TEXTS.description.en);
    }
    // The query wins over the cookie.
    expect((await docOf("/apiDoc/json?language=cn", { cookie: "lang=en" })).info.title).toBe(
      "Keyway 接口文档",
    );
    const doc = await docOf("/apiDoc/json?language=en");
    expectValidOpenApi(doc);
    const messages = doc.tags.find((t: { name: string }) => t.name === "messages");
    expect(messages.description).toBe("The message centre: inbox and outbox");
  });

  it("describes every tag the routes use, in both languages", async () => {
    for (const language of ["cn", "en"]) {
      const doc = await docOf(`/apiDoc/json?language=${language}`);
      const used = new Set<string>();
      for (const item of Object.values<Record<string, Doc>>(doc.paths))
        for (const operation of Object.values(item))
          for (const tag of operation.tags ?? []) used.add(tag);
      expect(used.size).toBeGreaterThan(10);
      for (const tag of doc.tags) {
        expect(used.has(tag.name), tag.name).toBe(true);
        expect(tag.description, `${language} ${tag.name}`).toMatch(/\S/);
      }
      expect(doc.tags).toHaveLength(used.size);
    }
  });

  it("localizes the YAML document alike", async () => {
    const res = await h.app.inject({ method: "GET", url: "/apiDoc/yaml?language=en" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("title: Keyway API");
  });
});

describe("/apiDoc page", () => {
  it("loads the document from the absolute /apiDoc/json, whatever the page's query", async () => {
    for (const url of ["/apiDoc", "/apiDoc?language=en", "/apiDoc/?language=cn"]) {
      const page = await h.app.inject({ method: "GET", url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers["content-type"]).toContain("text/html");
      // Assets by absolute path (no trailing slash) or relative to /apiDoc/ (with it).
      for (const [, src] of page.body.matchAll(/<script src="([^"]+)"/g)) {
        const asset = new URL(src, `http://localhost${url}`).pathname;
        expect((await h.app.inject({ method: "GET", url: asset })).statusCode, asset).toBe(200);
      }
    }
    const init = await h.app.inject({
      method: "GET",
      url: "/apiDoc/static/swagger-initializer.js",
    });
    // Swagger UI's `url` (./json against the page) is ignored when `urls` is given.
    expect(init.body).toContain('"urls":[{"url":"/apiDoc/json","name":"Keyway API"}]');
    expect(init.body).toContain('"requestInterceptor":');
    // The serialized interceptor stands alone in the browser: no transpiler helper.
    expect(init.body).not.toMatch(/__name|__publicField|require\(/);
    expect(() => new Function(init.body)).not.toThrow();
  });
});
