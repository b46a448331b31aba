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

/** Where frames go: a WebSocket, in practice. */
export interface TunnelLink {
  /** Sends one binary message; `done` once it has left the process (or failed). */
  send(frame: Uint8Array, done: (error?: Error) => void): void;
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
  /** The accepting side: a stream the peer asks for. Call accept() or refuse() on it. */
  onOpen?: (stream: TunnelStream, target: TunnelTarget | null) => void;
  onHello?: (hello: AgentHello) => void;
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

  /** @internal */
  sendFrame(bytes: Uint8Array): void {
    if (this.closedWith) return;
    const size = bytes.byteLength;
    this.pending += size;
    this.link.send(bytes, () => {
      this.pending -= size;
      if (this.pending <= this.highWater / 2 && this.drainWaiters.length) {
        for (const wake of this.drainWaiters.splice(0)) wake();
      }
    });
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
  forget(id: number, window: number): void {
    if (this.streams.delete(id)) this.windows -= window;
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
      // A stream failing is ordinary (a device going away): before it is handed out that is
      // this promise's rejection, afterwards its consumer's business, never an uncaught error.
      stream.on("error", () => {});
    });
  }

  /**
   * Takes one frame from the link. False when it does not parse: the link should be closed
   * (TUNNEL_CLOSE.protocol).
   */
  receive(bytes: Uint8Array): boolean {
    this.lastHeard = Date.now();
    const frame = decodeFrame(bytes);
    if (!frame) return false;
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
    }
    return true;
  }

  private onOpenFrame(id: number, window: number, host: string, port: number) {
    const refuse = (code: TunnelResetCode, reason: string) =>
      this.send({ type: "reset", id, code, reason });
    if (!this.options.onOpen) return refuse(TUNNEL_RESET.refused, "this side opens no streams");
    if (this.streams.has(id)) return refuse(TUNNEL_RESET.protocol, "stream id in use");
    if (this.streams.size >= this.maxStreams) return refuse(TUNNEL_RESET.tooMany, "too many");
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
  private opened: boolean;
  /** Our receive window: starts at the mux's, doubles while the consumer outruns the tunnel. */
  private window: number;
  private received = 0;
  private acknowledged = 0;
  private pendingWrite: PendingWrite | null = null;
  private endSent = false;
  private endReceived = false;
  private resetDone = false;
  private idleMs = 0;
  private idleTimer: NodeJS.Timeout | undefined;

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
    this.opened = false;
    this.window = mux.window;
    mux.reserveWindow(this.window, false);
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

  /** Accepting side: the stream will not be opened. */
  refuse(code: TunnelResetCode, reason: string): void {
    if (this.resetDone) return;
    this.resetDone = true;
    this.mux.send({ type: "reset", id: this.id, code, reason });
    this.destroy(new TunnelError(code, reason));
  }

  /** @internal */
  onOpened(window: number): void {
    if (this.incoming || this.opened) return;
    this.opened = true;
    this.sendCredit += window;
    this.emit("tunnel-opened");
    this.continueWrite();
  }

  /** @internal */
  onData(data: Uint8Array): void {
    if (this.destroyed || this.endReceived) return;
    if (data.byteLength > this.window - this.unconsumed) {
      this.refuse(TUNNEL_RESET.protocol, "data beyond the window");
      return;
    }
    this.received += data.byteLength;
    this.bytesIn += data.byteLength;
    const held = this.unconsumed;
    if (held > this.mux.peakStreamBuffered) this.mux.peakStreamBuffered = held;
    this.touch();
    // The credit bounds what can arrive, so push()'s "buffer full" answer needs no action.
    this.push(data);
  }

  /** @internal */
  onWindow(increment: number): void {
    this.sendCredit += increment;
    this.continueWrite();
  }

  /** @internal */
  onEnd(): void {
    if (this.endReceived) return;
    this.endReceived = true;
    this.push(null);
  }

  /** @internal */
  onReset(code: number, reason: string): void {
    this.resetDone = true;
    this.destroy(new TunnelError(code, reason || "reset by peer", true));
  }

  override _read(): void {
    // Credit goes back in batches as the consumer takes bytes: at least a quarter window, so
    // a busy stream costs one small frame per quarter window.
    const consumed = this.received - this.readableLength;
    const owed = consumed - this.acknowledged;
    if (owed <= 0 || owed < this.window / 4) return;
    let increment = owed;
    // The consumer has taken everything and waits: the window, not the reader, limits this
    // stream (the round trip to the peer is long next to the data rate). Grow it, within the
    // link's budget. A slow reader never empties its buffer here, so its window stays small.
    if (this.readableLength === 0 && this.window < this.mux.maxWindow) {
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
      this.mux.sendFrame(encodeData(this.id, p.chunk.subarray(p.offset, p.offset + size)));
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
    this.mux.forget(this.id, this.window);
    callback(error);
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
