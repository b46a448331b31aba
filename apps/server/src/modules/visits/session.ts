import http from "node:http";
import type { TunnelStream } from "@keyway/protocol/mux";
import type { Actor } from "../access/service.ts";

/** A visit in use on this node: its streams, its HTTP connection pool, its counters. */
export interface VisitSession {
  readonly id: string;
  readonly deviceId: number;
  readonly actor: Actor;
  /** The target of the device UI ("host:port"). */
  readonly target: string;
  cookieHash: string | null;
  ended: boolean;
  readonly streams: Set<TunnelStream>;
  /** Sockets handed over whole (WebSocket upgrades, TCP forwards), cut with the visit. */
  readonly sockets: Set<{ destroy(error?: Error): void }>;
  agent: TunnelAgent | null;
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
 * Node's HTTP client pooling keep-alive connections to the device UI, each one a tunnel
 * stream; a new connection is a new stream, so it goes through the rights check.
 */
export class TunnelAgent extends http.Agent {
  constructor(private readonly openStream: () => Promise<TunnelStream>) {
    super({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32, timeout: 30_000 });
  }

  override createConnection(
    _options: http.ClientRequestArgs,
    callback?: (error: Error | null, stream: import("node:stream").Duplex) => void,
  ): undefined {
    this.openStream().then(
      (stream) => {
        // A device closing its side ends the connection, as a TCP socket without half-open
        // would: a pooled stream must not wait half-closed for a request that cannot succeed.
        stream.once("end", () => stream.end());
        callback?.(null, stream);
      },
      (error) => callback?.(error, undefined as never),
    );
    return undefined;
  }
}
