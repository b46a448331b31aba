import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { percentile } from "./stats.ts";

/**
 * BENCH_HOPS=1 in `npm run bench -- tunnel`: where a small request's time goes, hop by hop,
 * on every path of the same shape (client → edge → agent → target and back: Keyway's server
 * and agent, sshd and ssh -R, the bare Node tunnel's two processes). `perf record` traces the
 * socket reads and writes of those processes for half a second of each measured round's small
 * requests; each request is followed from the client's write through every process to the
 * client's read of the answer. A hop "A → B" is from A's write to B's read returning (the
 * kernel, B's wake-up); "B in"/"B out" from B's read returning to its next write (its own
 * work on the request and on the answer). Needs `perf` (Debian's linux-perf) and the right
 * to trace the whole system (root, or kernel.perf_event_paranoid -1); the tracing adds a few
 * µs to every system call while it runs, so a round with it is not a clean figure.
 */

export type Role = "client" | "edge" | "agent" | "target";

/** The hops of one request, in order; the client's turn (its read to its next write) apart. */
export const HOPS = [
  "client → edge",
  "edge in",
  "edge → agent",
  "agent in",
  "agent → target",
  "target",
  "target → agent",
  "agent out",
  "agent → edge",
  "edge out",
  "edge → client",
] as const;

const CHAIN: Array<[Role, "R" | "W"]> = [
  ["client", "W"],
  ["edge", "R"],
  ["edge", "W"],
  ["agent", "R"],
  ["agent", "W"],
  ["target", "R"],
  ["target", "W"],
  ["agent", "R"],
  ["agent", "W"],
  ["edge", "R"],
  ["edge", "W"],
  ["client", "R"],
];

/** The calls a process waits in: Node's event loop (epoll), OpenSSH's (ppoll, poll). */
const WAITS = new Set(["epoll_wait", "epoll_pwait", "ppoll", "poll"]);
const EVENTS = ["read", "write", "writev"]
  .flatMap((call) => [`syscalls:sys_enter_${call}`, `syscalls:sys_exit_${call}`])
  .concat([...WAITS].map((call) => `syscalls:sys_enter_${call}`));

/**
 * After each of these writes (CHAIN's indexes), how long its process works on before it waits
 * again (its next wait in WAITS): work a woken reader on the same core waits out.
 */
export const AFTER = [
  [2, "edge, the request"],
  [10, "edge, the answer"],
  [4, "agent, the request"],
  [8, "agent, the answer"],
] as const;

/** Every request followed: each hop's µs (HOPS' order), the client's turns, AFTER's µs. */
export interface HopSamples {
  hops: number[][];
  turns: number[];
  after: number[][];
}

export const noHops = (): HopSamples => ({
  hops: HOPS.map(() => []),
  turns: [],
  after: AFTER.map(() => []),
});

/** `pid` and the processes below it (sshd serves a connection from a child of a child). */
export function withDescendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++)
    for (const [child, parent] of parentOf) if (parent === all[i]) all.push(child);
  return all;
}

/**
 * Traces the system's socket reads and writes for `ms`; resolves with the recording's folder,
 * or null when perf is missing or may not trace. readHops reads it once the round is over.
 */
export async function recordHops(ms: number): Promise<string | null> {
  const dir = mkdtempSync(path.join(tmpdir(), "kw-bench-hops-"));
  const recorded = await new Promise<boolean>((resolve) => {
    const perf = spawn(
      "perf",
      [
        "record",
        "-q",
        "-a",
        "-o",
        path.join(dir, "perf.data"),
        ...EVENTS.flatMap((e) => ["-e", e]),
      ].concat(["--", "sleep", `${ms / 1000}`]),
      { stdio: "ignore" },
    );
    perf.on("error", () => resolve(false));
    perf.on("exit", (code) => resolve(code === 0));
  });
  if (recorded) return dir;
  rmSync(dir, { recursive: true, force: true });
  return null;
}

/** Adds every request the processes of `roles` (pid → role) carried whole in `dir`'s recording. */
export async function readHops(dir: string, roles: Map<number, Role>, into: HopSamples) {
  try {
    const text = await new Promise<string>((resolve) =>
      execFile(
        "perf",
        ["script", "-i", path.join(dir, "perf.data"), "-F", "pid,tid,time,event,trace"],
        { maxBuffer: 512 * 1024 * 1024 },
        (error, stdout) => resolve(error ? "" : stdout),
      ),
    );
    follow(text, roles, into);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Follows requests through perf script's lines (see recordHops). */
export function follow(text: string, roles: Map<number, Role>, into: HopSamples): void {
  const line = /^\s*(\d+)\/(\d+)\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):\s*(.*)$/;
  let at = 0;
  let stamps: number[] = [];
  let lastRead: number | null = null;
  /** Per role, the followed request's writes (time, AFTER's index) its process has not waited after. */
  const open = new Map<Role, Array<[number, number]>>();
  /** The same once the request was followed whole: they count at their process's next wait. */
  const waits = new Map<Role, Array<[number, number]>>();
  /** AFTER's figures of the request being followed, kept if it is followed whole. */
  let pending: Array<[number, number]> = [];
  for (const one of text.split("\n")) {
    const m = line.exec(one);
    // The main thread's calls only (Node's and OpenSSH's sockets are all on it).
    if (!m || m[1] !== m[2]) continue;
    const role = roles.get(Number(m[1]));
    if (!role) continue;
    const [, , , time, kind, call, args] = m;
    if (WAITS.has(call)) {
      const t = Number(time) * 1e6;
      for (const [at, index] of waits.get(role) ?? []) into.after[index].push(t - at);
      waits.delete(role);
      for (const [at, index] of open.get(role) ?? []) pending.push([index, t - at]);
      open.delete(role);
      continue;
    }
    let step: "R" | "W";
    if (kind === "exit" && call === "read") {
      // A read that returned bytes (not -EAGAIN, not the end).
      const result = Number.parseInt(args.trim(), 16);
      if (!(result > 0 && result < 2 ** 40)) continue;
      step = "R";
    } else if (kind === "enter" && call !== "read") step = "W";
    else continue;
    const t = Number(time) * 1e6;
    if (role === CHAIN[at][0] && step === CHAIN[at][1]) {
      stamps.push(t);
      const after = AFTER.findIndex(([index]) => index === at);
      if (after >= 0) open.set(role, [...(open.get(role) ?? []), [t, after]]);
      if (++at < CHAIN.length) continue;
      // Followed whole: its figures count, and so will its writes still before a wait.
      for (const [index, us] of pending) into.after[index].push(us);
      for (const [who, list] of open) waits.set(who, [...(waits.get(who) ?? []), ...list]);
      open.clear();
      pending = [];
      for (let i = 0; i < HOPS.length; i++) into.hops[i].push(stamps[i + 1] - stamps[i]);
      if (lastRead !== null) into.turns.push(stamps[0] - lastRead);
      lastRead = stamps[CHAIN.length - 1];
      at = 0;
      stamps = [];
    } else if (role === "client" && step === "W") {
      // A request begins: whatever was being followed was not one whole exchange.
      at = 1;
      stamps = [t];
      lastRead = null;
      open.clear();
      pending = [];
    }
  }
}

/** The table printed after the bench's figures: each hop's median, per path, in µs. */
export function hopTable(paths: Array<[string, HopSamples]>): string[] {
  const shown = paths.filter(([, s]) => s.hops[0].length);
  if (!shown.length) return ["  hops: nothing recorded (is perf installed, and may it trace?)"];
  const cell = (list: number[]) =>
    (list.length ? percentile(list, 50).toFixed(0) : "-").padStart(9);
  const totals = (s: HopSamples) =>
    s.hops[0].map((_, i) => s.hops.reduce((sum, h) => sum + h[i], 0));
  return [
    `  hops of a small request, median µs (perf, ${shown.map(([name, s]) => `${name} ${s.hops[0].length}`).join(", ")} requests followed):`,
    `  ${"".padEnd(20)}${shown.map(([name]) => name.padStart(9)).join("")}`,
    ...HOPS.map((hop, i) => `  ${hop.padEnd(20)}${shown.map(([, s]) => cell(s.hops[i])).join("")}`),
    `  ${"client → client".padEnd(20)}${shown.map(([, s]) => cell(totals(s))).join("")}`,
    `  ${"client's turn".padEnd(20)}${shown.map(([, s]) => cell(s.turns)).join("")}`,
    "  from a write to its process's next wait (work a reader woken on its core waits out):",
    ...AFTER.map(
      ([, name], i) => `  ${name.padEnd(20)}${shown.map(([, s]) => cell(s.after[i])).join("")}`,
    ),
  ];
}
