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
  /** Many devices' tunnels on other nodes at once (one round trip); absent ones are left out. */
  lookupMany?(deviceIds: readonly number[]): Promise<Map<number, TunnelPlace>>;
  close(): Promise<void>;
}

export const localTunnelRegistry: TunnelRegistry = {
  self: null,
  held() {},
  released() {},
  lookup: async () => null,
  lookupMany: async () => new Map(),
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
    async lookupMany(deviceIds) {
      const found = new Map<number, TunnelPlace>();
      if (deviceIds.length === 0) return found;
      const values = await redis.mget(deviceIds.map((id) => prefix + id)).catch(() => []);
      for (const [i, value] of values.entries()) {
        const place = value ? parsePlace(value) : null;
        if (place && place.node !== options.self) found.set(deviceIds[i], place);
      }
      return found;
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

function parsePlace(value: string): TunnelPlace | null {
  try {
    return JSON.parse(value) as TunnelPlace;
  } catch {
    return null;
  }
}

/**
 * The hellos of many devices' agents, wherever their tunnels are: this node's links by a map
 * lookup, the rest in one registry round trip (device lists show a page at a time).
 */
export async function helloMany(
  local: { hello(deviceId: number): AgentHello | undefined },
  registry: TunnelRegistry,
  deviceIds: readonly number[],
): Promise<Map<number, AgentHello>> {
  const hellos = new Map<number, AgentHello>();
  const elsewhere: number[] = [];
  for (const id of deviceIds) {
    const hello = local.hello(id);
    if (hello) hellos.set(id, hello);
    else elsewhere.push(id);
  }
  if (elsewhere.length === 0 || registry.self === null) return hellos;
  const places = registry.lookupMany
    ? await registry.lookupMany(elsewhere)
    : new Map<number, TunnelPlace>();
  for (const [id, place] of places) if (place.hello) hellos.set(id, place.hello);
  return hellos;
}
