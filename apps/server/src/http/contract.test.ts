import { API, type Route } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../testing/harness.ts";

/**
 * The API contract is written once (packages/shared/src/contract/): the server registers
 * every route of it, and every JSON call it serves is one of them.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const routes = Object.values(API).flatMap((group) => Object.values(group) as Route[]);

/** Served under /api and /eapi but not envelope calls of the contract. */
const OUTSIDE = [
  /^\/api\/ws$/, // push sockets
  /^\/api\/internal\/v1\/mqtt\//, // an external broker's auth hooks, answered in its format
  /^\/api\/device\/v1\/visits\/activity\.csv$/, // a file (text/csv), not an envelope
];

describe("the API contract", () => {
  it("names each method and path once", () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    expect(routes.filter((r) => !/^\/e?api\//.test(r.path)).map((r) => r.path)).toEqual([]);
  });

  it("is what the server serves", () => {
    const missing = routes.filter((r) => !h.app.hasRoute({ method: r.method, url: r.path }));
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);

    const served = servedRoutes(h.app.printRoutes({ commonPrefix: false })).filter(
      ({ path }) => /^\/e?api\//.test(path) && !OUTSIDE.some((re) => re.test(path)),
    );
    const known = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(served.map((s) => `${s.method} ${s.path}`).filter((key) => !known.has(key))).toEqual([]);
  });
});

/** Fastify's route tree (`├── /api/x (POST)`, children indented by 4) as method + path. */
function servedRoutes(tree: string): { method: string; path: string }[] {
  const parents: string[] = [];
  return tree.split("\n").flatMap((line) => {
    const match = line.match(/^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?/);
    if (!match) return [];
    const depth = (match[1] ?? "").length / 4;
    const path = (parents[depth - 1] ?? "") + (match[2] ?? "");
    parents[depth] = path;
    return (match[3] ?? "")
      .split(", ")
      .filter((method) => method && method !== "HEAD" && method !== "OPTIONS")
      .map((method) => ({ method, path }));
  });
}
