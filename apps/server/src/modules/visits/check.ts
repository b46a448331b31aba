import type { ConnectRight, HwKey, VisitEndReason } from "@keyway/shared";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Actor } from "../access/service.ts";
import { terminals } from "../accounts/schema.ts";
import type { VisitSession } from "./session.ts";

/** Why a refused right ends a visit. */
function endReasonFor(key: HwKey): VisitEndReason {
  if (key === "VISIT_TIMEOUT") return "visit_time_expired";
  if (key === "CLOUD_CLOSED") return "cloud_closed";
  return "rights_revoked";
}

/** A passed check serves new streams this long (ms); rights events force a new one. */
const FRESH_MS = 1000;

/**
 * Whether the visit's last check still serves (passed within FRESH_MS, its right not run
 * out, the visit not ended): what lets the relay take a request without waiting.
 */
export function checkHolds(session: VisitSession, clock: Clock): boolean {
  return (
    !session.ended &&
    Date.now() - session.checkedAtMs < FRESH_MS &&
    (!session.rightEndsAt || session.rightEndsAt.getTime() > clock.ms())
  );
}

/** The rights check of an open visit: the terminal still signed in, `access.rights` holding. */
export function createVisitCheck(deps: {
  db: Db;
  clock: Clock;
  access: { rights(actor: Actor, deviceId: number): Promise<ConnectRight> };
  end: (session: VisitSession, reason: VisitEndReason) => Promise<void>;
}) {
  const { db, clock, access, end } = deps;
  /** The visitor's terminal still signed in: built once, run by every check (decision 231). */
  const terminalLive = db
    .select({ id: terminals.id })
    .from(terminals)
    .where(
      and(
        eq(terminals.id, sql.placeholder("terminalId")),
        eq(terminals.userId, sql.placeholder("userId")),
        gt(terminals.expiresAt, sql.placeholder("now")),
      ),
    )
    .limit(1)
    .prepare("visits_terminal_live");

  /**
   * The rights check of a visit. `force`: always ask again (periodic and event re-checks);
   * otherwise a check that passed within a second (and whose right has not run out) serves.
   * A refused right ends the visit; the refusal is thrown.
   */
  async function check(session: VisitSession, force: boolean): Promise<void> {
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    if (!force) {
      if (checkHolds(session, clock)) return;
      if (session.checking) return session.checking;
    } else if (session.checking) {
      // A check begun before the change may have read the old right: ask once more.
      await session.checking.catch(() => {});
    }
    const run = (async () => {
      try {
        const [terminal] = await terminalLive.execute({
          terminalId: session.actor.terminalId,
          userId: session.actor.userId,
          now: clock.now(),
        });
        // The visitor signed out on that terminal (or its session ran out): the visit goes too.
        if (!terminal) {
          await end(session, "rights_revoked");
          throw new AppError("VISIT_ENDED", null, 410);
        }
        const right = await access.rights(session.actor, session.deviceId);
        session.checkedAtMs = Date.now();
        session.rightEndsAt = right.expires_at ? new Date(right.expires_at) : null;
        // The member level applies from this check on, either way.
        const viewOnly = !right.write;
        if (viewOnly !== session.viewOnly) {
          session.viewOnly = viewOnly;
          for (const watcher of session.levelWatchers) watcher(viewOnly);
        }
      } catch (error) {
        if (error instanceof AppError && error.key !== "VISIT_ENDED") {
          await end(session, endReasonFor(error.key));
        }
        throw error;
      }
    })();
    session.checking = run;
    try {
      await run;
    } finally {
      if (session.checking === run) session.checking = null;
    }
  }

  return check;
}
