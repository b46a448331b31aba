import type { AgentHello } from "@keyway/protocol";
import { Redis } from "ioredis";

/** Where a device's tunnel is held: the node's own URL for its peers, and the agent's hello. */
export interface TunnelPlace {
  node: string;
  hello: AgentHello | null;
}

/**
 * The relay registry (docs/architecture/remote-access.md): which node holds each device's
 * agent tunnel, so that a visit landing on any node is carried to that one. In one process
 * there is nothing to find beyond the local hub; with Redis each node writes its tunnels
 * under `keyway:tunnel:<device>` with a TTL it keeps renewing, so a killed node's entries run
 * out by themselves, and a newer link (the agent reconnected elsewhere) overwrites them.
 */
export interface TunnelRegistry {
  /** This node's URL as its peers reach it; null without several nodes. */
  readonly self: string | null;
  held(deviceId: number, hello: AgentHello | null): void;
  released(deviceId: number): void;
  /** The device's tunnel on another node, or null. */
  lookup(deviceId: number): Promise<TunnelPlace | null>;
  close(): Promise<void>;
}

export const localTunnelRegistry: TunnelRegistry = {
  self: null,
  held() {},
  released() {},
  lookup: async () => null,
  close: async () => {},
};

const TTL_MS = 30_000;
// Deletes the entry only while it is still this node's (another may have taken the device).
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

export function createRedisTunnelRegistry(options: {
  url: string;
  self: string;
  log: { warn(obj: object, msg: string): void };
  prefix?: string;
}): TunnelRegistry {
  const prefix = `${options.prefix ?? "keyway:"}tunnel:`;
  const redis = new Redis(options.url, { connectionName: "keyway-tunnels" });
  redis.on("error", () => {});
  /** What this node wrote for each device it holds, renewed before it runs out. */
  const mine = new Map<number, string>();
  const write = (deviceId: number, value: string) =>
    redis
      .set(prefix + deviceId, value, "PX", TTL_MS)
      .catch((error: Error) =>
        options.log.warn({ err: error.message, deviceId }, "tunnel registry not written"),
      );
  const renew = setInterval(() => {
    for (const [deviceId, value] of mine) void write(deviceId, value);
  }, TTL_MS / 3);
  renew.unref();
  return {
    self: options.self,
    held(deviceId, hello) {
      const value = JSON.stringify({ node: options.self, hello } satisfies TunnelPlace);
      mine.set(deviceId, value);
      void write(deviceId, value);
    },
    released(deviceId) {
      const value = mine.get(deviceId);
      mine.delete(deviceId);
      if (value)
        void redis.eval(RELEASE, 1, prefix + deviceId, value).catch(() => {
          // It runs out by itself.
        });
    },
    async lookup(deviceId) {
      const value = await redis.get(prefix + deviceId).catch(() => null);
      if (!value) return null;
      try {
        const place = JSON.parse(value) as TunnelPlace;
        return place.node === options.self ? null : place;
      } catch {
        return null;
      }
    },
    async close() {
      clearInterval(renew);
      const held = [...mine.entries()];
      mine.clear();
      await Promise.allSettled(held.map(([id, v]) => redis.eval(RELEASE, 1, prefix + id, v)));
      redis.disconnect();
    },
  };
}
