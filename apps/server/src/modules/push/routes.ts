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
  app.get(
    "/ws",
    {
      websocket: true,
      // The URL carries the token: keep it out of the request log lines.
      logLevel: "warn",
      schema: { hide: true },
    },
    (socket, request) => deps.accept(socket, tokenOf(request)),
  );
}

function tokenOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = typeof query?.token === "string" ? query.token : undefined;
  const header = request.headers.cloudtoken;
  return fromQuery || (Array.isArray(header) ? header[0] : header) || undefined;
}
