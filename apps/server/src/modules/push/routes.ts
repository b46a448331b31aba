import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * `GET /ws`: the push channel (SPEC §4 "Push channel"). The token comes as `?token=`
 * (a browser cannot set headers on a WebSocket) or as the `cloudtoken` header. The `token`
 * cookie is deliberately not read: another site could open the socket with it.
 */
export function pushRoutes(
  app: FastifyInstance,
  deps: { accept: (socket: WebSocket, token: string | undefined) => void },
) {
  /** The response @fastify/websocket made for each upgrade, until its socket is accepted. */
  const responses = new WeakMap<IncomingMessage, ServerResponse>();
  app.get(
    "/ws",
    {
      websocket: true,
      // The URL carries the token: keep it out of the request log lines.
      logLevel: "warn",
      schema: { hide: true },
      preHandler: (request, reply, done) => {
        responses.set(request.raw, reply.raw);
        done();
      },
    },
    (socket, request) => {
      forgetRequest(socket, request, responses.get(request.raw));
      deps.accept(socket, tokenOf(request));
    },
  );
}

/**
 * Lets the HTTP request of an upgraded socket go (docs/architecture/push.md#memory): the
 * response @fastify/websocket attached to the TCP socket, and its own error listener, would
 * otherwise hold the request, reply and their listeners (several KiB) for the socket's
 * whole life. After the upgrade neither is used again; the hub logs socket errors itself.
 */
function forgetRequest(
  socket: WebSocket,
  request: FastifyRequest,
  response: ServerResponse | undefined,
) {
  socket.removeAllListeners("error");
  response?.detachSocket(request.raw.socket);
}

function tokenOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = typeof query?.token === "string" ? query.token : undefined;
  const header = request.headers.cloudtoken;
  return fromQuery || (Array.isArray(header) ? header[0] : header) || undefined;
}

/**
 * The fast path of `/ws` connects (docs/architecture/push.md#connecting), ahead of Fastify on
 * the HTTP server's `upgrade` event: routing, hooks and @fastify/websocket's per-upgrade
 * request and reply cost more than the handshake itself when every client comes back at
 * once. It takes only what is plainly allowed — the same page's socket (Sec-Fetch-Site
 * same-origin or none, or an Origin that is Keyway's own) or a client that is not a browser
 * (neither header) — and leaves everything else to the Fastify route, whose origin check
 * answers refusals as always.
 */
export function createPushUpgrade(deps: {
  publicUrl: string;
  maxPayload: number;
  accept: (socket: WebSocket, token: string | undefined) => void;
}) {
  const ownOrigin = new URL(deps.publicUrl).origin.toLowerCase();
  const server = new WebSocketServer({ noServer: true, maxPayload: deps.maxPayload });

  function plainlyAllowed(request: IncomingMessage): boolean {
    const site = request.headers["sec-fetch-site"];
    if (site !== undefined) return site === "same-origin" || site === "none";
    const origin = request.headers.origin;
    return origin === undefined || origin.toLowerCase() === ownOrigin;
  }

  /** True when the upgrade was taken here. */
  return function take(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = request.url ?? "";
    if (url !== "/ws" && !url.startsWith("/ws?")) return false;
    if (request.method !== "GET" || request.headers.upgrade?.toLowerCase() !== "websocket")
      return false;
    if (!plainlyAllowed(request)) return false;
    const query = url.indexOf("?");
    const fromQuery =
      query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get("token") || null;
    const header = request.headers.cloudtoken;
    const token = fromQuery ?? ((Array.isArray(header) ? header[0] : header) || undefined);
    server.handleUpgrade(request, socket, head, (ws) => deps.accept(ws, token));
    return true;
  };
}
