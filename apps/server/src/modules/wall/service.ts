import { WALL_MAX_TILES, type WallResult } from "@keyway/shared";
import { and, asc, count, desc, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { alarms } from "../alarms/schema.ts";
import type { AlarmViewer } from "../alarms/service.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";

export type WallService = ReturnType<typeof createWallService>;

/** The devices a viewer sees in one context (the devices' and enterprises' rule). */
type DeviceScope = ReturnType<DeviceService["personalScope"]>;

/**
 * The TV-box device wall: every device of the viewer's context with its online state, its
 * alarms not yet confirmed and its newest alarm, in three queries whatever the device count.
 * Which devices a context holds is decided by `personalScope` / `enterpriseScope` (an
 * enterprise the viewer does not belong to is refused there).
 */
export function createWallService(deps: {
  db: Db;
  personalScope: (userId: number) => DeviceScope;
  enterpriseScope: (viewer: AlarmViewer, eid: number) => Promise<{ scope: DeviceScope }>;
}) {
  const { db } = deps;

  async function wall(viewer: AlarmViewer, eid: number): Promise<WallResult> {
    const scope =
      eid === 0
        ? deps.personalScope(viewer.userId)
        : (await deps.enterpriseScope(viewer, eid)).scope;
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({
          id: devices.id,
          code: devices.code,
          name: scope.name,
          online: devices.online,
        })
        .from(scope)
        .innerJoin(devices, eq(devices.id, scope.deviceId))
        .orderBy(asc(scope.name), asc(devices.id))
        .limit(WALL_MAX_TILES),
      db.select({ total: count() }).from(scope),
    ]);
    const ids = rows.map((r) => r.id);
    if (ids.length === 0) return { list: [], total };

    const [counts, latest] = await Promise.all([
      db
        .select({ deviceId: alarms.deviceId, n: count() })
        .from(alarms)
        .where(and(inArray(alarms.deviceId, ids), isNull(alarms.confirmedAt)))
        .groupBy(alarms.deviceId),
      db
        .selectDistinctOn([alarms.deviceId])
        .from(alarms)
        .where(inArray(alarms.deviceId, ids))
        .orderBy(alarms.deviceId, desc(alarms.time), desc(alarms.id)),
    ]);
    const unconfirmed = new Map(counts.map((c) => [c.deviceId, c.n]));
    const newest = new Map(latest.map((a) => [a.deviceId, a]));

    return {
      total,
      list: rows.map((r) => {
        const a = newest.get(r.id);
        return {
          machine_id: r.id,
          machine_code: r.code,
          machine_name: r.name || r.code,
          state: r.online ? 1 : 0,
          online: r.online,
          unconfirmed: unconfirmed.get(r.id) ?? 0,
          latest_alarm: a
            ? {
                id: a.id,
                level: a.level,
                content: a.content,
                time: a.time.toISOString(),
                confirmed: a.confirmedAt ? 1 : 0,
                cleared: a.clearedAt ? 1 : 0,
              }
            : null,
        };
      }),
    };
  }

  return { wall };
}
