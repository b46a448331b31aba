import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";

const BLOCK = 512;

/**
 * A tar as PGlite's dumpDataDir writes it (ustar: folders and plain files, names from the
 * data directory's root), unpacked into `dir` as its bytes arrive: each piece is written
 * where it belongs and dropped, so unpacking PGlite's 40 MB never holds them in memory (a
 * whole decompressed buffer stayed resident as ~85 MiB of the server's peak).
 */
export function untarInto(dir: string, source: string): Writable {
  let pending = Buffer.alloc(0);
  let fd: number | undefined;
  let remaining = 0;
  let padding = 0;
  let ended = false;

  const refuse = (what: string) => new Error(`${source}: ${what}`);

  /** One header block: a folder made, a file opened, or the end. */
  function header(block: Buffer): void {
    if (block.every((byte) => byte === 0)) {
      ended = true;
      return;
    }
    const field = (from: number, length: number) =>
      block.toString("latin1", from, from + length).replace(/\0.*$/s, "");
    const name = path.join(field(345, 155), field(0, 100));
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1) || "0";
    const target = path.join(dir, name);
    if (!target.startsWith(dir + path.sep) || !Number.isSafeInteger(size) || size < 0) {
      throw refuse(`bad entry ${JSON.stringify(name)}`);
    }
    if (type === "5") {
      mkdirSync(target, { recursive: true, mode: 0o700 });
    } else if (type === "0") {
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fd = openSync(target, "wx", 0o600);
      remaining = size;
      padding = (BLOCK - (size % BLOCK)) % BLOCK;
      if (remaining === 0) closeFile();
    } else {
      throw refuse(`entry ${name} of type ${type}`);
    }
  }

  function closeFile(): void {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  }

  function take(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !ended) {
      if (remaining > 0) {
        const n = Math.min(remaining, chunk.length - at);
        writeSync(fd as number, chunk, at, n);
        at += n;
        remaining -= n;
        if (remaining === 0) closeFile();
      } else if (padding > 0) {
        const n = Math.min(padding, chunk.length - at);
        at += n;
        padding -= n;
      } else {
        const n = Math.min(BLOCK - pending.length, chunk.length - at);
        pending = Buffer.concat([pending, chunk.subarray(at, at + n)]);
        at += n;
        if (pending.length === BLOCK) {
          header(pending);
          pending = Buffer.alloc(0);
        }
      }
    }
  }

  mkdirSync(dir, { mode: 0o700 });
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      try {
        take(chunk);
        done();
      } catch (error) {
        closeFile();
        done(error as Error);
      }
    },
    final(done) {
      closeFile();
      done(ended ? null : refuse("cut short"));
    },
  });
}
