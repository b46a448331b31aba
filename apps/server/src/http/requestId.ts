import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
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

/**
 * One log line per request, when its answer is out (method, URL, client, status, time) —
 * Fastify's default writes a second, "incoming request", line for each. A request's lines
 * cost 13–18 % of a small call's time (docs/performance.md "devices", decision 205).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest() {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}
