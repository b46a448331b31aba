import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import pino from "pino";

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * A caller's id goes into our logs only when it looks like an id (UUIDs, a proxy's hex ids):
 * anything longer or stranger could forge log fields or bloat every line of the request.
 */
const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Fastify's genReqId: the incoming X-Request-Id when well-formed (a proxy or client ties its
 * logs to ours), else a random UUID. Every log line of the request carries it as `reqId`.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === "string" && WELL_FORMED.test(given) ? given : randomUUID();
}

/** Echoes the request id in the answer, so a client can quote it when reporting a problem. */
export function registerRequestId(app: FastifyInstance) {
  app.addHook("onRequest", async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
}

/**
 * The server's log at LOG_LEVEL: pino's JSON lines on stdout, written asynchronously — a
 * synchronous write per line made each request wait for the terminal or the journal. What
 * is still buffered is written when the process exits (pino flushes on exit).
 */
export function requestLog(level: string) {
  if (level === "silent") return { level };
  return { level, stream: pino.destination({ dest: 1, sync: false }) };
}
