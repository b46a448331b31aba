import { createServer, type Server, type Socket } from "node:net";
import { createWebSocketStream, WebSocket } from "ws";

export interface ForwardOptions {
  /** The cloud's HTTP(S) base, e.g. https://keyway.example.com. */
  server: string;
  /** A login token (cloudtoken) of the user who visits. */
  token: string;
  /** A visit URL or id already issued to that user and terminal… */
  visit?: string;
  /** …or the device (machineID) to ask a visit for. */
  device?: number;
  /** "host:port" on the device's LAN. */
  target: string;
  localPort: number;
  bind?: string;
  log?: (message: string) => void;
}

const VISIT_ID = /(?:^|[/.])([a-z2-7]{26})(?:\.visit\.|\/|$)/;

/** The visit id in a visit URL (either form) or a bare id; null when there is none. */
export function visitIdOf(text: string): string | null {
  const trimmed = text.trim();
  if (/^[a-z2-7]{26}$/.test(trimmed)) return trimmed;
  try {
    const url = new URL(trimmed);
    const byHost = /^([a-z2-7]{26})\.visit\./.exec(url.hostname);
    if (byHost) return byHost[1];
    const byPath = /^\/visit\/([a-z2-7]{26})(\/|$)/.exec(url.pathname);
    if (byPath) return byPath[1];
  } catch {
    return VISIT_ID.exec(trimmed)?.[1] ?? null;
  }
  return null;
}

/** Close codes of the cloud's `/visit-tcp` that mean the visit itself is over. */
const VISIT_GONE = new Set([4404, 4410]);

/**
 * `keyway-agent forward`: a local TCP port on the PC that reaches one target on the device's
 * LAN through the cloud relay, under the visitor's rights and in the device's visit log.
 * Every local connection is one WebSocket to `/visit-tcp/<visit>`; with `--device` a visit
 * that has ended (idle, or ended by the owner) is replaced by a new one for later connections.
 */
export class Forwarder {
  private server: Server | undefined;
  private visitId: string | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly base: string;

  constructor(private readonly options: ForwardOptions) {
    this.base = options.server.replace(/\/+$/, "");
  }

  private log(message: string): void {
    (this.options.log ?? ((m: string) => console.log(`${new Date().toISOString()} ${m}`)))(message);
  }

  /** Gets the visit, listens, and resolves with the local port. */
  async start(): Promise<number> {
    this.visitId = await this.resolveVisit();
    const server = createServer((socket) => this.forward(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.localPort, this.options.bind ?? "127.0.0.1", () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : this.options.localPort;
    this.log(
      `forwarding ${this.options.bind ?? "127.0.0.1"}:${port} -> ${this.options.target} through visit ${this.visitId}`,
    );
    return port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async resolveVisit(): Promise<string> {
    if (this.options.visit) {
      const id = visitIdOf(this.options.visit);
      if (!id) throw new Error(`not a visit URL or id: ${this.options.visit}`);
      return id;
    }
    const response = await fetch(`${this.base}/api/v1/audit/getValidVisitUrl`, {
      method: "POST",
      headers: { "content-type": "application/json", cloudtoken: this.options.token },
      body: JSON.stringify({ machineID: this.options.device, target: this.options.target }),
    });
    const body = (await response.json().catch(() => null)) as {
      hwcode: number | string;
      hwdata: { visit_id?: string } | null;
      msg?: string;
    } | null;
    if (!body || String(body.hwcode) !== "0" || !body.hwdata?.visit_id) {
      const why = body ? `${body.msg ?? ""} (hwcode ${body.hwcode})` : `HTTP ${response.status}`;
      throw new Error(`no visit for device ${this.options.device}: ${why}`);
    }
    return body.hwdata.visit_id;
  }

  private forward(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.once("close", () => this.sockets.delete(socket));
    const visitId = this.visitId;
    const url = new URL(`${this.base.replace(/^http/, "ws")}/visit-tcp/${visitId}`);
    url.searchParams.set("target", this.options.target);
    const ws = new WebSocket(url, {
      headers: { cloudtoken: this.options.token },
      perMessageDeflate: false,
    });
    const remote = createWebSocketStream(ws);
    remote.on("error", () => socket.destroy());
    socket.on("error", () => remote.destroy());
    socket.pipe(remote);
    remote.pipe(socket);
    ws.on("unexpected-response", (_request, response) => {
      this.log(
        `refused: HTTP ${response.statusCode}${response.statusCode === 401 ? " (token invalid or expired)" : ""}`,
      );
      response.resume();
      socket.destroy();
    });
    ws.on("close", (code, reason) => {
      if (code >= 4000) {
        this.log(`connection closed by the cloud: ${code} ${reason.toString()}`);
        socket.destroy();
        if (VISIT_GONE.has(code) && this.options.device && this.visitId === visitId) {
          this.visitId = null;
          this.resolveVisit().then(
            (id) => {
              this.visitId = id;
              this.log(`new visit ${id}`);
            },
            (error: Error) => this.log(error.message),
          );
        }
      }
    });
  }
}
