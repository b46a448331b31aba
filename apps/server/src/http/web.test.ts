import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../testing/harness.ts";
import { registerEnvelope } from "./envelope.ts";
import {
  CACHE_IMMUTABLE,
  CACHE_REVALIDATE,
  cacheControlOf,
  DOCUMENT_ONLY_HEADERS,
  serveWeb,
} from "./web.ts";

/**
 * The built web app as the server sends it (issue 17): the build's brotli / gzip siblings by
 * Accept-Encoding, hashed assets cached for good, index.html and the SPA fallback revalidated.
 */
const SCRIPT = `export const greeting = ${JSON.stringify("hello ".repeat(400))};\n`;
const HTML = `<!doctype html><html><head><script type="module" src="/assets/index-AbCd12_-.js"></script></head><body><div id="root"></div>${" ".repeat(1200)}</body></html>`;

let dist: string;
let app: FastifyInstance;

beforeAll(async () => {
  dist = mkdtempSync(path.join(tmpdir(), "kw-web-"));
  mkdirSync(path.join(dist, "assets"));
  const asset = path.join(dist, "assets/index-AbCd12_-.js");
  writeFileSync(asset, SCRIPT);
  writeFileSync(`${asset}.br`, zlib.brotliCompressSync(SCRIPT));
  writeFileSync(`${asset}.gz`, zlib.gzipSync(SCRIPT));
  writeFileSync(path.join(dist, "assets/small-Xy98zW76.css"), "body{margin:0}");
  writeFileSync(path.join(dist, "index.html"), HTML);
  writeFileSync(path.join(dist, "index.html.br"), zlib.brotliCompressSync(HTML));
  writeFileSync(path.join(dist, "index.html.gz"), zlib.gzipSync(HTML));
  writeFileSync(path.join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  app = Fastify();
  registerEnvelope(app);
  await serveWeb(app, dist);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: "GET", url, headers });

describe("serving the built web app", () => {
  it("sends a hashed script brotli-encoded when accepted, immutable for a year", async () => {
    const res = await get("/assets/index-AbCd12_-.js", { "accept-encoding": "gzip, deflate, br" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it("sends gzip to a client without brotli, and the file itself to one without either", async () => {
    const gz = await get("/assets/index-AbCd12_-.js", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);
    expect(gz.headers["cache-control"]).toBe(CACHE_IMMUTABLE);

    const plain = await get("/assets/index-AbCd12_-.js", { "accept-encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    // The same URL answers differently by Accept-Encoding: caches must know.
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.headers["cache-control"]).toBe(CACHE_IMMUTABLE);
  });

  it("sends a small asset without a compressed sibling as it is, still immutable", async () => {
    const res = await get("/assets/small-Xy98zW76.css", { "accept-encoding": "br, gzip" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.body).toBe("body{margin:0}");
    expect(res.headers["cache-control"]).toBe(CACHE_IMMUTABLE);
  });

  it("revalidates index.html, whether asked for, at / or as a screen's fallback", async () => {
    for (const url of ["/index.html", "/", "/index?listType=list"]) {
      const res = await get(url, { "accept-encoding": "br" });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toMatch(/^text\/html/);
      expect(res.headers["cache-control"], url).toBe("no-cache");
      expect(res.headers["content-encoding"], url).toBe("br");
      expect(zlib.brotliDecompressSync(res.rawPayload).toString(), url).toBe(HTML);
    }
    // Unchanged: a 304 without the body.
    const first = await get("/index", { "accept-encoding": "br" });
    const again = await get("/index", {
      "accept-encoding": "br",
      "if-none-match": String(first.headers.etag),
    });
    expect(again.statusCode).toBe(304);
  });

  it("draws the brand's side into a login-shell page, in its brand and language", async () => {
    const en = await app.inject({
      url: "/login?language=en",
      headers: { host: "cloud.vantage-iot.com", "accept-encoding": "br" },
    });
    expect(en.statusCode).toBe(200);
    expect(en.headers["content-type"]).toMatch(/^text\/html/);
    expect(en.headers["cache-control"]).toBe("no-cache");
    expect(en.headers["content-encoding"]).toBe("br");
    const html = zlib.brotliDecompressSync(en.rawPayload).toString();
    expect(html).toContain(
      '<span class="kw-brand-name" data-testid="brand-name">Vantage Cloud</span>',
    );
    expect(html).toContain("--kw-primary:#0f766e");
    expect(html).toContain('<script type="module" src="/assets/index-AbCd12_-.js">');
    // The other language; gzip for a client without brotli.
    const zh = await get("/register?language=cn", { "accept-encoding": "gzip" });
    expect(zh.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(zh.rawPayload).toString()).toContain(">Keyway 云<");
    const again = await get("/register?language=cn", { "if-none-match": String(zh.headers.etag) });
    expect(again.statusCode).toBe(304);
    // A page outside the shell gets index.html as it is.
    const other = await get("/index");
    expect(other.body).toBe(HTML);
  });

  it("revalidates the other files of the root (favicon)", async () => {
    const res = await get("/favicon.svg");
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe(CACHE_REVALIDATE);
  });

  it("keeps a missing asset and an API path 404, never the SPA", async () => {
    for (const url of ["/assets/gone-AbCd12_-.js", "/api/nothing", "/favicon.ico"]) {
      const res = await get(url, { "accept-encoding": "br" });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers["content-type"], url).toMatch(/json/);
    }
  });

  it("caches for good only hashed file names directly under assets/", () => {
    expect(cacheControlOf(dist, path.join(dist, "assets/vendor-Db58IBdh.js.br"))).toBe(
      CACHE_IMMUTABLE,
    );
    expect(cacheControlOf(dist, "assets/index-p5HXvf6K.css")).toBe(CACHE_IMMUTABLE);
    expect(cacheControlOf(dist, "assets/rolldown-runtime-vfrPO-fZ.js.gz")).toBe(CACHE_IMMUTABLE);
    expect(cacheControlOf(dist, "assets/readme.txt")).toBe(CACHE_REVALIDATE);
    expect(cacheControlOf(dist, "assets/nested/index-p5HXvf6K.js")).toBe(CACHE_REVALIDATE);
    expect(cacheControlOf(dist, "index.html")).toBe(CACHE_REVALIDATE);
    expect(cacheControlOf(dist, "index.html.br")).toBe(CACHE_REVALIDATE);
    expect(cacheControlOf(dist, "favicon.svg")).toBe(CACHE_REVALIDATE);
  });
});

describe("the web app in the whole server", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { WEB_DIST: dist } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("keeps the security headers on the pages, and only nosniff and CORP on hashed scripts", async () => {
    const page = await h.app.inject({ url: "/login", headers: { "accept-encoding": "br" } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-encoding"]).toBe("br");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    const script = await h.app.inject({
      url: "/assets/index-AbCd12_-.js",
      headers: { "accept-encoding": "br" },
    });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-encoding"]).toBe("br");
    expect(script.headers["x-content-type-options"]).toBe("nosniff");
    expect(script.headers["cross-origin-resource-policy"]).toBe("same-origin");
    for (const name of DOCUMENT_ONLY_HEADERS) expect(script.headers[name], name).toBeUndefined();
    const index = await h.app.inject({ url: "/login" });
    expect(index.headers["cache-control"]).toBe("no-cache");
  });
});
