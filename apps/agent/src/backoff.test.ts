import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffDelay } from "./backoff.ts";

/** The reconnect wait: doubling from `min`, never above `max`, jittered ±25% around it. */
describe("backoffDelay", () => {
  afterEach(() => vi.restoreAllMocks());

  const MIN = 1000;
  const MAX = 30_000;
  const nominal = (attempt: number) => Math.min(MAX, MIN * 2 ** attempt);

  it("stays within ±25% of the doubling wait, and never above the cap", () => {
    for (let attempt = 0; attempt <= 40; attempt++) {
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(attempt, MIN, MAX);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal(attempt) * 0.75));
        expect(delay).toBeLessThanOrEqual(Math.min(MAX, Math.ceil(nominal(attempt) * 1.25)));
      }
    }
  });

  it("grows with each attempt until it reaches the cap", () => {
    // Without jitter (the random draw in the middle) the nominal waits show.
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const waits = [0, 1, 2, 3, 4, 5, 6, 10, 30].map((a) => backoffDelay(a, MIN, MAX));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("spreads devices out: the same attempt gives different waits", () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffDelay(3, MIN, MAX)));
    expect(waits.size).toBeGreaterThan(10);
    // The extremes of the draw land on the bounds.
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect(backoffDelay(3, MIN, MAX)).toBe(6000);
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    expect(backoffDelay(3, MIN, MAX)).toBe(10_000);
    // At the cap the jitter only goes down, so no wait exceeds it.
    expect(backoffDelay(20, MIN, MAX)).toBe(MAX);
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect(backoffDelay(20, MIN, MAX)).toBe(22_500);
  });
});
