import { describe, expect, it } from "vitest";
import { createTokenCheck, type PushIdentity } from "./tokenCheck.ts";

const who = (terminalId: number): PushIdentity => ({ userId: 1, terminalId, role: "user" });

/** A token table read when a lookup starts, answered when the test says so. */
function fakeTable(rows: Map<string, PushIdentity>) {
  const lookups: { tokens: string[]; answer: () => void }[] = [];
  const lookup = (tokens: readonly string[]) =>
    new Promise<Map<string, PushIdentity>>((resolve) => {
      const found = new Map([...rows].filter(([token]) => tokens.includes(token)));
      lookups.push({ tokens: [...tokens], answer: () => resolve(found) });
    });
  return { lookup, lookups };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("push token check", () => {
  it("checks the connects that arrive together in one lookup", async () => {
    const rows = new Map([
      ["a", who(1)],
      ["b", who(2)],
    ]);
    const table = fakeTable(rows);
    const check = createTokenCheck(table.lookup);
    const answers = Promise.all(["a", "b", "a", "nope"].map(check));
    await settle();
    expect(table.lookups.map((l) => l.tokens)).toEqual([["a", "b", "nope"]]);
    table.lookups[0].answer();
    expect(await answers).toEqual([who(1), who(2), who(1), null]);
  });

  it("never answers a connect from a lookup that started before it: a token revoked meanwhile is refused", async () => {
    const rows = new Map([["a", who(1)]]);
    const table = fakeTable(rows);
    const check = createTokenCheck(table.lookup);
    const early = check("a");
    await settle();
    // The session ends while the first lookup is still running, then the token comes again.
    rows.delete("a");
    const late = check("a");
    await settle();
    for (const lookup of table.lookups) lookup.answer();
    expect(await early).toEqual(who(1));
    expect(await late).toBeNull();
    expect(table.lookups).toHaveLength(2);
  });

  it("splits a large burst and passes a failed lookup on to its connects", async () => {
    const calls: number[] = [];
    const check = createTokenCheck(async (tokens) => {
      calls.push(tokens.length);
      throw new Error("database down");
    }, 2);
    const results = await Promise.allSettled(["a", "b", "c"].map(check));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(calls).toEqual([2, 1]);
  });
});
