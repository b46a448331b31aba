import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableQueue } from "./queue.ts";

interface Item {
  id: string;
  text: string;
}

let dir: string;
let file: string;
const open = (onCorrupt?: (line: number, text: string) => void) =>
  new DurableQueue<Item>({ file, idOf: (item) => item.id, onCorrupt });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kw-queue-"));
  file = join(dir, "nested", "alarms.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("durable queue", () => {
  it("appends in order and removes an entry on ack", () => {
    const q = open();
    q.append({ id: "a", text: "one" });
    q.append({ id: "b", text: "two" });
    q.append({ id: "c", text: "three" });
    expect(q.peek()?.id).toBe("a");
    q.ack("b"); // out of order acks are allowed
    expect(q.list().map((i) => i.id)).toEqual(["a", "c"]);
    q.ack("a");
    q.ack("unknown");
    expect(q.list()).toEqual([{ id: "c", text: "three" }]);
    expect(() => q.append({ id: "c", text: "again" })).toThrow(/duplicate/);
    q.close();
  });

  it("is on disk as soon as append returns and survives a crash", () => {
    const q = open();
    q.append({ id: "a", text: "one" });
    q.append({ id: "b", text: "two" });
    q.ack("a");
    // A "crash": the process goes away without close(); a new process opens the file.
    expect(readFileSync(file, "utf8")).toContain('"id":"b"');
    const again = open();
    expect(again.list()).toEqual([{ id: "b", text: "two" }]);
    again.append({ id: "c", text: "three" });
    again.close();
    expect(
      open()
        .list()
        .map((i) => i.id),
    ).toEqual(["b", "c"]);
  });

  it("compacts the journal once everything is acked", () => {
    const q = open();
    for (let i = 0; i < 5; i++) q.append({ id: `x${i}`, text: "t" });
    for (let i = 0; i < 5; i++) q.ack(`x${i}`);
    expect(readFileSync(file, "utf8")).toBe("");
    q.close();
    expect(open().size).toBe(0);
  });

  it("tolerates a torn trailing line and keeps appending on a fresh line", () => {
    const q = open();
    q.append({ id: "a", text: "one" });
    q.close();
    appendFileSync(file, '{"add":{"id":"b","te'); // power cut mid-write
    const corrupt: number[] = [];
    const again = open((line) => corrupt.push(line));
    expect(corrupt).toEqual([2]);
    expect(again.list().map((i) => i.id)).toEqual(["a"]);
    again.append({ id: "c", text: "three" });
    again.close();
    expect(
      open()
        .list()
        .map((i) => i.id),
    ).toEqual(["a", "c"]);
  });

  it("replays acks written before a crash", () => {
    const q = open();
    q.append({ id: "a", text: "one" });
    q.append({ id: "b", text: "two" });
    q.ack("a");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.map((l) => Object.keys(JSON.parse(l))[0])).toEqual(["add", "add", "ack"]);
    expect(
      open()
        .list()
        .map((i) => i.id),
    ).toEqual(["b"]);
  });
});
