import { TUNNEL_RESET } from "@keyway/protocol";
import { TunnelError } from "@keyway/protocol/mux";
import type { VisitEndReason, VisitKind } from "@keyway/shared";
import { and, eq, isNull } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import type { TunnelHub } from "../tunnel/service.ts";
import { type Visit, visits } from "./schema.ts";
import type { VisitSession } from "./session.ts";

/**
 * The visits open on this node: their sessions (streams, sockets, counters), loaded from
 * their rows on first use, written back by flush() and ended by end().
 */
export function createVisitRegistry(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  events: Events;
  tunnels: TunnelHub;
}) {
  const { db, clock, log, events, tunnels } = deps;
  const sessions = new Map<string, VisitSession>();

  /** Visit id → device (a visit's device never changes); bounded, oldest dropped first. */
  const deviceOfVisit = new Map<string, number>();

  /**
   * The node that holds the tunnel of a visit's device when it is another one (its URL), so
   * that the relay carries the request there; null: here, or unknown (refused here).
   */
  async function nodeOf(id: string): Promise<string | null> {
    let deviceId = sessions.get(id)?.deviceId ?? deviceOfVisit.get(id);
    if (deviceId === undefined) {
      deviceId = (await row(id))?.deviceId;
      if (deviceId === undefined) return null;
      if (deviceOfVisit.size >= 10_000)
        deviceOfVisit.delete(deviceOfVisit.keys().next().value ?? "");
      deviceOfVisit.set(id, deviceId);
    }
    if (tunnels.isOnline(deviceId)) return null;
    return (await tunnels.locate(deviceId))?.node ?? null;
  }

  /** Whether the device of a visit open on this node has its tunnel here (nodeOf's null). */
  function tunnelHere(session: VisitSession): boolean {
    return tunnels.isOnline(session.deviceId);
  }

  /** A visit open on this node whose device's tunnel is here: one the relay needs to ask nobody about. */
  function openHere(id: string): boolean {
    const session = sessions.get(id);
    return session !== undefined && !session.ended && tunnelHere(session);
  }

  async function row(id: string): Promise<Visit | undefined> {
    const [visit] = await db.select().from(visits).where(eq(visits.id, id)).limit(1);
    return visit;
  }

  function sessionOf(visit: Visit): VisitSession {
    const existing = sessions.get(visit.id);
    if (existing) return existing;
    const session: VisitSession = {
      id: visit.id,
      deviceId: visit.deviceId,
      actor: { userId: visit.userId ?? 0, terminalId: visit.terminalId },
      target: visit.target.split(",")[0]?.trim() ?? "",
      kind: visit.kind as VisitKind,
      viewOnly: visit.viewOnly,
      levelWatchers: new Set(),
      cookieHash: visit.cookieHash,
      cookieKnown: null,
      ended: false,
      streams: new Set(),
      sockets: new Set(),
      agent: null,
      jar: new Map(),
      targets: new Set(
        visit.target
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      ),
      targetsDirty: false,
      bytesIn: visit.bytesIn,
      bytesOut: visit.bytesOut,
      flushedIn: visit.bytesIn,
      flushedOut: visit.bytesOut,
      lastActiveAt: clock.ms(),
      lastActiveMs: Date.now(),
      checkedAtMs: 0,
      rightEndsAt: null,
      checking: null,
    };
    sessions.set(visit.id, session);
    return session;
  }

  function touch(session: VisitSession): void {
    session.lastActiveAt = clock.ms();
    session.lastActiveMs = Date.now();
  }

  /** Holds a socket handed over whole so that ending the visit cuts it. */
  function hold(
    session: VisitSession,
    socket: { destroy(error?: Error): void; once: (event: "close", f: () => void) => unknown },
  ) {
    session.sockets.add(socket);
    socket.once("close", () => session.sockets.delete(socket));
  }

  function totals(session: VisitSession) {
    let bytesIn = session.bytesIn;
    let bytesOut = session.bytesOut;
    for (const stream of session.streams) {
      bytesIn += stream.bytesIn;
      bytesOut += stream.bytesOut;
    }
    return { bytesIn, bytesOut };
  }

  /** Ends a visit on this node: its streams and sockets are cut, the row says why. */
  async function end(session: VisitSession, reason: VisitEndReason, by?: number): Promise<void> {
    if (session.ended) return;
    session.ended = true;
    const cut = new TunnelError(TUNNEL_RESET.rightsEnded, `visit ended: ${reason}`);
    for (const stream of session.streams) stream.destroy(cut);
    for (const socket of session.sockets) socket.destroy();
    session.agent?.destroy();
    const { bytesIn, bytesOut } = totals(session);
    const now = clock.now();
    try {
      await db
        .update(visits)
        .set({
          endedAt: now,
          endReason: reason,
          endedBy: by ?? null,
          bytesIn,
          bytesOut,
          lastActiveAt: new Date(session.lastActiveAt),
          target: [...session.targets].join(", ") || session.target,
        })
        .where(and(eq(visits.id, session.id), isNull(visits.endedAt)));
    } finally {
      // Only now: a request in between finds the ended session (410), not a row that still
      // looks open and would be checked again (403).
      sessions.delete(session.id);
    }
    log.info({ visit: session.id, reason }, "visit ended");
    events.publish("visit.ended", { visitId: session.id, reason });
  }

  /** Bytes and last activity of open visits go to their rows every re-check. */
  async function flush(session: VisitSession): Promise<void> {
    const { bytesIn, bytesOut } = totals(session);
    if (bytesIn === session.flushedIn && bytesOut === session.flushedOut && !session.targetsDirty)
      return;
    session.flushedIn = bytesIn;
    session.flushedOut = bytesOut;
    session.targetsDirty = false;
    await db
      .update(visits)
      .set({
        bytesIn,
        bytesOut,
        lastActiveAt: new Date(session.lastActiveAt),
        target: [...session.targets].join(", ") || session.target,
      })
      .where(and(eq(visits.id, session.id), isNull(visits.endedAt)));
  }

  return {
    sessions,
    nodeOf,
    tunnelHere,
    openHere,
    row,
    sessionOf,
    touch,
    hold,
    totals,
    end,
    flush,
  };
}

export type VisitRegistry = ReturnType<typeof createVisitRegistry>;
