import { type ClientRequest, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  formatTarget,
  TUNNEL_CLOSE,
  TUNNEL_PING_MS,
  TUNNEL_PROTOCOL,
  TUNNEL_RESET,
  type TunnelControl,
  type TunnelTarget,
} from "@keyway/protocol";
import type { TunnelStream } from "@keyway/protocol/mux";
import { readDirect } from "@keyway/protocol/socket-reads";
import { type TunnelSocketLink, tunnelOverSocket } from "@keyway/protocol/tunnel-socket";
import { backoffDelay } from "./backoff.ts";

export type TunnelState = "stopped" | "connecting" | "online" | "offline";

export interface TunnelClientOptions {
  /** `ws(s)://host:port/tunnel`. */
  url: string;
  code: string;
  secret: string;
  /** Where a visit goes when it names no target (the device's web UI). */
  target: TunnelTarget;
  /** Further targets the cloud may ask for ("host:port"); nothing else is ever connected. */
  allow?: TunnelTarget[];
  /** The device's screen (a VNC server): told to the cloud, and allowed like `allow`. */
  vnc?: TunnelTarget;
  /** Told to the cloud in the hello: "control" when someone here can answer consent asks. */
  features?: string[];
  /** A control message from the cloud (consent asks, visits ended). */
  onControl?: (message: TunnelControl) => void;
  version?: string;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** How long a connection to a target may take. */
  connectTimeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * The agent's remote-access link: one outbound connection to the cloud's `/tunnel`
 * (authenticated by machine code + device secret, upgraded to TUNNEL_PROTOCOL), kept up with
 * back-off like MQTT. The cloud
 * asks for streams; the agent connects each to a target on its LAN only when the target is
 * on its allow-list (the default target always is) and pipes bytes both ways, with the
 * tunnel's credit windows as backpressure.
 */
export class TunnelClient {
  private request: ClientRequest | undefined;
  private link: TunnelSocketLink | undefined;
  private state: TunnelState = "stopped";
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly allowed: Set<string>;
  private readonly defaultTarget: string;
  /**
   * The local ends ("address port") of the connections made for the cloud's streams: a
   * service on this machine tells a visitor's request from a local one by them.
   */
  private readonly carried = new Set<string>();
  private opened = 0;
  private refused = 0;
  /** Refusals logged on the current link: a flood of them is counted, not printed. */
  private refusedLogged = 0;
  /**
   * Links in a row that the cloud end broke the protocol on: they back off like failed
   * connects (a link that opens and is dropped at once must not become a tight loop).
   */
  private violations = 0;

  constructor(private readonly options: TunnelClientOptions) {
    this.defaultTarget = formatTarget(options.target);
    this.allowed = new Set([
      this.defaultTarget,
      ...(options.allow ?? []).map(formatTarget),
      ...(options.vnc ? [formatTarget(options.vnc)] : []),
    ]);
  }

  /**
   * Sends a control message to the cloud; false when the link is down (nothing is queued:
   * an answer given while offline is for the front-end to offer again).
   */
  sendControl(message: TunnelControl): boolean {
    const mux = this.link?.mux;
    if (!mux || mux.closed || this.state !== "online") return false;
    mux.send({ type: "control", message });
    return true;
  }

  /**
   * Whether a connection that reached a local service from `address`:`port` is one this
   * client made for a visitor (its remote end is our socket's local end).
   */
  carries(address: string | undefined, port: number | undefined): boolean {
    if (!address || !port) return false;
    return this.carried.has(`${address.replace(/^::ffff:/, "")} ${port}`);
  }

  private log(message: string): void {
    (this.options.log ?? ((m: string) => console.log(`${new Date().toISOString()} ${m}`)))(message);
  }

  status() {
    return {
      tunnel: this.state,
      target: this.defaultTarget,
      allow: [...this.allowed],
      streams: this.link?.mux.size ?? 0,
      opened: this.opened,
      refused: this.refused,
    };
  }

  start(): void {
    if (this.state !== "stopped") return;
    this.setState("connecting");
    this.connect();
  }

  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    this.setState("stopped");
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    this.request?.destroy();
    this.request = undefined;
    const link = this.link;
    this.link = undefined;
    if (!link || link.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        link.terminate();
        resolve();
      }, 2000);
      link.socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      link.close(1001, "agent stopping");
    });
  }

  private setState(next: TunnelState): void {
    if (this.state === next) return;
    this.log(`tunnel: ${this.state} -> ${next}`);
    this.state = next;
  }

  /**
   * Dials `/tunnel` and asks for TUNNEL_PROTOCOL: an HTTP/1.1 upgrade (through any proxy that
   * passes upgrades, like WebSockets) after which the socket carries the frames themselves.
   */
  private connect(): void {
    if (this.state === "stopped") return;
    const credentials = Buffer.from(`${this.options.code}:${this.options.secret}`).toString(
      "base64",
    );
    const url = new URL(this.options.url);
    const secure = url.protocol === "wss:" || url.protocol === "https:";
    const request = (secure ? httpsRequest : httpRequest)({
      host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        authorization: `Basic ${credentials}`,
        connection: "Upgrade",
        upgrade: TUNNEL_PROTOCOL,
      },
      agent: false,
    });
    this.request = request;
    this.refusedLogged = 0;
    let settled = false;
    const handshake = setTimeout(() => request.destroy(new Error("handshake timed out")), 10_000);
    const failed = () => {
      if (settled) return;
      settled = true;
      clearTimeout(handshake);
      if (this.request !== request || this.state === "stopped") return;
      this.request = undefined;
      this.setState("offline");
      this.scheduleReconnect();
    };
    request.on("upgrade", (response, socket, head) => {
      settled = true;
      clearTimeout(handshake);
      if (this.request !== request || this.state === "stopped") return void socket.destroy();
      this.request = undefined;
      if (String(response.headers.upgrade).toLowerCase() !== TUNNEL_PROTOCOL) {
        this.log(`tunnel refused by the cloud: it upgraded to ${response.headers.upgrade}`);
        socket.destroy();
        this.setState("offline");
        this.scheduleReconnect();
        return;
      }
      this.up(socket, head);
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (d: string) => {
        if (body.length < 300) body += d;
      });
      response.on("end", () => {
        this.log(
          `tunnel refused by the cloud: HTTP ${status}` +
            (status === 401 ? " (check --code and --secret)" : "") +
            (status === 426
              ? ` (${body
                  .trim()
                  .replace(/[^\x20-\x7e]/g, "?")
                  .slice(0, 200)})`
              : "") +
            (status === 400 ? " (a cloud older than this agent's tunnel protocol?)" : ""),
        );
        failed();
      });
      response.on("error", failed);
    });
    request.on("error", (error) => {
      this.log(`tunnel error: ${error.message}`);
      failed();
    });
    request.on("close", failed);
    request.end();
  }

  private up(socket: Duplex, head: Buffer): void {
    const link: TunnelSocketLink = tunnelOverSocket(socket, {
      head,
      onOpen: (stream, target) => this.onOpen(stream, target),
      onControl: (message) => {
        // What only an agent sends, coming from the cloud: not a peer that speaks this.
        if (message.t === "consent.answer" || message.t === "visit.end") {
          link.mux.violation(`a control message the cloud does not send (${message.t})`);
          return;
        }
        this.options.onControl?.(message);
      },
      // The cloud answers pings: it speaks the protocol, the back-off starts afresh.
      onPong: () => {
        this.violations = 0;
        this.attempt = 0;
      },
      // Whatever the cloud end sent, the link is dropped and dialled again, never the process.
      onViolation: (reason) => {
        this.log(`tunnel: protocol error from the cloud (${reason}); reconnecting`);
        this.violations = Math.min(this.violations + 1, 30);
        link.close(TUNNEL_CLOSE.protocol, "bad frame");
      },
      onClose: (code) => {
        if (this.link !== link || this.state === "stopped") return;
        clearInterval(this.pingTimer);
        this.link = undefined;
        if (code === TUNNEL_CLOSE.replaced) this.log("tunnel replaced by a newer connection");
        this.setState("offline");
        this.scheduleReconnect();
      },
    });
    this.link = link;
    const { mux } = link;
    this.attempt = this.violations;
    this.setState("online");
    mux.send({
      type: "hello",
      hello: {
        version: this.options.version ?? "",
        target: this.defaultTarget,
        allow: [...this.allowed],
        ...(this.options.vnc ? { vnc: formatTarget(this.options.vnc) } : {}),
        ...(this.options.features?.length ? { features: this.options.features } : {}),
      },
    });
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      // Three silent periods: the path to the cloud is dead even if TCP has not noticed.
      if (Date.now() - mux.lastHeard > TUNNEL_PING_MS * 3) link.terminate();
      else mux.ping();
    }, TUNNEL_PING_MS);
  }

  private scheduleReconnect(): void {
    const delay = backoffDelay(
      this.attempt,
      this.options.backoffMinMs ?? 1000,
      this.options.backoffMaxMs ?? 30_000,
    );
    this.attempt = Math.min(this.attempt + 1, 30);
    this.log(`tunnel reconnecting in ${(delay / 1000).toFixed(1)} s`);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.setState("connecting");
      this.connect();
    }, delay);
  }

  /** The cloud asks for a stream: allowed targets only, decided here on the device side. */
  private onOpen(stream: TunnelStream, requested: TunnelTarget | null): void {
    const target = requested ?? this.options.target;
    const name = formatTarget(target);
    if (!this.allowed.has(name)) {
      this.refused += 1;
      if (this.refusedLogged < 20) {
        this.refusedLogged += 1;
        // The name is the cloud's text: printable and short in the log.
        const shown = name.slice(0, 300).replace(/[^\x20-\x7e]/g, "?");
        this.log(
          `tunnel: refused ${shown} (not on the allow-list)` +
            (this.refusedLogged === 20 ? "; further refusals are only counted" : ""),
        );
      }
      stream.refuse(TUNNEL_RESET.refused, `${name} is not on this device's allow-list`);
      return;
    }
    const socket: Socket = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    socket.setNoDelay(true);
    const timer = setTimeout(
      () => socket.destroy(new Error("connect timed out")),
      this.options.connectTimeoutMs ?? 10_000,
    );
    let connected = false;
    stream.on("error", () => socket.destroy());
    let local = "";
    socket.once("connect", () => {
      clearTimeout(timer);
      connected = true;
      this.opened += 1;
      // Before `opened` goes out, so before any byte of the visitor can reach the target.
      local = `${(socket.localAddress ?? "").replace(/^::ffff:/, "")} ${socket.localPort}`;
      this.carried.add(local);
      stream.accept();
      // The target's bytes straight from its reads; a full stream stops reading until 'drain'.
      if (readDirect(socket, (bytes) => stream.write(bytes), true)) {
        stream.on("drain", () => socket.resume());
        socket.on("end", () => stream.end());
      } else socket.pipe(stream);
      // The cloud's bytes straight to the target; a full target pauses the stream until 'drain'.
      stream.setReader((bytes) => {
        if (!socket.destroyed && !socket.write(bytes)) stream.pause();
      });
      socket.on("drain", () => stream.resume());
      stream.on("end", () => socket.end());
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (!connected)
        stream.refuse(
          error.message.includes("timed out") ? TUNNEL_RESET.timeout : TUNNEL_RESET.unreachable,
          `${name}: ${error.message}`,
        );
      else stream.destroy(error);
    });
    // A stream cut by the cloud (or the link) cuts the target connection; a clean close has
    // already ended it through the pipe.
    stream.on("close", () => {
      if (stream.closeError) socket.destroy();
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (local) this.carried.delete(local);
      if (connected && !stream.destroyed && !stream.writableEnded) stream.end();
    });
  }
}
