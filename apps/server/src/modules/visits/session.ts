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
  /**
   * The cookie (or path key) byCookie last admitted, so that the next request of the visit
   * is matched in constant time without hashing it again; cleared when the hash changes.
   */
  cookieKnown: string | null;
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
  /**
   * Last traffic, by the clock in ms (idle ending, the activity's times) and by the process
   * timer (re-checks): numbers, since every relayed request sets them.
   */
  lastActiveAt: number;
  lastActiveMs: number;
  /** When the last rights check passed (process ms), and the right's own end. */
  checkedAtMs: number;
  rightEndsAt: Date | null;
  checking: Promise<void> | null;
}

/** What a leased stream's exchange is told: the device ended its side, or the stream closed. */
export interface StreamWatcher {
  end(): void;
  close(): void;
}

/**
 * The visit's keep-alive connections to the device UI, each one a tunnel stream: a request
 * takes an idle stream whose last answer ended cleanly, or opens a new one (a new stream goes
 * through the rights check), at most 256 at once; idle ones are closed after 30 s.
 *
 * Each stream gets its listeners once, when it opens, and the pool keeps one timer: taking a
 * stream and giving it back adds and removes no listener on it (a small request's path).
 */
export class StreamPool {
  /** Idle streams, the most recently used last (taken first). */
  private readonly idle: TunnelStream[] = [];
  /** When each idle stream went idle (performance.now()), the oldest first. */
  private readonly idleSince = new Map<TunnelStream, number>();
  private timer: NodeJS.Timeout | null = null;
  /** Leased streams' exchanges, told of their stream's end and close. */
  private readonly watchers = new Map<TunnelStream, StreamWatcher>();
  private leased = 0;
  private readonly waiting: Array<() => void> = [];
  private destroyed = false;

  constructor(
    private readonly openStream: () => Promise<TunnelStream>,
    private readonly max = 256,
    private readonly maxIdle = 32,
    private readonly idleMs = 30_000,
  ) {}

  /** An idle stream for one exchange, when one is ready now (else null: lease()). */
  leaseNow(): TunnelStream | null {
    if (this.leased >= this.max || this.waiting.length || this.destroyed) return null;
    const stream = this.takeIdle();
    if (stream) this.leased += 1;
    return stream;
  }

  /** A stream for one exchange; give it back with release(). */
  async lease(): Promise<TunnelStream> {
    while (this.leased >= this.max && !this.destroyed)
      await new Promise<void>((wake) => this.waiting.push(wake));
    this.leased += 1;
    try {
      const idle = this.takeIdle();
      if (idle) return idle;
      const stream = await this.openStream();
      // A device closing its side ends the connection, as a TCP socket without half-open
      // would: a pooled stream must not wait half-closed for a request that cannot succeed.
      stream.once("end", () => {
        if (!stream.writableEnded) stream.end();
      });
      // Leased, its end and close are its exchange's (watch); idle, they (or bytes nobody asked
      // for, release) take it out of the pool.
      stream.on("close", () => {
        const watcher = this.watchers.get(stream);
        if (watcher) watcher.close();
        else this.unasked(stream);
      });
      stream.on("end", () => {
        const watcher = this.watchers.get(stream);
        if (watcher) watcher.end();
        else this.unasked(stream);
      });
      return stream;
    } catch (error) {
      this.done();
      throw error;
    }
  }

  /**
   * The leased stream's end and close go to `watcher` until it is released: the pool's own
   * listeners tell it, so that an exchange adds and removes none.
   */
  watch(stream: TunnelStream, watcher: StreamWatcher): void {
    this.watchers.set(stream, watcher);
  }

  /** The exchange is over: `reusable` streams wait for the next one, others are closed. */
  release(stream: TunnelStream, reusable: boolean): void {
    this.watchers.delete(stream);
    this.done();
    if (!reusable || this.destroyed || stream.destroyed || this.idle.length >= this.maxIdle) {
      if (!stream.destroyed) stream.destroy();
      return;
    }
    this.idle.push(stream);
    this.idleSince.set(stream, performance.now());
    this.arm();
    // Flowing, so that bytes the device sends unasked are seen (and the stream dropped).
    stream.setReader(() => this.unasked(stream));
    stream.resume();
  }

  /** The stream closed, ended or sent bytes: while it is idle, nobody asked; it goes. */
  private unasked(stream: TunnelStream): void {
    if (this.idleSince.has(stream)) this.drop(stream);
  }

  /** The most recently used idle stream that can still serve; null when there is none. */
  private takeIdle(): TunnelStream | null {
    for (let stream = this.idle.pop(); stream; stream = this.idle.pop()) {
      this.idleSince.delete(stream);
      // Closed meanwhile, or sent bytes nobody asked for: not a stream to trust with a request.
      if (stream.destroyed || stream.readableEnded || stream.writableEnded) continue;
      return stream;
    }
    return null;
  }

  /** The pool's one timer: set for when its oldest idle stream has waited idleMs. */
  private arm(): void {
    if (this.timer || this.destroyed) return;
    const oldest = this.idleSince.values().next();
    if (oldest.done) return;
    const wait = Math.max(1, oldest.value + this.idleMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      const now = performance.now();
      for (const [stream, since] of this.idleSince) {
        if (now - since < this.idleMs) break;
        this.drop(stream);
      }
      this.arm();
    }, wait);
    this.timer.unref();
  }

  private drop(stream: TunnelStream): void {
    this.idleSince.delete(stream);
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const stream of this.idle.splice(0)) stream.destroy();
    this.idleSince.clear();
    for (const wake of this.waiting.splice(0)) wake();
  }
}
