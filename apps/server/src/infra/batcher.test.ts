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

  it("after a flush that held the event loop, gathers what arrives over the next turns", async () => {
    const calls: number[][] = [];
    // Like PGlite: the work runs in this thread and lets nothing else in while it does.
    const batcher = createBatcher(async (items: number[]) => {
      calls.push(items);
      const until = performance.now() + 20;
      while (performance.now() < until);
      return items;
    });
    await batcher.submit(0);
    // Five items, each in its own turn of the loop, right after that flush.
    const later: Promise<number>[] = [];
    for (let i = 1; i <= 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      later.push(batcher.submit(i));
    }
    expect(await Promise.all(later)).toEqual([1, 2, 3, 4, 5]);
    expect(calls).toEqual([[0], [1, 2, 3, 4, 5]]);
  });

  it("does not hold after a flush that waited on I/O (a database server)", async () => {
    const calls: number[][] = [];
    const batcher = createBatcher(async (items: number[]) => {
      calls.push(items);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return items;
    });
    await batcher.submit(0);
    const later: Promise<number>[] = [];
    for (let i = 1; i <= 3; i++) {
      later.push(batcher.submit(i));
      // Each flush of one item is under way before the next item comes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(later);
    expect(calls[1]).toEqual([1]);
  });
});
