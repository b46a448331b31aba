import type { BlackListEntry, WhiteListEntry } from "@keyway/shared";
import { and, count, desc, eq, gt } from "drizzle-orm";
import { fail } from "../../http/envelope.ts";
import { terminals, users } from "../accounts/schema.ts";
import { type AccessContext, type Actor, accountOf, grantValid, MINUTE_MS } from "./lookups.ts";
import { blackList, type VisitGrant, visitGrants } from "./schema.ts";

/** A device's white list (visit times) and black list, as its approvers read and change them. */
export function createLists(ctx: AccessContext) {
  const { db, clock, requireApprover, rightsChanged } = ctx;

  function whiteListEntry(
    r: { grant: VisitGrant; name: string; phone: string | null; email: string | null },
    now: Date,
  ): WhiteListEntry {
    const g = r.grant;
    const left = g.expiresAt ? Math.ceil((g.expiresAt.getTime() - now.getTime()) / MINUTE_MS) : -1;
    return {
      visitTimeId: g.id,
      user_id: g.userId,
      name: r.name,
      ...accountOf(r),
      terminal_name: g.terminalName,
      visitTime: grantValid(g, now) ? left : 0,
      expires_at: g.expiresAt?.toISOString() ?? null,
      created_at: g.createdAt.toISOString(),
    };
  }

  const grantColumns = {
    grant: visitGrants,
    name: users.name,
    phone: users.phone,
    email: users.email,
  };

  /** Valid visit times (infoType 3): grants that let someone in now. */
  async function validVisits(actor: Actor, deviceId: number, start: number, size: number) {
    await requireApprover(actor.userId, deviceId);
    const now = clock.now();
    const rows = await db
      .select(grantColumns)
      .from(visitGrants)
      .innerJoin(users, eq(users.id, visitGrants.userId))
      .where(eq(visitGrants.deviceId, deviceId))
      .orderBy(desc(visitGrants.id));
    const valid = rows.filter((r) => grantValid(r.grant, now));
    return {
      list: valid.slice(start, start + size).map((r) => whiteListEntry(r, now)),
      total: valid.length,
    };
  }

  /** The white list: every visit grant of the device, newest first (visit detail page). */
  async function whiteList(actor: Actor, deviceId: number, page: number, pageSize: number) {
    await requireApprover(actor.userId, deviceId);
    const now = clock.now();
    const where = eq(visitGrants.deviceId, deviceId);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select(grantColumns)
        .from(visitGrants)
        .innerJoin(users, eq(users.id, visitGrants.userId))
        .where(where)
        .orderBy(desc(visitGrants.createdAt), desc(visitGrants.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db.select({ total: count() }).from(visitGrants).where(where),
    ]);
    return { list: rows.map((r) => whiteListEntry(r, now)), total };
  }

  async function blackListOf(actor: Actor, deviceId: number, start: number, size: number) {
    await requireApprover(actor.userId, deviceId);
    const where = eq(blackList.deviceId, deviceId);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({ entry: blackList, name: users.name, phone: users.phone, email: users.email })
        .from(blackList)
        .innerJoin(users, eq(users.id, blackList.userId))
        .where(where)
        .orderBy(desc(blackList.id))
        .limit(size)
        .offset(start),
      db.select({ total: count() }).from(blackList).where(where),
    ]);
    const list: BlackListEntry[] = rows.map((r) => ({
      id: r.entry.id,
      user_id: r.entry.userId,
      name: r.name,
      ...accountOf(r),
      created_at: r.entry.createdAt.toISOString(),
    }));
    return { list, total };
  }

  async function requireGrant(deviceId: number, visitTimeId: number) {
    const [grant] = await db
      .select()
      .from(visitGrants)
      .where(and(eq(visitGrants.id, visitTimeId), eq(visitGrants.deviceId, deviceId)))
      .limit(1);
    if (!grant) throw fail("VISIT_TIME_GONE");
    return grant as VisitGrant;
  }

  /** Clears a visit time (SPEC zeroVisitTime): 01010408 when it already ended or the terminal is gone. */
  async function clearVisitTime(actor: Actor, deviceId: number, visitTimeId: number) {
    await requireApprover(actor.userId, deviceId);
    const grant = await requireGrant(deviceId, visitTimeId);
    const [terminal] = await db
      .select({ id: terminals.id })
      .from(terminals)
      .where(
        and(
          eq(terminals.userId, grant.userId),
          eq(terminals.uuid, grant.terminalUuid),
          gt(terminals.expiresAt, clock.now()),
        ),
      )
      .limit(1);
    if (!grantValid(grant, clock.now()) || !terminal) throw fail("VISIT_TIME_GONE");
    await db
      .update(visitGrants)
      .set({ clearedAt: clock.now() })
      .where(eq(visitGrants.id, grant.id));
    rightsChanged(deviceId, grant.userId);
  }

  /** Sets a visit time: -1 forever, or at least 10 minutes from now. */
  async function setVisitTime(
    actor: Actor,
    deviceId: number,
    visitTimeId: number,
    minutes: number,
  ) {
    await requireApprover(actor.userId, deviceId);
    const grant = await requireGrant(deviceId, visitTimeId);
    const expiresAt = minutes === -1 ? null : new Date(clock.now().getTime() + minutes * MINUTE_MS);
    await db
      .update(visitGrants)
      .set({ expiresAt, clearedAt: null })
      .where(eq(visitGrants.id, grant.id));
    rightsChanged(deviceId, grant.userId);
  }

  return { validVisits, whiteList, blackListOf, clearVisitTime, setVisitTime };
}
