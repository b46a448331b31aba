import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

/** The bytes read past an upgrade request's head, kept by @fastify/websocket on the request. */
export function upgradeHead(request: IncomingMessage): Buffer {
  const holder = request as unknown as Record<symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(request)) {
    if (symbol.description === "ws-head" && Buffer.isBuffer(holder[symbol]))
      return holder[symbol] as Buffer;
  }
  return Buffer.alloc(0);
}

/**
 * An upgrade request Fastify answers itself (refused: another site, no token, no route) ends
 * its connection once the answer is out. @fastify/websocket routes upgrades with a response
 * of its own that no HTTP server watches, so without this the socket would stay open after
 * the answer — held by a hostile page at will, and waited for by the server's close.
 */
export function registerUpgradeRefusalClose(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply) => {
    if (request.headers.upgrade && reply.statusCode !== 101) reply.header("connection", "close");
  });
  app.addHook("onResponse", async (request, reply) => {
    if (request.headers.upgrade && reply.statusCode !== 101) request.raw.socket.destroySoon();
  });
}
