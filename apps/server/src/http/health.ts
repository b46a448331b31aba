import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Metrics, withTimeout } from "../infra/metrics.ts";
import { AppError } from "./envelope.ts";

/** A failed readiness check whose message is safe to show to anyone (no URL, no host). */
export class CheckFailed extends Error {}

/** A dependency the node needs to serve: resolves when reachable, throws otherwise. */
export type ReadinessCheck = () => Promise<void> | void;

/** A check that has not answered by then has failed: a probe must never hang. */
const CHECK_TIMEOUT_MS = 1_500;

/**
 * Probes for the load balancer and the orchestrator, and the Prometheus scrape:
 * - `/healthz`: the process answers (liveness); touches nothing.
 * - `/readyz`: every dependency (database, MQTT broker, Redis when configured) reachable,
 *   200 or 503 with each check's outcome, so a node cut off is taken out of rotation.
 * - `/metrics`: Prometheus text; with `metricsToken` only to `Authorization: Bearer <token>`,
 *   without it only to loopback clients that come directly (not through a proxy).
 * None is rate-limited or needs a session. The probes answer plain JSON (what load balancers
 * and orchestrators read); a refused /metrics is the envelope, like every refusal.
 */
export function healthRoutes(
  app: FastifyInstance,
  deps: {
    checks: Record<string, ReadinessCheck>;
    metrics: Metrics;
    metricsToken?: string;
  },
) {
  // Not in the API document; polled every few seconds, so their requests are not logged at
  // info (a failed readiness check still is, at warn).
  const probe = { schema: { hide: true }, logLevel: "warn" } as const;

  // Probes hammering a node whose database hangs share the check already under way instead
  // of piling up one query each.
  const running = new Map<string, Promise<void>>();
  const runCheck = (name: string, check: ReadinessCheck): Promise<void> => {
    let pending = running.get(name);
    if (!pending) {
      pending = withTimeout(Promise.resolve().then(check), CHECK_TIMEOUT_MS, name).finally(() =>
        running.delete(name),
      );
      running.set(name, pending);
    }
    return pending;
  };

  app.get("/healthz", probe, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    return { status: "ok" };
  });

  app.get("/readyz", probe, async (request, reply) => {
    const outcomes = await Promise.all(
      Object.entries(deps.checks).map(async ([name, check]) => {
        const started = performance.now();
        try {
          await runCheck(name, check);
          return [name, { status: "ok", ms: Math.round(performance.now() - started) }] as const;
        } catch (error) {
          const message = (error as Error).message;
          request.log.warn({ check: name, err: message }, "readiness check failed");
          const shown =
            error instanceof CheckFailed
              ? message
              : message.includes("timed out")
                ? "timeout"
                : "unreachable";
          return [
            name,
            { status: "fail", error: shown, ms: Math.round(performance.now() - started) },
          ] as const;
        }
      }),
    );
    const ready = outcomes.every(([, outcome]) => outcome.status === "ok");
    reply.status(ready ? 200 : 503).header("cache-control", "no-store");
    return { status: ready ? "ok" : "fail", checks: Object.fromEntries(outcomes) };
  });

  const tokenDigest = deps.metricsToken ? digest(deps.metricsToken) : null;
  app.get("/metrics", probe, async (request, reply) => {
    const refusal = metricsRefusal(request, tokenDigest);
    if (refusal) refuse(reply, refusal);
    const text = await deps.metrics.render();
    return reply
      .header("content-type", deps.metrics.contentType)
      .header("cache-control", "no-store")
      .send(text);
  });
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Why /metrics is refused to this request: 401 (token missing or wrong), 403 (not loopback). */
function metricsRefusal(request: FastifyRequest, tokenDigest: Buffer | null): 401 | 403 | null {
  if (tokenDigest) {
    const header = request.headers.authorization ?? "";
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    // Digests compared: equal lengths, so the comparison time tells nothing about the token.
    return given && timingSafeEqual(digest(given), tokenDigest) ? null : 401;
  }
  // A proxy on this machine makes every client look like loopback: a forwarded request is
  // not a local one, whatever TRUST_PROXY says.
  const forwarded =
    request.headers["x-forwarded-for"] !== undefined ||
    request.headers.forwarded !== undefined ||
    request.headers["x-real-ip"] !== undefined;
  return !forwarded && isLoopback(request.socket.remoteAddress) && isLoopback(request.ip)
    ? null
    : 403;
}

function refuse(reply: FastifyReply, status: 401 | 403): never {
  if (status === 401) reply.header("www-authenticate", 'Bearer realm="metrics"');
  throw new AppError("NO_PERMISSION", null, status);
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.replace(/^::ffff:/i, "");
  if (isIP(plain) === 4) return plain.startsWith("127.");
  return plain === "::1";
}
