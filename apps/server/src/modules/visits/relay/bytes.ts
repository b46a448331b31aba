/**
 * Bytes received in pieces, read from the front: what a parser of a byte stream needs
 * without copying more than it must (a read inside one piece is a view of it).
 */
export class ByteQueue {
  private chunks: Buffer[] = [];
  /** Bytes already read from the first piece. */
  private offset = 0;
  length = 0;

  push(chunk: Buffer): void {
    if (!chunk.byteLength) return;
    this.chunks.push(chunk);
    this.length += chunk.byteLength;
  }

  /** The byte at `at`, or null when not received yet. */
  byte(at: number): number | null {
    if (at >= this.length) return null;
    let i = at + this.offset;
    for (const chunk of this.chunks) {
      if (i < chunk.byteLength) return chunk[i];
      i -= chunk.byteLength;
    }
    return null;
  }

  /** The big-endian u16 at `at`, or null. */
  uint16(at: number): number | null {
    const high = this.byte(at);
    const low = this.byte(at + 1);
    return high === null || low === null ? null : (high << 8) | low;
  }

  /** The first n bytes without reading them, or null when fewer are here. */
  peek(n: number): Buffer | null {
    if (n > this.length) return null;
    const first = this.chunks[0];
    if (first && first.byteLength - this.offset >= n)
      return first.subarray(this.offset, this.offset + n);
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    let start = this.offset;
    for (const chunk of this.chunks) {
      const take = Math.min(n - filled, chunk.byteLength - start);
      chunk.copy(out, filled, start, start + take);
      filled += take;
      start = 0;
      if (filled === n) break;
    }
    return out;
  }

  /** Reads the first n bytes, or nothing (null) when fewer are here. */
  take(n: number): Buffer | null {
    const bytes = this.peek(n);
    if (bytes) this.skip(n);
    return bytes;
  }

  /** Reads up to n bytes from the first piece (null when empty). */
  takeUpTo(n: number): Buffer | null {
    const first = this.chunks[0];
    if (!first || n <= 0) return null;
    const take = Math.min(n, first.byteLength - this.offset);
    const bytes = first.subarray(this.offset, this.offset + take);
    this.skip(take);
    return bytes;
  }

  /** Everything received and not read. */
  takeAll(): Buffer {
    const bytes = this.peek(this.length) ?? Buffer.alloc(0);
    this.skip(this.length);
    return bytes;
  }

  skip(n: number): void {
    let left = Math.min(n, this.length);
    this.length -= left;
    while (left > 0) {
      const first = this.chunks[0];
      const rest = first.byteLength - this.offset;
      if (left < rest) {
        this.offset += left;
        return;
      }
      left -= rest;
      this.chunks.shift();
      this.offset = 0;
    }
  }

  clear(): void {
    this.chunks = [];
    this.offset = 0;
    this.length = 0;
  }
}
