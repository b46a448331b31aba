import { type DeviceListPage, type Machine, PAGE_SIZE } from "@keyway/shared";
import { and, count, desc, eq, getTableColumns, ilike, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { ezvizAccountIdColumn, machineColumns, toMachine } from "./machine.ts";
import { deviceGroups, deviceLinks, devices } from "./schema.ts";
import { type ScreenLookup, withScreens } from "./screens.ts";
import { likePattern, pageTotal } from "./sql.ts";

export type PersonalLists = ReturnType<typeof createPersonalLists>;

/** A user's personal device list: the page of devices and one device of it. */
export function createPersonalLists(deps: { db: Db; screens?: ScreenLookup }) {
  const { db } = deps;

  const personalColumns = {
    device: { ...getTableColumns(devices), ezvizAccountId: ezvizAccountIdColumn },
    link: deviceLinks,
    groupName: deviceGroups.name,
  };

  /**
   * A row of the list: only what a Machine shows (no hashes, no link bookkeeping), since
   * reading and mapping columns is most of a long list's time (docs/architecture/devices.md#personal-lists).
   */
  const listColumns = {
    ...machineColumns,
    link: {
      role: deviceLinks.role,
      name: deviceLinks.name,
      alias: deviceLinks.alias,
      remark: deviceLinks.remark,
      groupId: deviceLinks.groupId,
      createdAt: deviceLinks.createdAt,
    },
    groupName: deviceGroups.name,
  };

  const pageQuery = (conditions: SQL[]) =>
    db
      .select(listColumns)
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(and(...conditions))
      .orderBy(desc(deviceLinks.createdAt), desc(deviceLinks.id));

  /**
   * The whole list's page (no group or search: what the app and the web ask most) as one
   * prepared statement: building the query cost about a tenth of a call at 200 calls/s on the
   * embedded defaults (issue 19, docs/performance.md "devices").
   */
  const wholeListPage = pageQuery([eq(deviceLinks.userId, sql.placeholder("userId"))])
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare("devices_personal_list_page");

  /** A page of the user's personal list, newest link first (SPEC §7 paging). */
  async function list(
    userId: number,
    filter: { groupId?: number; search?: string; page?: number; pageSize?: number } = {},
  ): Promise<DeviceListPage> {
    const { page = 1, pageSize = PAGE_SIZE.deviceLists } = filter;
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
    const offset = (page - 1) * pageSize;
    const rows =
      !filter.groupId && !filter.search
        ? await wholeListPage.execute({ userId, limit: pageSize, offset })
        : await pageQuery(conditions).limit(pageSize).offset(offset);
    const list = await withScreens(
      rows.map((r) => toMachine(r, { link: r.link, groupName: r.groupName })),
      deps.screens,
    );
    const total = await pageTotal(list.length, { page, pageSize }, async () => {
      const [{ n }] = await db
        .select({ n: count() })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...conditions));
      return n;
    });
    return { list, total, page, pageSize };
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
    const [machine] = await withScreens(
      [toMachine(row.device, { link: row.link, groupName: row.groupName })],
      deps.screens,
    );
    return machine;
  }

  return { list, requireLink, detail };
}
