/** Timing helpers for benchmarks: wall time in milliseconds, after a warm-up. */
export async function timeRuns(
  runs: number,
  fn: () => Promise<unknown>,
  warmup = 5,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
