import {
  ALARM_KANBAN_DEFAULT_DAYS,
  ALARM_KANBAN_MAX_DAYS,
  ALARM_KANBAN_TOP_DEVICES,
  ALARM_LEVEL_KEYS,
  ALARM_LEVEL_RANGES,
  type AlarmEntry,
  type AlarmKanban,
  type AlarmLevelKey,
  type AlarmListResult,
  type AlarmResetResult,
  type AlarmRights,
  type AlarmStateFilter,
  DAY_MS,
} from "@keyway/shared";
import { and, count, desc, eq, gte, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";
import { alarms } from "./schema.ts";

export type AlarmService = ReturnType<typeof createAlarmService>;

export interface AlarmViewer {
  userId: number;
  role: "user" | "operator";
}

/** The devices a viewer sees in one context, with their identity on each (see the scopes). */
type DeviceScope = ReturnType<DeviceService["personalScope"]>;
interface Context {
  scope: DeviceScope;
  isAdmin: boolean;
  isMaintenanceMember: boolean;
}

export interface AlarmFilter {
  eid: number;
  deviceCode?: string;
  level?: AlarmLevelKey;
  state?: AlarmStateFilter;
  startTime?: Date;
  endTime?: Date;
}

const confirmer = alias(users, "confirmer");
const clearer = alias(users, "clearer");

/** The viewer's calendar day (YYYY-MM-DD) of an instant, at their offset from UTC. */
function dayOf(time: Date, utcOffset: number): string {
  return new Date(time.getTime() + utcOffset * 60_000).toISOString().slice(0, 10);
}

/**
 * The alarm centre: the alarms of every device the viewer sees in a context (personal list,
 * or an enterprise's lists as the enterprises module allows), their confirmation and reset,
 * and statistics. Which devices a context holds is the devices' and enterprises' rule
 * (`personalScope`, `enterpriseScope`); confirm-all is the access module's.
 */
export function createAlarmService(deps: {
  db: Db;
  clock: Clock;
  personalScope: (userId: number) => DeviceScope;
  enterpriseScope: (viewer: AlarmViewer, eid: number) => Promise<Context>;
  mayConfirmAll: (userId: number, deviceId: number) => Promise<boolean>;
}) {
  const { db, clock } = deps;

  async function contextOf(viewer: AlarmViewer, eid: number): Promise<Context> {
    if (eid === 0) {
      return {
        scope: deps.personalScope(viewer.userId),
        isAdmin: false,
        isMaintenanceMember: false,
      };
    }
    return deps.enterpriseScope(viewer, eid);
  }

  /**
   * Who may do what with a device's alarms. Personal: the Akey and Bkeys confirm and reset,
   * an ordinary user with write level confirms, a visitor or read-only user only reads.
   * Enterprise: whoever sees the device confirms; its admins, and the maintenance members
   * for a maintained device, reset. Confirm-all: the access module's rule (SPEC §6).
   */
  async function rightsOf(
    ctx: Context,
    viewer: AlarmViewer,
    row: { deviceId: number; role: string; canWrite: boolean; maintained: boolean },
  ): Promise<AlarmRights> {
    const manager = row.role === "akey" || row.role === "bkey";
    const enterprise = row.role === "enterprise";
    return {
      confirm: manager || enterprise || (row.role === "user" && row.canWrite),
      reset:
        manager || (enterprise && (ctx.isAdmin || (row.maintained && ctx.isMaintenanceMember))),
      confirmAll: await deps.mayConfirmAll(viewer.userId, row.deviceId),
    };
  }

  /** A device of the context by its code; others (and unknown codes) look the same. */
  async function deviceIn(ctx: Context, code: string) {
    const { scope } = ctx;
    const [row] = await db
      .select({
        deviceId: devices.id,
        code: devices.code,
        role: scope.role,
        canWrite: scope.canWrite,
        maintained: scope.maintained,
      })
      .from(scope)
      .innerJoin(devices, eq(devices.id, scope.deviceId))
      .where(eq(devices.code, code))
      .limit(1);
    if (!row) throw fail("EDIT_MACHINE_NOT_FOUND");
    return row;
  }

  function conditions(f: Omit<AlarmFilter, "eid" | "deviceCode"> & { deviceId?: number }) {
    const where: SQL[] = [];
    if (f.deviceId !== undefined) where.push(eq(alarms.deviceId, f.deviceId));
    if (f.level) {
      const [min, max] = ALARM_LEVEL_RANGES[f.level];
      where.push(lte(alarms.level, max));
      if (f.level !== "info") where.push(gte(alarms.level, min));
    }
    if (f.state === "unconfirmed") where.push(isNull(alarms.confirmedAt));
    if (f.state === "confirmed") where.push(isNotNull(alarms.confirmedAt));
    if (f.state === "cleared") where.push(isNotNull(alarms.clearedAt));
    if (f.state === "active") where.push(isNull(alarms.clearedAt));
    if (f.startTime) where.push(gte(alarms.time, f.startTime));
    if (f.endTime) where.push(lte(alarms.time, f.endTime));
    return where;
  }

  async function entries(
    scope: DeviceScope,
    where: SQL[],
    page: { limit: number; offset: number },
  ): Promise<AlarmEntry[]> {
    const rows = await db
      .select({
        alarm: alarms,
        code: devices.code,
        name: scope.name,
        confirmedBy: confirmer.name,
        clearedBy: clearer.name,
      })
      .from(alarms)
      .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
      .innerJoin(devices, eq(devices.id, alarms.deviceId))
      .leftJoin(confirmer, eq(confirmer.id, alarms.confirmedBy))
      .leftJoin(clearer, eq(clearer.id, alarms.clearedBy))
      .where(and(...where))
      .orderBy(desc(alarms.time), desc(alarms.id))
      .limit(page.limit)
      .offset(page.offset);
    return rows.map(({ alarm: a, ...r }) => ({
      id: a.id,
      machine_id: a.deviceId,
      machine_code: r.code,
      machine_name: r.name || r.code,
      type: a.type,
      variable: a.variable,
      level: a.level,
      content: a.content,
      time: a.time.toISOString(),
      time_zone: a.timeZone,
      created_at: a.createdAt.toISOString(),
      confirmed: a.confirmedAt ? 1 : 0,
      confirmed_at: a.confirmedAt?.toISOString() ?? null,
      confirmed_by: a.confirmedAt ? (r.confirmedBy ?? "") : null,
      cleared: a.clearedAt ? 1 : 0,
      cleared_at: a.clearedAt?.toISOString() ?? null,
      cleared_by: r.clearedBy ?? null,
    }));
  }

  /**
   * Alarms of the context's devices (or of one, with what the viewer may do with it),
   * newest first.
   */
  async function list(
    viewer: AlarmViewer,
    q: AlarmFilter & { page: number; pageSize: number },
  ): Promise<AlarmListResult> {
    const ctx = await contextOf(viewer, q.eid);
    const device = q.deviceCode ? await deviceIn(ctx, q.deviceCode) : undefined;
    const where = conditions({ ...q, deviceId: device?.deviceId });
    const [list, [{ total }], rights] = await Promise.all([
      entries(ctx.scope, where, { limit: q.pageSize, offset: (q.page - 1) * q.pageSize }),
      db
        .select({ total: count() })
        .from(alarms)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, alarms.deviceId))
        .where(and(...where)),
      device ? rightsOf(ctx, viewer, device) : undefined,
    ]);
    return device ? { list, total, rights, machine_id: device.deviceId } : { list, total };
  }

  /** Confirms one alarm; confirming a confirmed alarm keeps its first confirmation. */
  async function confirm(viewer: AlarmViewer, eid: number, alarmId: number): Promise<AlarmEntry> {
    const ctx = await contextOf(viewer, eid);
    const { scope } = ctx;
    const [row] = await db
      .select({
        deviceId: alarms.deviceId,
        role: scope.role,
        canWrite: scope.canWrite,
        maintained: scope.maintained,
      })
      .from(alarms)
      .innerJoin(scope, eq(scope.deviceId, alarms.deviceId))
      .where(eq(alarms.id, alarmId))
      .limit(1);
    // Another context's alarm and a missing one look the same.
    if (!row) throw fail("ALARM_NOT_FOUND");
    if (!(await rightsOf(ctx, viewer, row)).confirm) throw fail("DEVICE_NO_PERMISSION");
    await db
      .update(alarms)
      .set({ confirmedAt: clock.now(), confirmedBy: viewer.userId })
      .where(and(eq(alarms.id, alarmId), isNull(alarms.confirmedAt)));
    const [entry] = await entries(scope, [eq(alarms.id, alarmId)], { limit: 1, offset: 0 });
    return entry;
  }

  /**
   * imageReset: the device's alarms are dealt with. Every alarm still on is cleared, and
   * every one not yet confirmed is confirmed, by the viewer, at once.
   */
  async function reset(
    viewer: AlarmViewer,
    eid: number,
    deviceCode: string,
  ): Promise<AlarmResetResult> {
    const ctx = await contextOf(viewer, eid);
    const device = await deviceIn(ctx, deviceCode);
    if (!(await rightsOf(ctx, viewer, device)).reset) throw fail("DEVICE_NO_PERMISSION");
    const now = clock.now();
    const { confirmed, cleared } = await db.transaction(async (tx) => {
      const confirmed = await tx
        .update(alarms)
        .set({ confirmedAt: now, confirmedBy: viewer.userId })
        .where(and(eq(alarms.deviceId, device.deviceId), isNull(alarms.confirmedAt)))
        .returning({ id: alarms.id });
      const cleared = await tx
        .update(alarms)
        .set({ clearedAt: now, clearedBy: viewer.userId })
        .where(and(eq(alarms.deviceId, device.deviceId), isNull(alarms.clearedAt)))
        .returning({ id: alarms.id });
      return { confirmed, cleared };
    });
    return {
      machine_id: device.deviceId,
      cleared: cleared.length,
      confirmed: confirmed.length,
    };
  }

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

  return { list, confirm, reset, kanban };
}
