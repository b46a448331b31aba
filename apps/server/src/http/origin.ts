import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "./envelope.ts";

/** Methods that change nothing (RFC 9110 §9.2.1); everything else is state-changing. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a state-changing request (or any WebSocket upgrade) comes from a page of another
 * origin: `Sec-Fetch-Site` when the browser sends it, else `Origin` compared with Keyway's
 * own origins. Non-browser clients (the phone app, agents, curl) send neither and pass.
 */
export function isCrossSite(request: FastifyRequest, ownOrigins: ReadonlySet<string>): boolean {
  if (SAFE_METHODS.has(request.method) && !request.headers.upgrade) return false;
  const site = request.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") return true;
  if (site === "same-origin" || site === "none") return false;
  const origin = request.headers.origin;
  if (!origin) return false;
  // "null" is a sandboxed document (a path-mode device page), a file or a data: URL.
  if (origin === "null") return true;
  if (ownOrigins.has(origin.toLowerCase())) return false;
  return origin.toLowerCase() !== `${request.protocol}://${request.host}`.toLowerCase();
}

/**
 * The second line of origin isolation (docs/security.md): behind "the API takes the token
 * only from the cloudtoken header", every state-changing call and every WebSocket from
 * another site (a device's page on a visit host, a hostile form) is refused with 403 and
 * CROSS_SITE_REFUSED, whatever credentials it carries. Visit traffic is the device's own
 * and never reaches Fastify's routes (`isVisit`).
 */
export function registerOriginCheck(
  app: FastifyInstance,
  options: { publicUrl: string; isVisit: (request: FastifyRequest) => boolean },
) {
  const ownOrigins = new Set([new URL(options.publicUrl).origin.toLowerCase()]);
  app.addHook("onRequest", async (request) => {
    if (options.isVisit(request)) return;
    if (isCrossSite(request, ownOrigins)) throw new AppError("CROSS_SITE_REFUSED", null, 403);
  });
}
