import type { MapPoint, MapPointsResult } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices } from "../enterprises/schema.ts";
import type { EnterpriseService, Viewer } from "../enterprises/service.ts";

/** The device columns a map point shows (never the hashes). */
const pointColumns = {
  id: devices.id,
  code: devices.code,
  lat: devices.lat,
  lng: devices.lng,
  address: devices.address,
  locationWay: devices.locationWay,
  online: devices.online,
};

type PointRow = {
  id: number;
  code: string;
  lat: number | null;
  lng: number | null;
  address: string;
  locationWay: string;
  online: boolean;
  name: string;
};

function toPoint(row: PointRow, eid: number, type: 0 | 1 | 2): MapPoint {
  return {
    machine_id: row.id,
    machine_code: row.code,
    machine_name: row.name || row.code,
    lat: row.lat,
    lng: row.lng,
    address: row.address,
    location_way: row.locationWay,
    online: row.online,
    state: row.online ? 1 : 0,
    eid,
    type,
  };
}

/** Online devices first, then by name: the list beside the map reads like the device lists. */
function byStateThenName(a: MapPoint, b: MapPoint): number {
  if (a.online !== b.online) return a.online ? -1 : 1;
  return a.machine_name.localeCompare(b.machine_name) || a.machine_id - b.machine_id;
}

/** The cloud map's points: the devices of the caller's context with position and state. */
export function createMapPoints(deps: {
  db: Db;
  enterprises: Pick<EnterpriseService, "deviceScope" | "requireList">;
}) {
  const { db } = deps;

  /**
   * Every device the caller sees in a context, with its position and state. Personal: the
   * caller's own list. Enterprise: the lists the caller sees there (an admin both), or only
   * the list of `type`; a non-member, or a member asking for a list not theirs, is refused
   * like the enterprise lists refuse (NO_PERMISSION).
   */
  async function mapPoints(viewer: Viewer, ctx: { eid: number; type?: 1 | 2 }) {
    let points: MapPoint[];
    if (ctx.eid === 0) {
      const rows = await db
        .select({ ...pointColumns, name: deviceLinks.name })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(eq(deviceLinks.userId, viewer.userId));
      points = rows.map((r) => toPoint(r, 0, 0));
    } else if (ctx.type) {
      const type = ctx.type;
      await deps.enterprises.requireList(viewer, ctx.eid, type);
      const rows = await db
        .select({ ...pointColumns, name: enterpriseDevices.name })
        .from(enterpriseDevices)
        .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
        .where(and(eq(enterpriseDevices.enterpriseId, ctx.eid), eq(enterpriseDevices.type, type)));
      points = rows.map((r) => toPoint(r, ctx.eid, type));
    } else {
      const { scope } = await deps.enterprises.deviceScope(viewer, ctx.eid);
      const rows = await db
        .select({ ...pointColumns, name: scope.name, maintained: scope.maintained })
        .from(scope)
        .innerJoin(devices, eq(devices.id, scope.deviceId));
      points = rows.map((r) => toPoint(r, ctx.eid, r.maintained ? 2 : 1));
    }
    points.sort(byStateThenName);
    const located = points.filter((p) => p.lat !== null && p.lng !== null).length;
    return { list: points, total: points.length, located } satisfies MapPointsResult;
  }

  return mapPoints;
}
