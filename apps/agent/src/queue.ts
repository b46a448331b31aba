import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";

/**
 * One line of the journal: an entry added, or the ack of an entry by id. The file is
 * append-only between compactions; a compaction rewrites it with only the pending entries
 * (write a temporary file, fsync, rename over the journal, fsync the directory).
 */
type JournalLine<T> = { add: T } | { ack: string };

export interface QueueOptions<T> {
  /** The journal file, e.g. `<data-dir>/alarms.jsonl`. */
  file: string;
  /** Each entry's id (unique per queue); acks name entries by it. */
  idOf: (entry: T) => string;
  /** Compact once this many acked lines have accumulated. Default 256. */
  compactAfter?: number;
  /** Told about lines that could not be read (e.g. a torn last write). */
  onCorrupt?: (lineNumber: number, text: string) => void;
}

/**
 * A small durable FIFO queue: an append-only JSON-lines journal, fsynced on every write.
 * `append` returns only once the entry is on disk; `ack` removes an entry after it has been
 * delivered. Reopening the file after a crash yields every entry that was appended and not
 * acked, in order. A corrupt line (a write torn by a power cut) is skipped and dropped by the
 * compaction that runs on open.
 */
export class DurableQueue<T> {
  private readonly file: string;
  private readonly idOf: (entry: T) => string;
  private readonly compactAfter: number;
  private readonly pending = new Map<string, T>();
  private fd: number | undefined;
  private ackedLines = 0;

  constructor(options: QueueOptions<T>) {
    this.file = options.file;
    this.idOf = options.idOf;
    this.compactAfter = options.compactAfter ?? 256;
    mkdirSync(dirname(this.file), { recursive: true });
    this.load(options.onCorrupt);
    // Always rewrite on open: drops acked entries and any torn trailing line, so the next
    // append starts on a fresh line.
    this.compact();
  }

  /** Entries not yet acknowledged, oldest first. */
  list(): T[] {
    return [...this.pending.values()];
  }

  peek(): T | undefined {
    return this.pending.values().next().value;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Writes the entry to disk (fsync) before returning. */
  append(entry: T): void {
    const id = this.idOf(entry);
    if (this.pending.has(id)) throw new Error(`duplicate queue id ${id}`);
    this.write({ add: entry });
    this.pending.set(id, entry);
  }

  /** Removes a delivered entry; unknown ids are ignored. */
  ack(id: string): void {
    if (!this.pending.has(id)) return;
    this.write({ ack: id });
    this.pending.delete(id);
    this.ackedLines += 1;
    if (this.pending.size === 0 || this.ackedLines >= this.compactAfter) this.compact();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private load(onCorrupt?: (lineNumber: number, text: string) => void): void {
    if (!existsSync(this.file)) return;
    const lines = readFileSync(this.file, "utf8").split("\n");
    lines.forEach((text, index) => {
      if (!text.trim()) return;
      let line: JournalLine<T>;
      try {
        line = JSON.parse(text) as JournalLine<T>;
      } catch {
        onCorrupt?.(index + 1, text);
        return;
      }
      if (line && typeof line === "object" && "add" in line) {
        this.pending.set(this.idOf(line.add), line.add);
      } else if (line && typeof line === "object" && "ack" in line) {
        this.pending.delete(line.ack);
      } else {
        onCorrupt?.(index + 1, text);
      }
    });
  }

  private write(line: JournalLine<T>): void {
    if (this.fd === undefined) this.fd = openSync(this.file, "a");
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fsyncSync(this.fd);
  }

  private compact(): void {
    this.close();
    const tmp = join(dirname(this.file), `.${Date.now()}-${process.pid}.tmp`);
    const fd = openSync(tmp, "w");
    try {
      const body = [...this.pending.values()].map((entry) => `${JSON.stringify({ add: entry })}\n`);
      if (body.length) writeSync(fd, body.join(""));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    syncDirectory(dirname(this.file));
    this.ackedLines = 0;
  }
}

/** Makes a rename durable; not every platform can fsync a directory, which is fine. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}
