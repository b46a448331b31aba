import {
  ALARM_KANBAN_DEFAULT_DAYS,
  ALARM_KANBAN_MAX_DAYS,
  ALARM_KANBAN_TOP_DEVICES,
  ALARM_LEVEL_KEYS,
  type AlarmKanban,
  type AlarmLevelKey,
  DAY_MS,
} from "@keyway/shared";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { devices } from "../devices/schema.ts";
import { type AlarmContexts, type AlarmFilter, type AlarmViewer, conditions } from "./context.ts";
import { alarms } from "./schema.ts";

/** The viewer's calendar day (YYYY-MM-DD) of an instant, at their offset from UTC. */
function dayOf(time: Date, utcOffset: number): string {
  return new Date(time.getTime() + utcOffset * 60_000).toISOString().slice(0, 10);
}

export function createAlarmKanban(deps: { db: Db; clock: Clock; contexts: AlarmContexts }) {
  const { db, clock } = deps;
  const { contextOf, deviceIn } = deps.contexts;

  /**
   * alarmKanban: counts over a range (default the last 7 days) of the context's devices, by
   * level band, by device (the top ones) and by day at the viewer's offset from UTC.
   */
  async function kanban(
    viewer: AlarmViewer,
    q: AlarmFilter & { utcOffset: number },
  ): Promise<AlarmKanban> {
    const ctx = await contextOf(viewer, q.eid);
    const { scope } = ctx;
    const device = q.deviceCode ? await deviceIn(ctx, q.deviceCode) : undefined;
    const endTime = q.endTime ?? clock.now();
    const startTime =
      q.startTime ?? new Date(endTime.getTime() - ALARM_KANBAN_DEFAULT_DAYS * DAY_MS);
    const span = endTime.getTime() - startTime.getTime();
    if (span < 0 || span > ALARM_KANBAN_MAX_DAYS * DAY_MS) {
      throw AppError.invalid("endTime", "v.alarmRange");
    }
    const where = and(
      ...conditions({ ...q, startTime, endTime, deviceId: device?.deviceId }),
    ) as SQL;
    const band = sql<AlarmLevelKey>`case when ${alarms.level} <= 0 then 'info' when ${alarms.level} = 1 then 'minor' when ${alarms.level} = 2 then 'major' else 'critical' end`;
    // The offset is a validated integer (-840..840), written into the SQL as a literal.
    const shifted = sql`(${alarms.time} at time zone 'UTC') + interval '${sql.raw(String(Math.trunc(q.utcOffset)))} minutes'`;
    const day = sql<string>`to_char(${shifted}, 'YYYY-MM-DD')`;
    const n = sql<number>`cast(count(*) as int)`;
    const [[totals], levels, byDevice, days] = await Promise.all([
      db
        .select({
          total: n,
          unconfirmed: sql<number>`cast(count(*) filter (where ${alarms.confirmedAt} is null) as int)`,
          cleared: sql<number>`cast(count(*) filter (where ${alarms.clearedAt} is not null) as int)`,
        })
        .from(alarms)
        .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
        .where(where),
      db
        .select({ level: band, count: n })
        .from(alarms)
        .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
        .where(where)
        .groupBy(band),
      db
        .select({
          machine_id: alarms.deviceId,
          machine_code: devices.code,
          machine_name: scope.name,
          count: n,
        })
        .from(alarms)
        .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
        .innerJoin(devices, eq(devices.id, alarms.deviceId))
        .where(where)
        .groupBy(alarms.deviceId, devices.code, scope.name)
        .orderBy(desc(n), alarms.deviceId)
        .limit(ALARM_KANBAN_TOP_DEVICES),
      db
        .select({ day, count: n })
        .from(alarms)
        .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
        .where(where)
        .groupBy(day),
    ]);
    const perLevel = new Map(levels.map((l) => [l.level, l.count]));
    const perDay = new Map(days.map((d) => [d.day, d.count]));
    const byDay: AlarmKanban["byDay"] = [];
    const last = dayOf(endTime, q.utcOffset);
    for (let t = startTime.getTime(); ; t += DAY_MS) {
      const d = dayOf(new Date(t), q.utcOffset);
      byDay.push({ day: d, count: perDay.get(d) ?? 0 });
      if (d >= last) break;
    }
    return {
      startTime: startTime.toISOString(),
      endTime: endTime.toISOString(),
      total: totals?.total ?? 0,
      unconfirmed: totals?.unconfirmed ?? 0,
      cleared: totals?.cleared ?? 0,
      byLevel: ALARM_LEVEL_KEYS.map((level) => ({ level, count: perLevel.get(level) ?? 0 })),
      byDevice: byDevice.map((d) => ({ ...d, machine_name: d.machine_name || d.machine_code })),
      byDay,
    };
  }

  return { kanban };
}
