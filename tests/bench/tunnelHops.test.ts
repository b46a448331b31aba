import { describe, expect, it } from "vitest";
import { AFTER, follow, HOPS, hopTable, noHops, type Role } from "../../bench/tunnel-hops.ts";

/**
 * BENCH_HOPS's reading of `perf script` (bench/tunnel-hops.ts): a request is followed from the
 * client's write through the edge, the agent and the target and back, and only a request
 * followed whole counts — what a reader of its table takes each figure to be.
 */

const roles = new Map<number, Role>([
  [100, "client"],
  [200, "edge"],
  [300, "agent"],
  [400, "target"],
]);

/** One perf script line (`-F pid,tid,time,event,trace`) at `us` µs. */
function at(us: number, pid: number, event: string, trace: string, tid = pid): string {
  return `${pid}/${tid} ${(1000 + us / 1e6).toFixed(6)}: syscalls:sys_${event}: ${trace}`;
}
const read = (us: number, pid: number, bytes = 0x104) => [
  at(us - 1, pid, "enter_read", "fd: 0x00000014, buf: 0x1, count: 0x00010000"),
  at(us, pid, "exit_read", `0x${bytes.toString(16)}`),
];
const write = (us: number, pid: number) => [
  at(us, pid, "enter_write", "fd: 0x00000013, buf: 0x1, count: 0x00000104"),
];
/** Node waits in epoll_wait; OpenSSH (the agent's place for ssh -R) in ppoll. */
const wait = (us: number, pid: number) => [
  pid === 300
    ? at(
        us,
        pid,
        "enter_ppoll",
        "ufds: 0x1, nfds: 0x00000003, tsp: 0x0, sigmask: 0x0, sigsetsize: 0x8",
      )
    : at(us, pid, "enter_epoll_wait", "epfd: 0x00000003, events: 0x1, maxevents: 0x00000400"),
];

/** One whole exchange from `t`: every hop 10 µs apart but the ones named. */
function exchange(t: number): string[] {
  return [
    ...write(t, 100),
    ...read(t + 10, 200),
    ...write(t + 30, 200),
    ...wait(t + 45, 200),
    ...read(t + 50, 300),
    ...write(t + 60, 300),
    ...wait(t + 70, 300),
    ...read(t + 80, 400),
    ...write(t + 100, 400),
    ...read(t + 110, 300),
    ...write(t + 115, 300),
    ...wait(t + 140, 300),
    ...read(t + 150, 200),
    ...write(t + 170, 200),
    ...read(t + 200, 100),
    ...wait(t + 230, 200),
  ];
}

describe("following a small request hop by hop", () => {
  it("times each hop of whole exchanges only, and each process's work after its writes", () => {
    const second = exchange(1300);
    // Within it, after the edge's read: a read that found nothing (EAGAIN), another
    // process's write, a write from a worker thread of the edge. None is a step.
    second.splice(
      3,
      0,
      at(1312, 200, "exit_read", "0xfffffffffffffff5"),
      ...write(1314, 999),
      at(1316, 200, "enter_write", "fd: 0x9", 201),
    );
    const text = [
      // A request whose edge never answers before the client writes again: not counted.
      ...write(0, 100),
      ...read(5, 200),
      ...exchange(1000),
      ...second,
    ].join("\n");
    const samples = noHops();
    follow(text, roles, samples);

    const hop = (name: (typeof HOPS)[number]) => samples.hops[HOPS.indexOf(name)];
    expect(hop("client → edge")).toEqual([10, 10]);
    expect(hop("edge in")).toEqual([20, 20]);
    expect(hop("target")).toEqual([20, 20]);
    expect(hop("agent out")).toEqual([5, 5]);
    expect(hop("edge out")).toEqual([20, 20]);
    expect(hop("edge → client")).toEqual([30, 30]);
    // The client's turn: from its read of the first answer to its next request's write.
    expect(samples.turns).toEqual([100]);
    const afterWrite = (name: (typeof AFTER)[number][1]) =>
      samples.after[AFTER.findIndex(([, n]) => n === name)];
    expect(afterWrite("edge, the request")).toEqual([15, 15]);
    expect(afterWrite("edge, the answer")).toEqual([60, 60]);
    expect(afterWrite("agent, the request")).toEqual([10, 10]);
    expect(afterWrite("agent, the answer")).toEqual([25, 25]);
  });

  it("prints each path's medians side by side, and says when nothing was recorded", () => {
    const samples = noHops();
    follow(exchange(0).join("\n"), roles, samples);
    const table = hopTable([
      ["Keyway", samples],
      ["floor", noHops()],
    ]);
    expect(table[0]).toContain("Keyway 1");
    expect(table.find((l) => l.includes("client → client"))).toMatch(/client → client\s+200$/);
    expect(table.some((l) => l.includes("floor"))).toBe(false);
    expect(hopTable([["Keyway", noHops()]])[0]).toContain("nothing recorded");
  });
});
