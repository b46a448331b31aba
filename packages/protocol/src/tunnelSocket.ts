import type { Duplex } from "node:stream";
import { TunnelMux, type TunnelMuxOptions } from "./mux.ts";
import { readDirect } from "./socketReads.ts";
import { TUNNEL_FRAME, TUNNEL_MAX_DATA } from "./tunnel.ts";

/**
 * The tunnel over a raw socket (TUNNEL_PROTOCOL, `Upgrade: keyway-tunnel/2`): every frame of
 * tunnel.ts is sent as `u32 length | frame`. A DATA frame's payload is written in the same
 * gathered write as its header, straight from the sender's buffer (a small one, up to
 * SMALL_FRAME, copied behind its header and written at once), and handed to the stream
 * as it is read, as views into the socket's reads: no mask, no copy into a frame, no
 * re-assembly of a frame split across reads. Writes of one tick go out as one writev.
 *
 * The reader trusts nothing: a length below a frame header or above TUNNEL_SOCKET_MAX_FRAME
 * (a DATA frame above TUNNEL_MAX_DATA) ends the link before anything is held; everything else
 * is the mux's rules.
 */

/** The largest frame taken (as the WebSocket carrier's 2 MiB message limit). */
export const TUNNEL_SOCKET_MAX_FRAME = 2 * 1024 * 1024;
/** Length prefix, type, stream id. */
const HEAD = 9;
/** DATA payloads up to this size are copied behind their header rather than gathered. */
const SMALL_FRAME = 4096;

export interface TunnelSocketOptions extends Omit<TunnelMuxOptions, "link"> {
  /** Bytes read past the upgrade's head: the first of the link. */
  head?: Buffer;
  /** The link is gone: the code said by the closing side (ours or the peer's), 1006 if none. */
  onClose?: (code: number, reason: string) => void;
  /** Every frame taken whole (not DATA), before the mux sees it: for tests. */
  onFrame?: (frame: Buffer) => void;
}

export interface TunnelSocketLink {
  readonly mux: TunnelMux;
  readonly socket: Duplex;
  /** Says why (a close frame), ends the socket, and destroys it if the peer does not follow. */
  close(code: number, reason: string): void;
  terminate(): void;
  /** Sends one frame as it is (a test's hostile bytes). */
  sendFrame(frame: Uint8Array): void;
  readonly closed: boolean;
}

/** A DATA frame's header (`u32 length | u8 type | u32 stream`) at the start of `into`. */
function dataHead(into: Buffer, id: number, payloadLength: number): Buffer {
  into.writeUInt32BE(5 + payloadLength, 0);
  into[4] = TUNNEL_FRAME.data;
  into.writeUInt32BE(id, 5);
  return into;
}

/** dataHead as a latin1 string, one char a byte. */
function dataHeadText(id: number, payloadLength: number): string {
  const length = 5 + payloadLength;
  return String.fromCharCode(
    length >>> 24,
    (length >>> 16) & 255,
    (length >>> 8) & 255,
    length & 255,
    TUNNEL_FRAME.data,
    id >>> 24,
    (id >>> 16) & 255,
    (id >>> 8) & 255,
    id & 255,
  );
}

export function tunnelOverSocket(
  socket: Duplex & { setNoDelay?(noDelay?: boolean): unknown },
  options: TunnelSocketOptions,
): TunnelSocketLink {
  socket.setNoDelay?.(true);
  let closeCode: number | null = null;
  let closeReason = "";
  let ended = false;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  const cork = () => {
    if (corked) return;
    corked = true;
    socket.cork();
    process.nextTick(uncork);
  };
  const writable = () => !socket.destroyed && !socket.writableEnded;

  function writeFrame(frame: Uint8Array, done?: (error?: Error) => void): void {
    if (!writable()) {
      done?.(new Error("tunnel closed"));
      return;
    }
    cork();
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(frame.byteLength, 0);
    socket.write(length);
    socket.write(frame, done && ((error) => done(error ?? undefined)));
  }

  const mux = new TunnelMux({
    ...options,
    link: {
      send: writeFrame,
      sendData(id, data, done) {
        if (!writable()) return done(new Error("tunnel closed"));
        if (data.byteLength <= SMALL_FRAME) {
          // A small payload (an answer, a request head): copied behind its header and written
          // at once, after what the tick gathered. One write, and no gathering to wait for.
          const frame = dataHead(Buffer.allocUnsafe(HEAD + data.byteLength), id, data.byteLength);
          frame.set(data, HEAD);
          if (corked) uncork();
          socket.write(frame, (error) => done(error ?? undefined));
          return;
        }
        cork();
        socket.write(dataHead(Buffer.allocUnsafe(HEAD), id, data.byteLength));
        socket.write(data, (error) => done(error ?? undefined));
      },
      flush() {
        if (corked) uncork();
      },
      sendText(id, text, done) {
        if (!writable()) return done(new Error("tunnel closed"));
        // After what this tick gathered, in one write of its own. The header as latin1 text
        // too (one char a byte): Node writes a short string straight from it, no buffer made.
        if (corked) uncork();
        socket.write(dataHeadText(id, text.length) + text, "latin1", (error) =>
          done(error ?? undefined),
        );
      },
    },
  });

  function close(code: number, reason: string): void {
    if (ended) return;
    ended = true;
    closeCode ??= code;
    closeReason ||= reason;
    mux.close();
    if (writable()) {
      const text = Buffer.from(reason.slice(0, 120));
      const frame = Buffer.allocUnsafe(7 + text.byteLength);
      frame[0] = TUNNEL_FRAME.close;
      frame.writeUInt32BE(0, 1);
      frame.writeUInt16BE(code, 5);
      text.copy(frame, 7);
      writeFrame(frame);
      socket.end();
    }
    // A peer that does not finish the close is not waited for.
    setTimeout(() => socket.destroy(), 2000).unref();
  }

  // ---- Reading ----
  const head = Buffer.alloc(HEAD);
  let headUsed = 0;
  /** The DATA frame being read: its stream and the payload bytes still to come. */
  let dataId = 0;
  let dataLeft = 0;
  /** Any other frame being gathered. */
  let frame: Buffer | null = null;
  let frameUsed = 0;

  function broken(reason: string): void {
    mux.violation(reason);
  }

  /** A whole frame other than DATA: the link's close, or the mux's. */
  function takeFrame(bytes: Buffer): boolean {
    options.onFrame?.(bytes);
    if (bytes[0] === TUNNEL_FRAME.close) {
      if (bytes.byteLength < 7 || bytes.readUInt32BE(1) !== 0) {
        broken("a close frame that does not parse");
        return false;
      }
      closeCode ??= bytes.readUInt16BE(5);
      closeReason ||= bytes
        .subarray(7, 7 + 480)
        .toString("utf8")
        .slice(0, 120);
      ended = true;
      mux.close();
      if (writable()) socket.end();
      setTimeout(() => socket.destroy(), 2000).unref();
      return false;
    }
    return mux.receive(bytes);
  }

  /** A frame's length and type are known (the 9 bytes in `h` at `at`): what comes next. */
  function startFrame(h: Buffer, at: number): number | null {
    const length = h.readUInt32BE(at);
    if (length < 5 || length > TUNNEL_SOCKET_MAX_FRAME) {
      broken(length < 5 ? "a frame shorter than its header" : "a frame above the largest");
      return null;
    }
    if (h[at + 4] === TUNNEL_FRAME.data) {
      if (length - 5 > TUNNEL_MAX_DATA) {
        broken("a data frame above the largest");
        return null;
      }
      dataId = h.readUInt32BE(at + 5);
      dataLeft = length - 5;
      return 0;
    }
    return length;
  }

  function onData(chunk: Buffer): void {
    if (ended || mux.closed) return;
    let at = 0;
    const n = chunk.byteLength;
    while (at < n) {
      if (dataLeft > 0) {
        const take = Math.min(dataLeft, n - at);
        dataLeft -= take;
        if (!mux.receiveData(dataId, chunk.subarray(at, at + take))) return;
        at += take;
        continue;
      }
      if (frame) {
        const take = Math.min(frame.byteLength - frameUsed, n - at);
        chunk.copy(frame, frameUsed, at, at + take);
        frameUsed += take;
        at += take;
        if (frameUsed === frame.byteLength) {
          const whole = frame;
          frame = null;
          if (!takeFrame(whole)) return;
        }
        continue;
      }
      let length: number | null;
      if (headUsed === 0 && n - at >= HEAD) {
        // The usual case: the whole header in this read.
        length = startFrame(chunk, at);
        if (length === null) return;
        if (length === 0) {
          at += HEAD;
          if (dataLeft === 0 && !mux.receiveData(dataId, chunk.subarray(at, at))) return;
          continue;
        }
        if (n - at - 4 >= length) {
          // A whole control frame in this read: taken in place.
          const whole = chunk.subarray(at + 4, at + 4 + length);
          at += 4 + length;
          if (!takeFrame(whole)) return;
          continue;
        }
        frame = Buffer.allocUnsafe(length);
        frameUsed = 0;
        at += 4;
        continue;
      }
      const take = Math.min(HEAD - headUsed, n - at);
      chunk.copy(head, headUsed, at, at + take);
      headUsed += take;
      at += take;
      // A length below a frame's header is refused at once: no more bytes may ever come.
      if (headUsed >= 4 && head.readUInt32BE(0) < 5) {
        broken("a frame shorter than its header");
        return;
      }
      if (headUsed < HEAD) return;
      headUsed = 0;
      length = startFrame(head, 0);
      if (length === null) return;
      if (length === 0) {
        if (dataLeft === 0 && !mux.receiveData(dataId, head.subarray(0, 0))) return;
        continue;
      }
      frame = Buffer.allocUnsafe(length);
      head.copy(frame, 0, 4, HEAD);
      frameUsed = 5;
      if (frameUsed === length) {
        const whole = frame;
        frame = null;
        if (!takeFrame(whole)) return;
      }
    }
  }

  // Straight from the socket's reads, each in a buffer of its own: payloads go on as views.
  if (!readDirect(socket, onData, true)) socket.on("data", onData);
  socket.on("error", () => {});
  socket.on("end", () => {
    // The peer is done: a link is never half-open.
    if (writable()) socket.end();
  });
  socket.on("close", () => {
    ended = true;
    mux.close();
    options.onClose?.(closeCode ?? 1006, closeReason);
  });
  // After the caller holds the link: a fault in these bytes closes it through the caller.
  const early = options.head;
  if (early?.byteLength) process.nextTick(() => onData(early));

  return {
    mux,
    socket,
    close,
    terminate: () => {
      ended = true;
      socket.destroy();
    },
    sendFrame: (bytes) => writeFrame(bytes),
    get closed() {
      return ended || socket.destroyed;
    },
  };
}
