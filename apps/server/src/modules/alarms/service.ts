import type { AlarmEntry, AlarmListResult, AlarmResetResult } from "@keyway/shared";
import { and, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import {
  type AlarmFilter,
  type AlarmViewer,
  type ContextDeps,
  conditions,
  createAlarmContexts,
  type DeviceScope,
} from "./context.ts";
import { createAlarmKanban } from "./kanban.ts";
import { confirmAllOfDevice } from "./marks.ts";
import { alarms } from "./schema.ts";

export type { AlarmFilter, AlarmViewer } from "./context.ts";
export type AlarmService = ReturnType<typeof createAlarmService>;

const confirmer = alias(users, "confirmer");
const clearer = alias(users, "clearer");

/**
 * The alarm centre: the alarms of every device the viewer sees in a context (personal list,
 * or an enterprise's lists as the enterprises module allows), their confirmation and reset,
 * and statistics. Which devices a context holds is the permissions module's rule
 * (`personalScope`, and `enterpriseScope` behind the enterprises module's membership check),
 * as is confirm-all (docs/architecture/permissions.md). Statistics: kanban.ts.
 */
export function createAlarmService(deps: ContextDeps & { clock: Clock }) {
  const { db, clock } = deps;
  const contexts = createAlarmContexts(deps);
  const { contextOf, rightsOf, deviceIn } = contexts;

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
      const confirmed = await confirmAllOfDevice(tx, device.deviceId, viewer.userId, now);
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

  return { list, confirm, reset, ...createAlarmKanban({ db, clock, contexts }) };
}
