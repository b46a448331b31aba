import { PUSH_STATS_DAYS, type PushStats, type PushStatsDay } from "@keyway/shared";
import { and, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { alarmSends, smsAccounts } from "./schema.ts";

const DAY_MS = 86_400_000;

/** Statuses that used SMS stock: billed when claimed, refunded only when the provider refused. */
const BILLED = ["sent", "sending", "uncertain"] as const;
/** Not delivered: the provider refused, or a cap / an empty stock stopped it. */
const NOT_SENT = ["failed", "skipped"] as const;

/**
 * The data centre's push statistics: sends per day of the last PUSH_STATS_DAYS days (SMS and
 * e-mail, delivered and not) and the SMS stock used per day, for the same sends the records
 * show (the billed account: accountEid / accountUserId).
 */
export function createPushStats(deps: {
  db: Db;
  clock: Clock;
  /** The push service's membership check (refuses a non-member). */
  push: { requireMember: (userId: number, eid: number) => Promise<{ admin: boolean }> };
}) {
  const { db, clock } = deps;

  return async function statistics(
    userId: number,
    q: { eid: number; utcOffset: number },
  ): Promise<PushStats> {
    let mine = true;
    if (q.eid > 0) mine = !(await deps.push.requireMember(userId, q.eid)).admin;
    const owner: SQL[] = [eq(alarmSends.accountEid, q.eid)];
    if (mine) owner.push(eq(alarmSends.accountUserId, userId));
    const account: SQL[] = [eq(smsAccounts.eid, q.eid)];
    if (mine) account.push(eq(smsAccounts.userId, userId));

    // Day boundaries in the viewer's offset: today and the days before it.
    const offsetMs = q.utcOffset * 60_000;
    const now = clock.now().getTime();
    const todayStart = Math.floor((now + offsetMs) / DAY_MS) * DAY_MS - offsetMs;
    const start = new Date(todayStart - (PUSH_STATS_DAYS - 1) * DAY_MS);
    const dayOf = (t: number) => new Date(t + offsetMs).toISOString().slice(0, 10);
    const days = new Map<string, PushStatsDay>();
    for (let i = 0; i < PUSH_STATS_DAYS; i++) {
      const day = dayOf(start.getTime() + i * DAY_MS);
      days.set(day, { day, smsSent: 0, smsFailed: 0, emailSent: 0, emailFailed: 0, smsUsed: 0 });
    }

    // Grouped in the database by the viewer's day (offset applied before truncating). The
    // offset is inlined (a checked integer): a bound parameter would make the SELECT and
    // GROUP BY expressions differ for PostgreSQL.
    const minutes = sql.raw(String(Math.trunc(q.utcOffset)));
    const dayExpr = sql<string>`to_char((${alarmSends.createdAt} at time zone 'UTC') + interval '1 minute' * ${minutes}, 'YYYY-MM-DD')`;
    const [rows, [stock]] = await Promise.all([
      db
        .select({
          day: dayExpr,
          channel: alarmSends.channel,
          status: alarmSends.status,
          n: sql<number>`count(*)::int`,
          segments: sql<number>`coalesce(sum(${alarmSends.segments}), 0)::int`,
        })
        .from(alarmSends)
        .where(
          and(
            ...owner,
            inArray(alarmSends.channel, ["sms", "email"]),
            gte(alarmSends.createdAt, start),
          ),
        )
        .groupBy(dayExpr, alarmSends.channel, alarmSends.status),
      db
        .select({
          balance: sql<number>`coalesce(sum(${smsAccounts.balance}), 0)::int`,
          used: sql<number>`coalesce(sum(${smsAccounts.used}), 0)::int`,
        })
        .from(smsAccounts)
        .where(and(...account)),
    ]);
    for (const r of rows) {
      const d = days.get(r.day);
      if (!d) continue;
      const sent = r.status === "sent";
      const notSent = (NOT_SENT as readonly string[]).includes(r.status);
      if (r.channel === "sms") {
        if (sent) d.smsSent += r.n;
        if (notSent) d.smsFailed += r.n;
        if ((BILLED as readonly string[]).includes(r.status)) d.smsUsed += r.segments;
      } else {
        if (sent) d.emailSent += r.n;
        if (notSent) d.emailFailed += r.n;
      }
    }
    const byDay = [...days.values()];
    const totals = { smsSent: 0, smsFailed: 0, emailSent: 0, emailFailed: 0, smsUsed: 0 };
    for (const d of byDay)
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += d[key];
    return {
      eid: q.eid,
      scope: mine ? "mine" : "enterprise",
      byDay,
      totals,
      stock: { balance: Number(stock?.balance ?? 0), used: Number(stock?.used ?? 0) },
    };
  };
}

export type PushStatistics = ReturnType<typeof createPushStats>;
