import type { Machine } from "@keyway/shared";
import { and, count, desc, eq, getTableColumns, ilike, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { ezvizAccountIdColumn, toMachine } from "./machine.ts";
import { deviceGroups, deviceLinks, devices } from "./schema.ts";
import { likePattern } from "./sql.ts";

export type PersonalLists = ReturnType<typeof createPersonalLists>;

/** A user's personal device list: the page of devices and one device of it. */
export function createPersonalLists(deps: { db: Db }) {
  const { db } = deps;

  const personalColumns = {
    device: { ...getTableColumns(devices), ezvizAccountId: ezvizAccountIdColumn },
    link: deviceLinks,
    groupName: deviceGroups.name,
  };

  async function list(
    userId: number,
    filter: { groupId?: number; search?: string; page?: number; pageSize?: number } = {},
  ) {
    const conditions: SQL[] = [eq(deviceLinks.userId, userId)];
    if (filter.groupId) conditions.push(eq(deviceLinks.groupId, filter.groupId));
    if (filter.search) {
      const pattern = likePattern(filter.search);
      conditions.push(
        or(
          ilike(deviceLinks.name, pattern),
          ilike(devices.code, pattern),
          ilike(deviceLinks.alias, pattern),
          ilike(deviceLinks.remark, pattern),
        ) as SQL,
      );
    }
    const query = db
      .select({ ...personalColumns, total: sql<number>`cast(count(*) over () as int)` })
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(and(...conditions))
      .orderBy(desc(deviceLinks.createdAt), desc(deviceLinks.id))
      .$dynamic();
    const paged = filter.pageSize !== undefined;
    if (paged)
      query.limit(filter.pageSize ?? 0).offset(((filter.page ?? 1) - 1) * (filter.pageSize ?? 0));
    const rows = await query;
    const list = rows.map((r) => toMachine(r.device, { link: r.link, groupName: r.groupName }));
    // Past the last page the window count has no row: count separately then.
    let total = rows[0]?.total ?? 0;
    if (paged && rows.length === 0 && (filter.page ?? 1) > 1) {
      [{ total }] = await db
        .select({ total: count() })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...conditions));
    }
    return { list, total };
  }

  /** The device in the user's list with their link to it. */
  async function requireLink(userId: number, deviceId: number) {
    const [row] = await db
      .select(personalColumns)
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    // Another user's device and a missing device look the same.
    if (!row) throw fail("EDIT_MACHINE_NOT_FOUND");
    return row;
  }

  async function detail(userId: number, deviceId: number): Promise<Machine> {
    const row = await requireLink(userId, deviceId);
    return toMachine(row.device, { link: row.link, groupName: row.groupName });
  }

  return { list, requireLink, detail };
}
