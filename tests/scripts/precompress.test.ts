import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { precompressDir } from "../../apps/web/precompress.ts";

/**
 * The web build's precompression (apps/web/precompress.ts, issue 17): brotli and gzip siblings
 * of the text files worth it, nothing for small or already compressed files.
 */
const dir = mkdtempSync(path.join(tmpdir(), "kw-precompress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("precompressDir", () => {
  it("writes .br and .gz beside the larger text files only, decoding to the same bytes", async () => {
    mkdirSync(path.join(dir, "assets"));
    const script = `console.log(${JSON.stringify("keyway ".repeat(1000))});`;
    const files = {
      "assets/index-AbCd12_-.js": script,
      "assets/index-Xy98zW76.css": `.kw{color:red}\n`.repeat(200),
      "index.html": `<!doctype html><div id="root"></div>${"<!-- x -->".repeat(200)}`,
      // Small: the encoding would save next to nothing.
      "assets/tiny-AbCd12_-.js": "export const a = 1;",
      // Already compressed formats.
      "assets/logo-AbCd12_-.png": "x".repeat(5000),
      "assets/font-AbCd12_-.woff2": "y".repeat(5000),
    };
    for (const [name, content] of Object.entries(files))
      writeFileSync(path.join(dir, name), content);

    const done = (await precompressDir(dir)).map((file) => path.relative(dir, file)).sort();
    expect(done).toEqual(["assets/index-AbCd12_-.js", "assets/index-Xy98zW76.css", "index.html"]);
    for (const name of done) {
      const original = readFileSync(path.join(dir, name));
      const br = readFileSync(path.join(dir, `${name}.br`));
      const gz = readFileSync(path.join(dir, `${name}.gz`));
      expect(zlib.brotliDecompressSync(br).equals(original), name).toBe(true);
      expect(zlib.gunzipSync(gz).equals(original), name).toBe(true);
      expect(br.length, name).toBeLessThan(original.length / 4);
    }
    for (const name of ["assets/tiny-AbCd12_-.js", "assets/logo-AbCd12_-.png"]) {
      expect(existsSync(path.join(dir, `${name}.br`)), name).toBe(false);
      expect(existsSync(path.join(dir, `${name}.gz`)), name).toBe(false);
    }
  });
});
