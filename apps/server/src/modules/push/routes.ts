import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";

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
