import { Redis } from "ioredis";
import { CROSS_NODE_EVENTS } from "../events.ts";
import { type Bus, createInProcessBus } from "./bus.ts";

/** A bus over Redis pub/sub, for several server nodes (ARCHITECTURE "Scale-out path"). */
export interface RedisBus extends Bus {
  /** Resolves once Redis is reached and every subscription so far is in place. */
  ready(): Promise<void>;
  /** Resolves when both connections are up and Redis answers (readiness); rejects at once otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * Payloads travel as JSON on the channel `keyway:<topic>` (binary data must be encoded by
 * the publisher, e.g. base64). Every node, the publisher included, receives what it
 * subscribed to through Redis, so one node behaves like many. Pub/sub keeps nothing: a node
 * cut off from Redis misses what is published meanwhile (ioredis reconnects and subscribes
 * again by itself).
 */
export function createRedisBus(
  url: string,
  opts: { topics?: readonly string[]; prefix?: string; log?: Log; readyTimeoutMs?: number } = {},
): RedisBus {
  // Events every node must hear (CROSSES_NODES); the others stay in-process: `alarm.stored`
  // is handled by the node that stored the row, not once per node.
  const crossNode = new Set<string>(opts.topics ?? CROSS_NODE_EVENTS);
  const prefix = opts.prefix ?? "keyway:";
  const log = opts.log ?? { warn: (obj, msg) => console.warn(msg, obj) };
  const local = createInProcessBus();
  const pub = new Redis(url, { connectionName: "keyway-pub" });
  const sub = new Redis(url, { connectionName: "keyway-sub" });
  const handlers = new Map<string, Set<(payload: unknown) => void>>();
  const pending = new Set<Promise<unknown>>();
  let lastError = "";
  for (const [name, client] of [
    ["publisher", pub],
    ["subscriber", sub],
  ] as const) {
    client.on("error", (error: Error) => {
      // ioredis retries on its own; say so once per distinct failure, not once per retry.
      if (error.message === lastError) return;
      lastError = error.message;
      log.warn({ err: error.message }, `redis bus: ${name} connection failed, retrying`);
    });
    client.on("ready", () => {
      lastError = "";
    });
  }

  sub.on("message", (channel: string, message: string) => {
    const set = handlers.get(channel.slice(prefix.length));
    if (!set?.size) return;
    let payload: unknown;
    try {
      payload = JSON.parse(message);
    } catch {
      log.warn({ channel }, "redis bus: a message that is not JSON was dropped");
      return;
    }
    for (const handler of set) {
      try {
        handler(payload);
      } catch {
        // A failing subscriber must not stop the others (as with the in-process bus).
      }
    }
  });

  function track(promise: Promise<unknown>) {
    const settled = promise.catch((error: Error) => {
      log.warn({ err: error.message }, "redis bus: a command failed");
    });
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  }

  return {
    publish(topic, payload) {
      if (!crossNode.has(topic)) return local.publish(topic, payload);
      track(pub.publish(prefix + topic, JSON.stringify(payload)));
    },
    subscribe<T>(topic: string, handler: (payload: T) => void) {
      if (!crossNode.has(topic)) return local.subscribe(topic, handler);
      let set = handlers.get(topic);
      if (!set) {
        set = new Set();
        handlers.set(topic, set);
        track(sub.subscribe(prefix + topic));
      }
      const entry = handler as (payload: unknown) => void;
      set.add(entry);
      return () => {
        const current = handlers.get(topic);
        if (!current?.delete(entry) || current.size > 0) return;
        handlers.delete(topic);
        track(sub.unsubscribe(prefix + topic));
      };
    },
    async ready() {
      const timeoutMs = opts.readyTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis at ${redactUrl(url)} not reachable in ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([Promise.all([pub.ping(), sub.ping(), ...pending]), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async ping() {
      // Not queued behind a reconnect: a connection that is down is the answer.
      for (const [name, client] of [
        ["publisher", pub],
        ["subscriber", sub],
      ] as const) {
        if (client.status !== "ready") throw new Error(`redis ${name} ${client.status}`);
      }
      await pub.ping();
    },
    async close() {
      await Promise.allSettled(
        [pub, sub].map((client) =>
          client.status === "ready" ? client.quit() : Promise.resolve(client.disconnect()),
        ),
      );
    },
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "the configured URL";
  }
}
