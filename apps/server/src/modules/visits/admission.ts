import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken, sameSecret } from "../../infra/crypto.ts";
import type { Actor } from "../access/service.ts";
import { checkHolds } from "./check.ts";
import type { VisitRegistry } from "./registry.ts";
import { visits } from "./schema.ts";
import type { VisitSession } from "./session.ts";

/**
 * The ways into an open visit: the first open of its URL (the ticket), the browser's visit
 * cookie (or path key), and the visit's own user and terminal through the API. Each passes
 * the rights check.
 */
export function createVisitAdmission(deps: {
  db: Db;
  clock: Clock;
  registry: VisitRegistry;
  check: (session: VisitSession, force: boolean) => Promise<void>;
}) {
  const { db, clock, check } = deps;
  const { sessions, row, sessionOf } = deps.registry;

  /**
   * The first open of a visit URL: its one-time ticket becomes the visit cookie. Refused when
   * the ticket is wrong, used or late, or the right no longer holds. `screen`: the viewer's
   * WebSocket claims it; a screen visit's ticket opens nothing else, and nothing else's opens
   * a screen (refused before the ticket is spent).
   */
  async function claim(
    id: string,
    ticket: string,
    screen = false,
  ): Promise<{ session: VisitSession; cookie: string }> {
    const visit = await row(id);
    const now = clock.now();
    if (!visit?.ticketHash || visit.ticketHash !== hashToken(ticket))
      throw new AppError("VISIT_LINK_INVALID", null, 403);
    if ((visit.kind === "screen") !== screen) throw new AppError("VISIT_LINK_INVALID", null, 403);
    if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
    if (visit.urlExpiresAt <= now) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const cookie = newToken();
    const [claimed] = await db
      .update(visits)
      .set({ ticketHash: null, cookieHash: hashToken(cookie), startedAt: now, lastActiveAt: now })
      .where(
        and(eq(visits.id, id), eq(visits.ticketHash, visit.ticketHash), isNull(visits.endedAt)),
      )
      .returning();
    if (!claimed) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const session = sessionOf(claimed);
    session.cookieHash = claimed.cookieHash;
    session.cookieKnown = null;
    await check(session, true);
    return { session, cookie };
  }

  /** The visit a browser's visit cookie belongs to; refused for any other cookie. */
  async function byCookie(id: string, cookie: string | undefined): Promise<VisitSession> {
    if (!cookie) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const hash = hashToken(cookie);
    let session = sessions.get(id);
    if (!session) {
      const visit = await row(id);
      if (!visit || visit.cookieHash !== hash) throw new AppError("VISIT_LINK_INVALID", null, 403);
      if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
      session = sessionOf(visit);
    }
    if (session.cookieHash !== hash) throw new AppError("VISIT_LINK_INVALID", null, 403);
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    await check(session, false);
    session.cookieKnown = cookie;
    return session;
  }

  /**
   * byCookie's answer when it needs no wait: a visit open on this node, the very cookie it
   * last admitted (compared in constant time, without hashing it again), a check that still
   * holds. Null otherwise: byCookie decides (and refuses) then.
   */
  function byCookieNow(id: string, cookie: string | undefined): VisitSession | null {
    const session = sessions.get(id);
    const known = session?.cookieKnown;
    if (!session || !known || !cookie || !sameSecret(cookie, known)) return null;
    return checkHolds(session, clock) ? session : null;
  }

  /** A visit used by its own user and terminal through the API (TCP forwards). */
  async function byCaller(id: string, actor: Actor): Promise<VisitSession> {
    let session = sessions.get(id);
    if (!session) {
      const visit = await row(id);
      if (!visit || visit.userId !== actor.userId || visit.terminalId !== actor.terminalId)
        throw new AppError("VISIT_NOT_FOUND", null, 404);
      if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
      const now = clock.now();
      if (!visit.startedAt) {
        // Forwarded before it was opened in a browser: the link is spent.
        await db
          .update(visits)
          .set({ startedAt: now, lastActiveAt: now, ticketHash: null })
          .where(and(eq(visits.id, id), isNull(visits.startedAt)));
      }
      session = sessionOf(visit);
    }
    if (session.actor.userId !== actor.userId || session.actor.terminalId !== actor.terminalId)
      throw new AppError("VISIT_NOT_FOUND", null, 404);
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    await check(session, false);
    return session;
  }

  return { claim, byCookie, byCookieNow, byCaller };
}
