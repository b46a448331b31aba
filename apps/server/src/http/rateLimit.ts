import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { AppError } from "./envelope.ts";

/**
 * @fastify/rate-limit for the routes that ask for it (login, code sending, checks). With
 * REDIS_URL the counters live in Redis, so every node counts the same client together
 * (ARCHITECTURE: Redis carries rate limits across nodes); otherwise in memory.
 */
export async function registerRateLimits(app: FastifyInstance, opts: { redisUrl?: string }) {
  // Short timeouts and one try: a limit check must not hold a login up while Redis is away.
  const redis = opts.redisUrl
    ? new Redis(opts.redisUrl, {
        connectionName: "keyway-ratelimit",
        connectTimeout: 1_000,
        maxRetriesPerRequest: 1,
      })
    : null;
  redis?.on("error", (error) => app.log.warn({ err: error.message }, "rate-limit redis"));
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => new AppError("RATE_LIMITED", null, 429),
    ...(redis
      ? {
          redis,
          nameSpace: "keyway:ratelimit:",
          // Redis down: let requests through; the per-account limits in the database still hold.
          skipOnError: true,
        }
      : {}),
  });
  if (redis)
    app.addHook("onClose", async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
}

/**
 * TRUST_PROXY (config.ts) as Fastify's trustProxy: a hop count becomes the function Fastify
 * itself would make of it (its types take no number).
 */
export function trustProxyOf(
  value: false | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === "number" ? (_address, hop) => hop < value : value;
}
