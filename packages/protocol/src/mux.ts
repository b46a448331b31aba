import { Duplex } from "node:stream";
import {
  type AgentHello,
  decodeFrame,
  encodeFrame,
  TUNNEL_FRAME,
  TUNNEL_LINK_BUDGET,
  TUNNEL_MAX_DATA,
  TUNNEL_MAX_STREAMS,
  TUNNEL_MAX_WINDOW,
  TUNNEL_RESET,
  TUNNEL_WINDOW,
  type TunnelControl,
  type TunnelFrame,
  type TunnelResetCode,
  type TunnelTarget,
} from "./tunnel.ts";

/** A DATA frame without zero-filling its buffer first (the hot path). */
function encodeData(id: number, data: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(5 + data.byteLength);
  bytes[0] = TUNNEL_FRAME.data;
  bytes.writeUInt32BE(id, 1);
  bytes.set(data, 5);
  return bytes;
}

/**
 * The Node side of the tunnel protocol (tunnel.ts): streams as Duplexes over one link, with
 * per-stream credit windows. Used by the server (which opens streams) and the agent (which
 * accepts them). Node-only, hence its own entry point `@keyway/protocol/mux`.
 */

/** Payloads below this size are gathered into blocks while a stream's consumer is behind. */
const SMALL = 4096;
const BLOCK = 16 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * The bytes of `data` in a buffer of their own when `data` is a small view into a larger one
 * (a WebSocket message is a slice of the socket's read): held on to, a 1-byte view would keep
 * a whole read alive.
 */
function own(data: Uint8Array): Buffer {
  if (data.buffer.byteLength <= 2 * data.byteLength)
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const copy = Buffer.allocUnsafeSlow(data.byteLength);
  copy.set(data);
  return copy;
}

/** Where frames go: a WebSocket, in practice. */
export interface TunnelLink {
  /** Sends one binary message; `done` once it has left the process (or failed). */
  send(frame: Uint8Array, done: (error?: Error) => void): void;
  /**
   * Sends a DATA frame of `data` without first copying it into a frame of its own (a
   * socket carrier writes a header and the payload in one gathered write). Absent: the
   * frame is built and sent with send().
   */
  sendData?(id: number, data: Uint8Array, done: (error?: Error) => void): void;
  /** Writes out now what it gathers for the end of the tick (absent: nothing is held). */
  flush?(): void;
  /**
   * Sends a DATA frame of a latin1 text at once, built in one piece with its header (one
   * write; what the tick gathered goes first). Absent: sendData, then flush.
   */
  sendText?(id: number, text: string, done: (error?: Error) => void): void;
}

export class TunnelError extends Error {
  constructor(
    readonly code: TunnelResetCode | number,
    message: string,
    /** Said by the peer (a reset frame) rather than decided here. */
    readonly remote = false,
  ) {
    super(message);
    this.name = "TunnelError";
  }
}

export interface TunnelMuxOptions {
  link: TunnelLink;
  /** Our initial receive window per stream (announced to the peer in open/opened). */
  window?: number;
  /** The most a stream's receive window grows to while its consumer keeps up. */
  maxWindow?: number;
  /** The most all streams' receive windows may add up to. */
  linkBudget?: number;
  maxStreams?: number;
  /** Bytes handed to the link but not yet sent, above which writers wait. */
  linkHighWater?: number;
  /**
   * Bytes of frames other than DATA (replies, credit, resets) handed to the link but not yet
   * sent, above which the peer counts as not reading: its frames could otherwise make us
   * queue replies without end.
   */
  maxControlPending?: number;
  /**
   * The peer broke the protocol at the link level (a frame that does not parse, a frame only
   * this side may send, replies left unread): every stream has ended; drop the link.
   */
  onViolation?: (reason: string) => void;
  /** The accepting side: a stream the peer asks for. Call accept() or refuse() on it. */
  onOpen?: (stream: TunnelStream, target: TunnelTarget | null) => void;
  onHello?: (hello: AgentHello) => void;
  /** A control message (on-site consent, visits ended on site): TUNNEL_FRAME.control. */
  onControl?: (message: TunnelControl) => void;
  /** A pong to our ping, with the round trip in milliseconds. */
  onPong?: (rttMs: number) => void;
}

export interface TunnelMuxStats {
  streams: number;
  /** Bytes received and not yet taken by the streams' consumers, summed over streams. */
  buffered: number;
  /** The most any one stream has held unconsumed since the link began. */
  peakStreamBuffered: number;
  /** Bytes handed to the link and not yet written out. */
  linkPending: number;
}

export class TunnelMux {
  readonly window: number;
  readonly maxWindow: number;
  private readonly linkBudget: number;
  /** The receive windows of all streams, summed. */
  private windows = 0;
  private readonly link: TunnelLink;
  private readonly maxStreams: number;
  private readonly highWater: number;
  private readonly streams = new Map<number, TunnelStream>();
  private nextId = 1;
  private pending = 0;
  private controlPending = 0;
  private readonly maxControlPending: number;
  private drainWaiters: Array<() => void> = [];
  private closedWith: Error | null = null;
  /** When the peer was last heard from (ms since epoch). */
  lastHeard = Date.now();
  peakStreamBuffered = 0;

  constructor(private readonly options: TunnelMuxOptions) {
    this.link = options.link;
    this.window = options.window ?? TUNNEL_WINDOW;
    this.maxWindow = Math.max(this.window, options.maxWindow ?? TUNNEL_MAX_WINDOW);
    this.linkBudget = options.linkBudget ?? TUNNEL_LINK_BUDGET;
    this.maxStreams = options.maxStreams ?? TUNNEL_MAX_STREAMS;
    this.highWater = options.linkHighWater ?? 1024 * 1024;
    this.maxControlPending = options.maxControlPending ?? 1024 * 1024;
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  get size(): number {
    return this.streams.size;
  }

  stats(): TunnelMuxStats {
    let buffered = 0;
    for (const stream of this.streams.values()) buffered += stream.unconsumed;
    return {
      streams: this.streams.size,
      buffered,
      peakStreamBuffered: this.peakStreamBuffered,
      linkPending: this.pending,
    };
  }

  /**
   * @internal DATA frames are bounded by the peer's credit; anything else (`control`) counts
   * against maxControlPending.
   */
  sendFrame(bytes: Uint8Array, control = true): void {
    if (this.closedWith) return;
    const size = bytes.byteLength;
    if (control) {
      if (this.controlPending + size > this.maxControlPending) {
        // Not from inside whatever stream method sent this frame: close() destroys streams.
        queueMicrotask(() => this.violation("the peer does not read what it is sent"));
        return;
      }
      this.controlPending += size;
    }
    this.pending += size;
    this.link.send(bytes, () => {
      if (control) this.controlPending -= size;
      this.sent(size);
    });
  }

  /** A frame of `size` bytes has left: the link's writers wake once half its room is free. */
  private sent(size: number): void {
    this.pending -= size;
    if (this.pending <= this.highWater / 2 && this.drainWaiters.length) {
      for (const wake of this.drainWaiters.splice(0)) wake();
    }
  }

  /** @internal A DATA frame: bounded by the peer's credit, so not counted as control. */
  sendData(id: number, data: Uint8Array): void {
    if (this.closedWith) return;
    const size = data.byteLength + 5;
    this.pending += size;
    const done = () => this.sent(size);
    if (this.link.sendData) this.link.sendData(id, data, done);
    else this.link.send(encodeData(id, data), done);
  }

  /** @internal A DATA frame of a latin1 text, sent at once. */
  sendText(id: number, text: string): void {
    if (this.closedWith) return;
    if (!this.link.sendText) {
      this.sendData(id, Buffer.from(text, "latin1"));
      this.flush();
      return;
    }
    const size = text.length + 5;
    this.pending += size;
    this.link.sendText(id, text, () => this.sent(size));
  }

  /** @internal Writes out now what the link holds for the end of the tick. */
  flush(): void {
    this.link.flush?.();
  }

  /** @internal Whether writers should wait for the link to drain. */
  congested(): boolean {
    return this.pending > this.highWater && !this.closedWith;
  }

  /** @internal */
  whenDrained(wake: () => void): void {
    this.drainWaiters.push(wake);
  }

  /** @internal A stream's receive window exists (or grows) within the link's budget. */
  reserveWindow(bytes: number, optional: boolean): boolean {
    if (optional && this.windows + bytes > this.linkBudget) return false;
    this.windows += bytes;
    return true;
  }

  /** @internal */
  forget(stream: TunnelStream, window: number): void {
    // Only this stream's own entry: a refused duplicate open must not drop the stream it hit.
    if (this.streams.get(stream.id) === stream && this.streams.delete(stream.id))
      this.windows -= window;
  }

  send(frame: TunnelFrame): void {
    this.sendFrame(encodeFrame(frame));
  }

  ping(): void {
    const data = new Uint8Array(8);
    new DataView(data.buffer).setFloat64(0, performance.now());
    this.send({ type: "ping", data });
  }

  /**
   * Opens a stream to a target on the peer's side (null: the peer's default) and resolves
   * once the peer has connected it.
   */
  open(target: TunnelTarget | null, timeoutMs = 15_000): Promise<TunnelStream> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (this.streams.size >= this.maxStreams)
      return Promise.reject(new TunnelError(TUNNEL_RESET.tooMany, "too many streams"));
    let id = this.nextId;
    while (this.streams.has(id)) id = id >= 0xffff_ffff ? 1 : id + 1;
    this.nextId = id >= 0xffff_ffff ? 1 : id + 1;
    const stream = new TunnelStream(this, id, 0, false);
    this.streams.set(id, stream);
    this.send({
      type: "open",
      id,
      window: this.window,
      host: target?.host ?? "",
      port: target?.port ?? 0,
    });
    return new Promise<TunnelStream>((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.destroy(new TunnelError(TUNNEL_RESET.timeout, "the device did not answer in time"));
      }, timeoutMs);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        stream.off("tunnel-opened", onOpened);
        stream.off("close", onClose);
        if (error) reject(error);
        else resolve(stream);
      };
      const onOpened = () => settle();
      const onClose = () =>
        settle(stream.closeError ?? new TunnelError(TUNNEL_RESET.cancelled, "stream closed"));
      stream.once("tunnel-opened", onOpened);
      stream.once("close", onClose);
    });
  }

  /**
   * Takes one frame from the link. Whatever the peer sends, this neither throws nor keeps more
   * than the streams' windows: a frame breaking a stream's rules resets that stream, one
   * breaking the link's rules ends the mux and calls onViolation. False once the link is to
   * be dropped (TUNNEL_CLOSE.protocol); frames after that are ignored.
   */
  receive(bytes: Uint8Array): boolean {
    if (this.closedWith) return false;
    this.lastHeard = Date.now();
    try {
      const frame = decodeFrame(bytes);
      if (!frame) this.violation("a frame that does not parse");
      else this.dispatch(frame);
    } catch (error) {
      // A bug of ours on some frame: the link goes, the process stays.
      this.violation(`frame not handled: ${error instanceof Error ? error.message : error}`);
    }
    return !this.closedWith;
  }

  /**
   * Takes DATA bytes for stream `id` that a carrier has already framed (the socket carrier
   * hands over a frame's payload as it arrives, in as many pieces as the reads cut it into;
   * the window counts bytes, so pieces need no joining). Same contract as receive().
   */
  receiveData(id: number, data: Uint8Array): boolean {
    if (this.closedWith) return false;
    this.lastHeard = Date.now();
    try {
      this.streams.get(id)?.onData(data);
    } catch (error) {
      this.violation(`frame not handled: ${error instanceof Error ? error.message : error}`);
    }
    return !this.closedWith;
  }

  /**
   * The link broke the protocol (or cannot carry it any more): every stream ends, nothing
   * more is sent or taken, and the owner is told to drop the link.
   */
  violation(reason: string): void {
    if (this.closedWith) return;
    this.close(new TunnelError(TUNNEL_RESET.protocol, reason));
    this.options.onViolation?.(reason);
  }

  private dispatch(frame: TunnelFrame): void {
    switch (frame.type) {
      case "data":
        this.streams.get(frame.id)?.onData(frame.data);
        break;
      case "window":
        this.streams.get(frame.id)?.onWindow(frame.increment);
        break;
      case "end":
        this.streams.get(frame.id)?.onEnd();
        break;
      case "reset":
        this.streams.get(frame.id)?.onReset(frame.code, frame.reason);
        break;
      case "opened":
        this.streams.get(frame.id)?.onOpened(frame.window);
        break;
      case "open":
        this.onOpenFrame(frame.id, frame.window, frame.host, frame.port);
        break;
      case "ping":
        this.send({ type: "pong", data: frame.data });
        break;
      case "pong":
        if (frame.data.byteLength === 8) {
          const view = new DataView(frame.data.buffer, frame.data.byteOffset, 8);
          this.options.onPong?.(performance.now() - view.getFloat64(0));
        }
        break;
      case "hello":
        this.options.onHello?.(frame.hello);
        break;
      case "control":
        this.options.onControl?.(frame.message);
        break;
    }
  }

  private onOpenFrame(id: number, window: number, host: string, port: number) {
    // Only the server opens streams: the other side asking is not a peer that speaks this.
    if (!this.options.onOpen) {
      this.violation("a stream opened towards the opener");
      return;
    }
    // The id of a live stream: both sides can no longer agree on it, so it goes both ways.
    const existing = this.streams.get(id);
    if (existing) {
      existing.refuse(TUNNEL_RESET.protocol, "stream id in use");
      return;
    }
    if (this.streams.size >= this.maxStreams) {
      this.send({ type: "reset", id, code: TUNNEL_RESET.tooMany, reason: "too many" });
      return;
    }
    const stream = new TunnelStream(this, id, window, true);
    this.streams.set(id, stream);
    this.options.onOpen(stream, host || port ? { host, port } : null);
  }

  /** The link is gone: every stream ends with `error`. */
  close(error: Error = new TunnelError(TUNNEL_RESET.goingAway, "tunnel closed")): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const stream of [...this.streams.values()]) stream.destroy(error);
    this.streams.clear();
    for (const wake of this.drainWaiters.splice(0)) wake();
  }
}

interface PendingWrite {
  chunk: Buffer;
  offset: number;
  callback: (error?: Error | null) => void;
}

/**
 * One stream of a tunnel: a Duplex with half-close (end() sends `end`, the peer's `end`
 * ends the readable side) and flow control by credit. It also offers the few net.Socket
 * methods Node's HTTP client calls (setTimeout, setNoDelay, setKeepAlive, ref, unref), so it
 * can serve as an HTTP connection.
 */
export class TunnelStream extends Duplex {
  /** Payload bytes received from / sent to the peer. */
  bytesIn = 0;
  bytesOut = 0;
  readonly connecting = false;
  /** Why the stream closed, when it did not close cleanly. */
  closeError: Error | null = null;
  private sendCredit: number;
  /**
   * The most credit the peer may give: its window never grows past the protocol's largest
   * (or what it announced first, when that is larger).
   */
  private creditLimit: number;
  private opened: boolean;
  /** Our receive window: starts at the mux's, doubles while the consumer outruns the tunnel. */
  private window: number;
  private received = 0;
  private acknowledged = 0;
  private pendingWrite: PendingWrite | null = null;
  /** Small payloads gathered while the consumer is behind (bytes 0..blockUsed). */
  private block: Buffer | null = null;
  private blockUsed = 0;
  private endSent = false;
  private endReceived = false;
  private resetDone = false;
  private idleMs = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The one reader of the stream's bytes (setReader), and the 'data' listener serving it. */
  private reader: ((chunk: Buffer) => void) | null = null;
  private readerListener: ((chunk: Buffer) => void) | null = null;

  /** @internal */
  constructor(
    private readonly mux: TunnelMux,
    readonly id: number,
    peerWindow: number,
    /** Created by the peer's `open`: waits for accept() or refuse(). */
    readonly incoming: boolean,
  ) {
    super({
      allowHalfOpen: true,
      readableHighWaterMark: 64 * 1024,
      writableHighWaterMark: 64 * 1024,
    });
    this.sendCredit = peerWindow;
    this.creditLimit = Math.max(peerWindow, TUNNEL_MAX_WINDOW);
    this.opened = false;
    this.window = mux.window;
    mux.reserveWindow(this.window, false);
    // A stream failing is ordinary (a device going away, a target refused, a peer breaking
    // the rules): its owner learns it from `close` and closeError, never as an uncaught error.
    this.on("error", () => {});
  }

  /** Bytes received that the consumer has not taken yet. */
  get unconsumed(): number {
    return this.received - this.acknowledged;
  }

  /** Accepting side: the target is connected; data may flow. */
  accept(): void {
    if (!this.incoming || this.opened || this.destroyed) return;
    this.opened = true;
    this.mux.send({ type: "opened", id: this.id, window: this.mux.window });
    this.continueWrite();
  }

  /** Accepting side: the stream will not be opened. Either side: the peer broke its rules. */
  refuse(code: TunnelResetCode, reason: string): void {
    if (this.resetDone) return;
    this.resetDone = true;
    this.mux.send({ type: "reset", id: this.id, code, reason });
    this.destroy(new TunnelError(code, reason));
  }

  /** @internal */
  onOpened(window: number): void {
    if (this.incoming || this.opened || this.destroyed) return;
    this.opened = true;
    this.creditLimit = Math.max(window, TUNNEL_MAX_WINDOW);
    if (!this.credit(window)) return;
    this.emit("tunnel-opened");
    this.continueWrite();
  }

  /** @internal */
  onData(data: Uint8Array): void {
    if (this.destroyed || this.endReceived) return;
    // The peer has no credit before the stream is open: nothing it sends then is data.
    const fault = !this.opened
      ? "data before the stream opened"
      : data.byteLength > this.window - this.unconsumed
        ? "data beyond the window"
        : null;
    if (fault) {
      this.refuse(TUNNEL_RESET.protocol, fault);
      return;
    }
    const size = data.byteLength;
    if (size === 0) return;
    this.received += size;
    this.bytesIn += size;
    const held = this.unconsumed;
    if (held > this.mux.peakStreamBuffered) this.mux.peakStreamBuffered = held;
    this.touch();
    // The credit bounds the bytes that can arrive, so push()'s "buffer full" answer needs no
    // action. The number of chunks needs bounding too (each costs far more than a byte): a
    // peer sending 1-byte frames to a consumer that does not read would hold 250,000 of them
    // in one window. While the consumer is behind, small payloads are copied into blocks.
    if (this.readableLength === 0 && this.blockUsed === 0) {
      // Nothing held: the reader takes the bytes straight from the tunnel's read, as the
      // 'data' event a push would cause hands them over, without the stream's machinery.
      if (this.reader && this.readableFlowing === true && this.listenerCount("data") === 1) {
        this.reader(own(data));
        // A reader that paused (its own writer is full) takes credit once it resumes.
        if (this.readableFlowing) this.giveCredit();
        return;
      }
      this.push(own(data));
      return;
    }
    if (size >= SMALL) {
      this.flushBlock();
      this.push(own(data));
      return;
    }
    if (this.block && this.blockUsed + size > this.block.byteLength) this.flushBlock();
    this.block ??= Buffer.allocUnsafeSlow(BLOCK);
    this.block.set(data, this.blockUsed);
    this.blockUsed += size;
  }

  /** Hands the gathered small payloads to the readable side. */
  private flushBlock(): void {
    const block = this.block;
    const used = this.blockUsed;
    if (!block || used === 0) return;
    this.blockUsed = 0;
    if (used >= block.byteLength / 2) {
      this.block = null;
      this.push(block.subarray(0, used));
    } else {
      // Mostly empty: its bytes go in a buffer of their own and the block serves again.
      const copy = Buffer.allocUnsafeSlow(used);
      block.copy(copy, 0, 0, used);
      this.push(copy);
    }
  }

  /** @internal */
  onWindow(increment: number): void {
    if (this.destroyed || !this.credit(increment)) return;
    this.continueWrite();
  }

  /** Takes credit from the peer; false (and the stream reset) when it is more than it may give. */
  private credit(bytes: number): boolean {
    if (this.sendCredit + bytes > this.creditLimit) {
      this.refuse(TUNNEL_RESET.protocol, "credit beyond the window");
      return false;
    }
    this.sendCredit += bytes;
    return true;
  }

  /** @internal */
  onEnd(): void {
    if (this.endReceived || this.destroyed) return;
    this.endReceived = true;
    this.flushBlock();
    this.push(null);
  }

  /** @internal */
  onReset(code: number, reason: string): void {
    this.resetDone = true;
    this.destroy(new TunnelError(code, reason || "reset by peer", true));
  }

  override _read(): void {
    if (this.blockUsed) {
      // The consumer has caught up with what was pushed: the gathered bytes are next.
      if (this.readableLength === 0) this.flushBlock();
      // Not yet. An empty push says "nothing now", so that the stream asks again once the
      // consumer has taken the rest (it does not ask twice without a push in between).
      else this.push(EMPTY);
    }
    this.giveCredit();
  }

  /** Credit for what the consumer has taken, when it is worth a frame. */
  private giveCredit(): void {
    // Credit goes back in batches as the consumer takes bytes: at least a quarter window, so
    // a busy stream costs one small frame per quarter window.
    const consumed = this.received - this.readableLength - this.blockUsed;
    const owed = consumed - this.acknowledged;
    if (owed <= 0 || owed < this.window / 4) return;
    let increment = owed;
    // The consumer has taken everything and waits: the window, not the reader, limits this
    // stream (the round trip to the peer is long next to the data rate). Grow it, within the
    // link's budget. A slow reader never empties its buffer here, so its window stays small.
    if (this.readableLength === 0 && this.blockUsed === 0 && this.window < this.mux.maxWindow) {
      const growth = Math.min(this.window, this.mux.maxWindow - this.window);
      if (this.mux.reserveWindow(growth, true)) {
        this.window += growth;
        increment += growth;
      }
    }
    this.acknowledged = consumed;
    this.mux.send({ type: "window", id: this.id, increment });
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.pendingWrite = { chunk, offset: 0, callback };
    this.continueWrite();
  }

  private continueWrite(): void {
    const p = this.pendingWrite;
    if (!p || !this.opened || this.destroyed) return;
    while (p.offset < p.chunk.byteLength && this.sendCredit > 0) {
      const size = Math.min(TUNNEL_MAX_DATA, this.sendCredit, p.chunk.byteLength - p.offset);
      this.mux.sendData(this.id, p.chunk.subarray(p.offset, p.offset + size));
      p.offset += size;
      this.sendCredit -= size;
      this.bytesOut += size;
    }
    if (p.offset < p.chunk.byteLength) return; // the rest waits for a window frame
    this.pendingWrite = null;
    this.touch();
    if (this.mux.congested()) this.mux.whenDrained(() => p.callback());
    else p.callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.destroyed && !this.resetDone) {
      this.endSent = true;
      this.mux.send({ type: "end", id: this.id });
    }
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.idleTimer);
    this.closeError = error;
    const clean = this.endSent && this.endReceived;
    if (!clean && !this.resetDone && !this.mux.closed) {
      this.resetDone = true;
      const code = error instanceof TunnelError && !error.remote ? error.code : undefined;
      this.mux.send({
        type: "reset",
        id: this.id,
        code: code ?? TUNNEL_RESET.cancelled,
        reason: error?.message ?? "cancelled",
      });
    }
    this.pendingWrite = null;
    this.block = null;
    this.blockUsed = 0;
    this.mux.forget(this, this.window);
    callback(error);
  }

  /**
   * Sends what was written in this tick now rather than at its end (the link gathers a
   * tick's writes): a request with nothing after it is on its way while its writer finishes.
   */
  flush(): void {
    this.mux.flush();
  }

  /**
   * Sends a small latin1 text (a request head with nothing after it) in one frame at once,
   * when nothing written waits before it and the peer's credit takes it all; false (nothing
   * sent) otherwise, for write() to queue it.
   */
  sendNow(text: string): boolean {
    if (
      !this.opened ||
      this.destroyed ||
      this.writableEnded ||
      this.pendingWrite ||
      this.writableLength > 0 ||
      text.length > TUNNEL_MAX_DATA ||
      text.length > this.sendCredit ||
      this.mux.congested()
    )
      return false;
    this.mux.sendText(this.id, text);
    this.sendCredit -= text.length;
    this.bytesOut += text.length;
    this.touch();
    return true;
  }

  /**
   * Makes `reader` the one reader of the stream's bytes, in place of the last: it gets every
   * chunk as a 'data' listener would, pause() and resume() included. While the stream flows
   * with nothing held and no other 'data' listener, a chunk goes to it straight from the
   * tunnel's read, without a push and an event.
   */
  setReader(reader: (chunk: Buffer) => void): void {
    this.reader = reader;
    if (!this.readerListener) {
      this.readerListener = (chunk) => this.reader?.(chunk);
      this.on("data", this.readerListener);
    }
  }

  // ---- What Node's HTTP client expects of a socket ----

  /** As net.Socket's: 0 turns the idle timer off and takes the callback away again. */
  setTimeout(ms: number, onTimeout?: () => void): this {
    this.idleMs = ms;
    if (onTimeout) {
      if (ms === 0) this.removeListener("timeout", onTimeout);
      else this.once("timeout", onTimeout);
    }
    this.touch();
    return this;
  }

  get timeout(): number {
    return this.idleMs;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  private touch(): void {
    if (!this.idleMs) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      return;
    }
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => this.emit("timeout"), this.idleMs);
      this.idleTimer.unref();
    }
  }
}
