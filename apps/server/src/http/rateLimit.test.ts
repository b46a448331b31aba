import { desc } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.ts";
import { terminals } from "../modules/accounts/schema.ts";
import { createHarness, type Harness } from "../testing/harness.ts";
import { startRedis } from "../testing/redis.ts";
import { trustProxyOf } from "./rateLimit.ts";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function harness(config: Parameters<typeof createHarness>[0]) {
  const h = await createHarness(config);
  closers.push(h.close);
  return h;
}

/**
 * A login attempt from `socket` (the TCP peer), with an optional X-Forwarded-For; without a
 * password, for an unknown account (the per-account lock stays out of the count).
 */
async function login(h: Harness, socket: string, forwardedFor?: string, password?: string) {
  const res = await h.app.inject({
    method: "POST",
    url: "/api/user/login",
    remoteAddress: socket,
    headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
    payload: {
      loginName: password ? "proxy@example.com" : "nobody@example.com",
      loginPwd: password ?? "wrong-pass",
      terminalUUID: "t-proxy",
    },
  });
  return { status: res.statusCode, body: res.json() };
}

const lastTerminalIp = async (h: Harness) =>
  (await h.db.select().from(terminals).orderBy(desc(terminals.id)).limit(1))[0]?.ip;

describe("TRUST_PROXY", () => {
  const env = (value?: string) => ({ SECRET_KEY: "0".repeat(64), TRUST_PROXY: value });

  it("trusts no proxy by default, and takes a hop count or addresses / CIDR ranges", () => {
    expect(loadConfig(env()).TRUST_PROXY).toBe(false);
    expect(loadConfig(env("0")).TRUST_PROXY).toBe(false);
    expect(loadConfig(env("2")).TRUST_PROXY).toBe(2);
    // Two hops: the two nearest addresses are proxies, the third is the client.
    const twoHops = trustProxyOf(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => twoHops("10.0.0.1", hop))).toEqual([true, true, false]);
    expect(loadConfig(env("10.0.0.0/8, 127.0.0.1,fd00::/8 loopback")).TRUST_PROXY).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "fd00::/8",
      "loopback",
    ]);
    expect(() => loadConfig(env("true"))).toThrow(/TRUST_PROXY: trusting every address/);
    expect(() => loadConfig(env("10.0.0.0/33"))).toThrow(ConfigError);
    expect(() => loadConfig(env("proxy.example.com"))).toThrow(
      /TRUST_PROXY: must be a number of proxies or a comma-separated list/,
    );
  });

  it("ignores a forged X-Forwarded-For by default: one client, one login limit, its real IP", async () => {
    const h = await harness({});
    await h.signUp("proxy@example.com");
    for (let i = 0; i < 20; i++) {
      const r = await login(h, "203.0.113.9", `198.18.0.${i + 1}`);
      expect(r.status).toBe(200);
    }
    const limited = await login(h, "203.0.113.9", "198.18.0.99");
    expect(limited).toMatchObject({ status: 429, body: { hwcode: 429 } });
    // The terminal list keeps the socket's address, not the forged one.
    const ok = await login(h, "203.0.113.10", "198.18.0.50", "secret123");
    expect(ok.body.hwcode).toBe(0);
    expect(await lastTerminalIp(h)).toBe("203.0.113.10");
  });

  it("believes the configured proxy only: its clients are limited one by one", async () => {
    const h = await harness({ config: { TRUST_PROXY: ["127.0.0.1"] } });
    await h.signUp("proxy@example.com");
    // 25 clients behind the proxy: none reaches the per-IP limit of 20.
    for (let i = 0; i < 25; i++) {
      const r = await login(h, "127.0.0.1", `198.18.0.${i + 1}`);
      expect(r.status).toBe(200);
    }
    const ok = await login(h, "127.0.0.1", "198.18.0.77", "secret123");
    expect(ok.body.hwcode).toBe(0);
    expect(await lastTerminalIp(h)).toBe("198.18.0.77");
    // Anyone else who sends the header is still judged by the socket's address.
    const direct = await login(h, "203.0.113.20", "198.18.0.78", "secret123");
    expect(direct.body.hwcode).toBe(0);
    expect(await lastTerminalIp(h)).toBe("203.0.113.20");
  });
});

describe("rate limits across nodes", () => {
  it("two nodes sharing one Redis count a client's logins together", async () => {
    const redis = await startRedis();
    closers.push(redis.stop);
    const redisUrl = redis.url;
    const a = await harness({ config: { REDIS_URL: redisUrl } });
    const b = await harness({ config: { REDIS_URL: redisUrl } });
    for (let i = 0; i < 20; i++) expect((await login(a, "203.0.113.30")).status).toBe(200);
    // The 21st attempt reaches the other node, which knows of the 20 before.
    expect(await login(b, "203.0.113.30")).toMatchObject({ status: 429, body: { hwcode: 429 } });
    expect((await login(b, "203.0.113.31")).status).toBe(200);
  });
});
