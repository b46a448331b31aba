import {
  DAY_MS,
  IOT_CARD_INFO_LAG_HOURS,
  IOT_CARD_STATES,
  type IotCardState,
  type IotCardTraffic,
  type IotCardView,
} from "@keyway/shared";
import { and, asc, desc, gte, inArray, lt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { VisibleCard } from "./context.ts";
import { iotCardSnapshots } from "./schema.ts";

const dayOf = (d: Date, utcOffset: number) =>
  new Date(d.getTime() + utcOffset * 60_000).toISOString().slice(0, 10);

/**
 * The data centre's card traffic: totals of the cards in use, counts by state, the
 * biggest users, and traffic per day from consecutive readings (a drop means a new cycle,
 * so the reading itself is that cycle's traffic so far).
 */
export function createCardTraffic(deps: {
  db: Db;
  clock: Clock;
  view: (row: VisibleCard) => IotCardView;
}) {
  const { db, clock, view } = deps;
  return async function traffic(
    rows: VisibleCard[],
    q: { days: number; utcOffset: number },
  ): Promise<IotCardTraffic> {
    const now = clock.now();
    const inUse = rows.filter((r) => r.card.removedAt === null);
    const byState = new Map<IotCardState, number>();
    for (const r of rows)
      byState.set(
        r.card.state as IotCardState,
        (byState.get(r.card.state as IotCardState) ?? 0) + 1,
      );
    let total = 0;
    let used = 0;
    for (const r of inUse) {
      total += r.card.totalKb ?? 0;
      used += r.card.usedKb ?? 0;
    }
    // Day boundaries in the viewer's offset: today and the days before it.
    const offsetMs = q.utcOffset * 60_000;
    const todayStart = Math.floor((now.getTime() + offsetMs) / DAY_MS) * DAY_MS - offsetMs;
    const start = new Date(todayStart - (q.days - 1) * DAY_MS);
    const days = new Map<string, number>();
    for (let i = 0; i < q.days; i++)
      days.set(dayOf(new Date(start.getTime() + i * DAY_MS), q.utcOffset), 0);
    const ids = rows.map((r) => r.card.id);
    if (ids.length > 0) {
      // Each card's readings in the range, plus the last one before it (the baseline).
      const [inRange, before] = await Promise.all([
        db
          .select()
          .from(iotCardSnapshots)
          .where(and(inArray(iotCardSnapshots.cardId, ids), gte(iotCardSnapshots.takenAt, start)))
          .orderBy(asc(iotCardSnapshots.cardId), asc(iotCardSnapshots.takenAt)),
        db
          .selectDistinctOn([iotCardSnapshots.cardId])
          .from(iotCardSnapshots)
          .where(and(inArray(iotCardSnapshots.cardId, ids), lt(iotCardSnapshots.takenAt, start)))
          .orderBy(asc(iotCardSnapshots.cardId), desc(iotCardSnapshots.takenAt)),
      ]);
      const last = new Map<number, number | null>(before.map((s) => [s.cardId, s.usedKb]));
      for (const s of inRange) {
        const prev = last.get(s.cardId);
        last.set(s.cardId, s.usedKb);
        if (prev === undefined || prev === null || s.usedKb === null) continue;
        const delta = s.usedKb >= prev ? s.usedKb - prev : s.usedKb;
        const day = dayOf(s.takenAt, q.utcOffset);
        if (days.has(day)) days.set(day, (days.get(day) ?? 0) + delta);
      }
    }
    const byCard = [...inUse]
      .sort((a, b) => (b.card.usedKb ?? 0) - (a.card.usedKb ?? 0))
      .slice(0, 10)
      .map((r) => {
        const v = view(r);
        return {
          iccid: v.iccid,
          machine_name: v.machine_name,
          used_kb: v.used_kb ?? 0,
          left_kb: v.left_kb,
          total_kb: v.total_kb,
        };
      });
    const views = inUse.map(view);
    return {
      cards: inUse.length,
      total_kb: total,
      used_kb: used,
      left_kb: Math.max(0, total - used),
      low_traffic: views.filter((v) => v.low_traffic === 1).length,
      expiring: views.filter((v) => v.expiring === 1).length,
      byState: IOT_CARD_STATES.filter((s) => byState.has(s)).map((state) => ({
        state,
        count: byState.get(state) ?? 0,
      })),
      byDay: [...days].map(([day, kb]) => ({ day, used_kb: Math.round(kb) })),
      byCard,
      lag_hours: { ...IOT_CARD_INFO_LAG_HOURS },
    };
  };
}
