import { readdirSync, readFileSync } from "node:fs";

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

/**
 * BENCH_PROFILE=<dir>: the Node flags with which a bench's processes (its servers, peers,
 * clients: each bench says which) write CPU profiles there, to open in Chrome DevTools;
 * BENCH_PROFILE_INTERVAL=<µs> samples more often than V8's 1 ms.
 */
export const PROFILE_FLAGS = process.env.BENCH_PROFILE
  ? [
      "--cpu-prof",
      `--cpu-prof-dir=${process.env.BENCH_PROFILE}`,
      ...(process.env.BENCH_PROFILE_INTERVAL
        ? [`--cpu-prof-interval=${process.env.BENCH_PROFILE_INTERVAL}`]
        : []),
    ]
  : [];

/** VmRSS of a process in bytes (Linux /proc), 0 when it cannot be read. */
export function rssOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) another process used, with its children: those it has reaped
 * (PostgreSQL's ended backends, nginx's old workers) and those still running.
 */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  const own = (p: number | string, reaped: boolean) => {
    try {
      // Fields after the command name, in clock ticks: utime and stime are the 12th and
      // 13th, the reaped children's cutime and cstime the 14th and 15th.
      const f = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ").map(Number);
      return (f[11] + f[12] + (reaped ? f[13] + f[14] : 0)) / 100;
    } catch {
      return 0;
    }
  };
  let total = own(pid, true);
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const child of children ? children.split(" ") : []) total += own(child, false);
    }
  } catch {
    // gone
  }
  return total;
}
