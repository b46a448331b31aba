import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The modules' import graph (docs/architecture/README.md): services call each other one way.
 * A module may read another's tables (its schema.ts, for joins and foreign keys); any other
 * import is a dependency, and the dependencies must have no cycle.
 */
const MODULES = dirname(new URL(import.meta.url).pathname);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

const moduleOf = (path: string) => relative(MODULES, path).split(sep)[0] ?? "";

/** module -> modules it depends on, with one importing file per edge for the message. */
function dependencies(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(MODULES)) {
    const from = moduleOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    const text = readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)) {
      const target = resolve(dirname(file), spec as string);
      if (!target.startsWith(MODULES + sep)) continue;
      const to = moduleOf(target);
      if (to === from || target.endsWith(`${sep}schema.ts`)) continue;
      edges.set(to, relative(MODULES, file));
    }
  }
  return graph;
}

function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const walk = (node: string, path: string[]) => {
    state.set(node, "open");
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) walk(next, [...path, next]);
    }
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) walk(node, [node]);
  return found;
}

describe("server modules", () => {
  it("depend on each other without a cycle (tables aside)", () => {
    const graph = dependencies();
    const described = cycles(graph).map((cycle) =>
      cycle
        .slice(1)
        .map((to, i) => `${cycle[i]} -> ${to} (${graph.get(cycle[i] as string)?.get(to)})`)
        .join(", "),
    );
    expect(described).toEqual([]);
  });

  it("find a cycle when there is one (the check itself)", () => {
    const graph = new Map([
      ["a", new Map([["b", "a/x.ts"]])],
      ["b", new Map([["c", "b/y.ts"]])],
      ["c", new Map([["a", "c/z.ts"]])],
    ]);
    expect(cycles(graph)).toEqual([["a", "b", "c", "a"]]);
  });

  it("never import a route file of another module", () => {
    const crossing = sources(MODULES).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/from\s*"(\.[^"]*routes[^"]*)"/g)]
        .map(([, spec]) => resolve(dirname(file), spec as string))
        .filter((target) => target.startsWith(MODULES + sep) && moduleOf(target) !== moduleOf(file))
        .map((target) => `${relative(MODULES, file)} -> ${relative(MODULES, target)}`),
    );
    expect(crossing).toEqual([]);
  });
});
