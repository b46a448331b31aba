import { describe, expect, it } from "vitest";
import { createBatcher } from "./batcher.ts";

describe("batcher", () => {
  it("flushes what arrives together in one call, answering each in order", async () => {
    const calls: number[][] = [];
    const batcher = createBatcher(async (items: number[]) => {
      calls.push(items);
      return items.map((n) => n * 10);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    // At most three at a time; nothing submitted twice or dropped.
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("sends items arriving while a flush runs in the next one", async () => {
    const calls: string[][] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = createBatcher(async (items: string[]) => {
      calls.push(items);
      if (calls.length === 1) await gate;
      return items;
    });
    const first = batcher.submit("a");
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batcher.submit("b"), batcher.submit("c")];
    expect(batcher.pending).toBe(2);
    release();
    await Promise.all([first, ...later]);
    expect(calls).toEqual([["a"], ["b", "c"]]);
  });

  it("fails every item of a failed batch, and goes on with the next", async () => {
    let fail = true;
    const batcher = createBatcher(async (items: number[]) => {
      if (fail) {
        fail = false;
        throw new Error("database down");
      }
      return items;
    });
    const failed = [batcher.submit(1), batcher.submit(2)];
    for (const p of failed) await expect(p).rejects.toThrow("database down");
    await expect(batcher.submit(3)).resolves.toBe(3);
  });
});
