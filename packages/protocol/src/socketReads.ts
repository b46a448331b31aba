import { Socket } from "node:net";
import type { Duplex } from "node:stream";

/**
 * A socket read straight into a buffer of ours (docs/architecture/remote-access.md, "Reads"):
 * Node's `onread`, which Node documents for the sockets it connects, used on any socket.
 * Each read lands in one buffer shared by the process and calls its reader at once: no new
 * 64 KiB buffer per read, no push into the socket's stream, no tick after it. Node sets this
 * up only when it creates a socket; on one its server accepted, the same hooks are set here
 * (the socket's `kBuffer`, `kBufferCb` and `kBufferGen`, the handle's `useUserBuffer`),
 * found by name, and only when all are there: otherwise the socket is read by 'data' events.
 */

/**
 * Given each read's bytes. They are the shared buffer's (borrowed: valid only during the
 * call) or the reader's own (kept), as the reader asked. Returning false stops reading until
 * `socket.resume()`.
 */
export type SocketReader = (bytes: Buffer) => unknown;

/** Node's suggested size for a read, kept: a bulk transfer reads as much at a time as before. */
const READ_SIZE = 64 * 1024;
let shared: Buffer | null = null;

interface Hooks {
  buffer: symbol;
  callback: symbol;
  generator: symbol;
}
let hooks: Hooks | null | undefined;

function hooksOf(socket: Duplex): Hooks | null {
  if (!(socket instanceof Socket)) return null;
  if (hooks === undefined) {
    const named = new Map(Object.getOwnPropertySymbols(socket).map((s) => [s.description, s]));
    const buffer = named.get("kBuffer");
    const callback = named.get("kBufferCb");
    const generator = named.get("kBufferGen");
    hooks = buffer && callback && generator ? { buffer, callback, generator } : null;
  }
  return hooks;
}

type Handle = { useUserBuffer?: (buffer: Uint8Array) => void };
type Hooked = Duplex & Record<symbol, unknown>;

/**
 * A read's bytes (the first `length`) in a buffer of their own, exactly their size, as
 * Node's own reads are.
 */
export function ownBytes(bytes: Buffer, length = bytes.byteLength): Buffer {
  const own = Buffer.allocUnsafeSlow(length);
  bytes.copy(own, 0, 0, length);
  return own;
}

/**
 * Reads `socket` into the shared buffer from now on, calling `reader` with each read
 * (`kept`: in a buffer of its own, which the reader may hold; otherwise borrowed). False when
 * this Node has no such hooks: the caller reads 'data' events instead.
 */
export function readDirect(socket: Duplex, reader: SocketReader, kept: boolean): boolean {
  const handle = (socket as unknown as { _handle?: Handle | null })._handle;
  const h = hooksOf(socket);
  if (!h || typeof handle?.useUserBuffer !== "function" || socket.destroyed) return false;
  // Bytes already in the socket's stream come first, as 'data' events: this one stays there.
  if (socket.readableLength > 0) return false;
  shared ??= Buffer.allocUnsafeSlow(READ_SIZE);
  const s = socket as Hooked;
  const first = s[h.buffer] !== shared;
  s[h.buffer] = shared;
  s[h.generator] = null;
  s[h.callback] = kept
    ? (n: number, into: Buffer) => reader(ownBytes(into, n))
    : (n: number, into: Buffer) => reader(into.subarray(0, n));
  // Once per socket: the handle's reads go to the shared buffer (a second call would stack
  // another listener on the handle for nothing).
  if (first) handle.useUserBuffer(shared);
  return true;
}

/**
 * Gives `socket`'s reads back to its stream: each later read is pushed as Node pushes it (in
 * a buffer of its own), for 'data' listeners and Node's HTTP server. Only after `readDirect`.
 */
export function readToStream(socket: Duplex): void {
  const h = hooksOf(socket);
  if (!h) return;
  (socket as Hooked)[h.callback] = (n: number, into: Buffer) => socket.push(ownBytes(into, n));
}
