import type { TunnelStream } from "@keyway/protocol/mux";
import type { VisitKind } from "@keyway/shared";
import type { Actor } from "../access/service.ts";

/** A visit in use on this node: its streams, its HTTP connection pool, its counters. */
export interface VisitSession {
  readonly id: string;
  readonly deviceId: number;
  readonly actor: Actor;
  /** The target of the device UI ("host:port"); of a screen visit, the agent's VNC server. */
  readonly target: string;
  readonly kind: VisitKind;
  /**
   * The visitor's member level is read-only (`!ConnectRight.write`), re-read at every rights
   * check: the relay drops screen input and refuses changing HTTP requests while it holds.
   */
  viewOnly: boolean;
  /** Told when `viewOnly` changes (a device WebSocket a read-only visitor may not keep). */
  readonly levelWatchers: Set<(viewOnly: boolean) => void>;
  cookieHash: string | null;
  ended: boolean;
  readonly streams: Set<TunnelStream>;
  /** Sockets handed over whole (WebSocket upgrades, TCP forwards), cut with the visit. */
  readonly sockets: Set<{ destroy(error?: Error): void }>;
  agent: StreamPool | null;
  /**
   * Path mode's cookie jar: the device's cookies kept here, never in the browser (its page
   * runs sandboxed, in an opaque origin that sends and stores no cookies).
   */
  readonly jar: Map<string, string>;
  targets: Set<string>;
  targetsDirty: boolean;
  /** Bytes of the row when loaded plus those of closed streams. */
  bytesIn: number;
  bytesOut: number;
  flushedIn: number;
  flushedOut: number;
  /** Last traffic, by the clock (idle ending) and by the process timer (re-checks). */
  lastActive: Date;
  lastActiveMs: number;
  /** When the last rights check passed (process ms), and the right's own end. */
  checkedAtMs: number;
  rightEndsAt: Date | null;
  checking: Promise<void> | null;
}

/**
 * The visit's keep-alive connections to the device UI, each one a tunnel stream: a request
 * takes an idle stream whose last answer ended cleanly, or opens a new one (a new stream goes
 * through the rights check), at most 256 at once; idle ones are closed after 30 s.
 */
export class StreamPool {
  private readonly idle: TunnelStream[] = [];
  /** The listener of each idle stream (taken off when it serves again). */
  private readonly onIdleClose = new Map<TunnelStream, () => void>();
  private leased = 0;
  private readonly waiting: Array<() => void> = [];
  private destroyed = false;

  constructor(
    private readonly openStream: () => Promise<TunnelStream>,
    private readonly max = 256,
    private readonly maxIdle = 32,
    private readonly idleMs = 30_000,
  ) {}

  /** A stream for one exchange; give it back with release(). */
  async lease(): Promise<TunnelStream> {
    while (this.leased >= this.max && !this.destroyed)
      await new Promise<void>((wake) => this.waiting.push(wake));
    this.leased += 1;
    try {
      for (let stream = this.idle.pop(); stream; stream = this.idle.pop()) {
        // Closed meanwhile, or sent bytes nobody asked for: not a stream to trust with a request.
        this.forgetIdle(stream);
        if (stream.destroyed || stream.readableEnded || stream.writableEnded) continue;
        return stream;
      }
      const stream = await this.openStream();
      // A device closing its side ends the connection, as a TCP socket without half-open
      // would: a pooled stream must not wait half-closed for a request that cannot succeed.
      stream.once("end", () => {
        if (!stream.writableEnded) stream.end();
      });
      return stream;
    } catch (error) {
      this.done();
      throw error;
    }
  }

  /** The exchange is over: `reusable` streams wait for the next one, others are closed. */
  release(stream: TunnelStream, reusable: boolean): void {
    this.done();
    if (!reusable || this.destroyed || stream.destroyed || this.idle.length >= this.maxIdle) {
      if (!stream.destroyed) stream.destroy();
      return;
    }
    this.idle.push(stream);
    // While idle: closed, ended or sent bytes nobody asked for, the stream goes.
    const listener = () => this.drop(stream);
    this.onIdleClose.set(stream, listener);
    stream.setTimeout(this.idleMs, listener);
    stream.once("close", listener);
    stream.once("end", listener);
    stream.once("data", listener);
    stream.resume();
  }

  private forgetIdle(stream: TunnelStream): void {
    const listener = this.onIdleClose.get(stream);
    if (listener) {
      stream.off("close", listener);
      stream.off("end", listener);
      stream.off("data", listener);
      stream.setTimeout(0, listener);
    }
    this.onIdleClose.delete(stream);
  }

  private drop(stream: TunnelStream): void {
    this.forgetIdle(stream);
    const at = this.idle.indexOf(stream);
    if (at >= 0) this.idle.splice(at, 1);
    if (!stream.destroyed) stream.destroy();
  }

  private done(): void {
    this.leased -= 1;
    this.waiting.shift()?.();
  }

  /** The visit ended or its device went away: idle streams close, leased ones are not kept. */
  destroy(): void {
    this.destroyed = true;
    for (const stream of this.idle.splice(0)) stream.destroy();
    this.onIdleClose.clear();
    for (const wake of this.waiting.splice(0)) wake();
  }
}
