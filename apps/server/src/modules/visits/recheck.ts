import { and, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { VisitRegistry } from "./registry.ts";
import { visits } from "./schema.ts";
import type { VisitSession } from "./session.ts";

/**
 * Open visits re-checked every `recheckMs` and at once when a right may have changed (events
 * every node hears); idle ones ended, and those a stopped process left running.
 */
export function createVisitRecheck(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  events: Events;
  registry: VisitRegistry;
  check: (session: VisitSession, force: boolean) => Promise<void>;
  recheckMs: number;
  idleMs: number;
}) {
  const { db, clock, log, events, check, recheckMs, idleMs } = deps;
  const { sessions, end, flush } = deps.registry;

  let sweeping = false;
  let lastOrphanSweep = 0;
  async function sweep(): Promise<void> {
    if (sweeping) return;
    sweeping = true;
    try {
      const now = clock.now();
      for (const session of [...sessions.values()]) {
        if (session.ended) continue;
        try {
          const busy = session.streams.size > 0 || session.sockets.size > 0;
          if (!busy && now.getTime() - session.lastActiveAt > idleMs) {
            await end(session, "idle");
            continue;
          }
          if (busy || Date.now() - session.lastActiveMs < recheckMs * 2)
            await check(session, true).catch((error) => {
              if (!(error instanceof AppError)) throw error;
            });
          if (!session.ended) await flush(session);
        } catch (error) {
          log.warn({ err: error, visit: session.id }, "visit re-check failed");
        }
      }
      // Visits left running by a stopped process end once idle (nobody holds their streams).
      if (Date.now() - lastOrphanSweep > 60_000) {
        lastOrphanSweep = Date.now();
        const stale = new Date(now.getTime() - idleMs);
        const held = [...sessions.keys()];
        const orphans = await db
          .select({ id: visits.id })
          .from(visits)
          .where(
            and(
              isNull(visits.endedAt),
              isNotNull(visits.startedAt),
              lt(visits.lastActiveAt, stale),
            ),
          )
          .limit(500);
        const ids = orphans.map((o) => o.id).filter((id) => !held.includes(id));
        if (ids.length)
          await db
            .update(visits)
            .set({ endedAt: now, endReason: "idle" })
            .where(and(inArray(visits.id, ids), isNull(visits.endedAt)));
      }
    } catch (error) {
      log.warn({ err: error }, "visit sweep failed");
    } finally {
      sweeping = false;
    }
  }
  const timer = setInterval(() => void sweep(), recheckMs);
  timer.unref();

  /** Re-checks this node's open visits of a device (of one user when given) now. */
  function recheckDevice(deviceId: number, userId?: number): void {
    for (const session of sessions.values()) {
      if (session.deviceId !== deviceId) continue;
      if (userId !== undefined && session.actor.userId !== userId) continue;
      check(session, true).catch((error) => {
        if (!(error instanceof AppError)) log.warn({ err: error }, "visit re-check failed");
      });
    }
  }

  // Every node hears these (src/events.ts) and acts on the visits it holds.
  const unsubscribe = [
    events.subscribe("rights.changed", (m) => recheckDevice(m.deviceId, m.userId)),
    events.subscribe("visit.ended", (m) => {
      const session = sessions.get(m.visitId);
      if (session) void end(session, m.reason);
    }),
    events.subscribe("tunnel.link", (m) => linkChanged(m.deviceId)),
  ];

  /** A device's tunnel went away or came back: its visits' pooled connections are stale. */
  function linkChanged(deviceId: number): void {
    for (const session of sessions.values()) {
      if (session.deviceId !== deviceId || !session.agent) continue;
      session.agent.destroy();
      session.agent = null;
    }
  }

  /** Stops the re-checks (the node is closing). */
  function stop(): void {
    clearInterval(timer);
    for (const off of unsubscribe) off();
  }

  return { sweep, stop };
}
