import type { IncomingMessage } from "node:http";

/** The bytes read past an upgrade request's head, kept by @fastify/websocket on the request. */
export function upgradeHead(request: IncomingMessage): Buffer {
  const holder = request as unknown as Record<symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(request)) {
    if (symbol.description === "ws-head" && Buffer.isBuffer(holder[symbol]))
      return holder[symbol] as Buffer;
  }
  return Buffer.alloc(0);
}
