import { type DeviceListPage, type Machine, PAGE_SIZE } from "@keyway/shared";
import {
  and,
  count,
  desc,
  eq,
  getTableColumns,
  ilike,
  or,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { flatSelection } from "../../db/flatRows.ts";
import { fail } from "../../http/envelope.ts";
import { ezvizAccountIdColumn, machineColumns, toMachine } from "./machine.ts";
import { deviceGroups, deviceLinks, devices } from "./schema.ts";
import { type ScreenLookup, withScreens } from "./screens.ts";
import { likePattern, listPages, type PageFilter, pageTotal } from "./sql.ts";

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
   * A row of the list: only what a Machine shows (no hashes, no link bookkeeping), flat and
   * read without drizzle's row mapping (flatRows.ts), since reading and mapping rows is most of
   * a long list's time (docs/architecture/devices.md#personal-lists).
   */
  const listRows = flatSelection({
    ...machineColumns,
    role: deviceLinks.role,
    name: deviceLinks.name,
    alias: deviceLinks.alias,
    remark: deviceLinks.remark,
    groupId: deviceLinks.groupId,
    linkedAt: deviceLinks.createdAt,
    groupName: sql<string | null>`${deviceGroups.name}`,
  });

  /** A filter's values, or the placeholders of a prepared page query. */
  type Filter = PageFilter & { userId: number | Placeholder };

  /** Which links a list shows: the user's, in a group, matching a search. */
  function conditions(filter: Filter): SQL[] {
    const where: SQL[] = [eq(deviceLinks.userId, filter.userId)];
    if (filter.groupId !== undefined) where.push(eq(deviceLinks.groupId, filter.groupId));
    const pattern = filter.pattern;
    if (pattern !== undefined) {
      where.push(
        or(
          ilike(deviceLinks.name, pattern),
          ilike(devices.code, pattern),
          ilike(deviceLinks.alias, pattern),
          ilike(deviceLinks.remark, pattern),
        ) as SQL,
      );
    }
    return where;
  }

  /** The list's pages, each shape of filter's query prepared once (listPages). */
  const readPage = listPages(db, "devices_personal_list_page", listRows, (filters) =>
    db
      .select(listRows.selection)
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(
        and(
          ...conditions({
            userId: sql.placeholder("userId"),
            ...filters,
          }),
        ),
      )
      .orderBy(desc(deviceLinks.createdAt), desc(deviceLinks.id)),
  );

  /** A page of the user's personal list, newest link first (SPEC §7 paging). */
  async function list(
    userId: number,
    filter: { groupId?: number; search?: string; page?: number; pageSize?: number } = {},
  ): Promise<DeviceListPage> {
    const { page = 1, pageSize = PAGE_SIZE.deviceLists } = filter;
    const values: Filter = {
      userId,
      groupId: filter.groupId || undefined,
      pattern: filter.search ? likePattern(filter.search) : undefined,
    };
    const rows = await readPage(values, { page, pageSize });
    const list = await withScreens(
      rows.map((r) =>
        toMachine(r, {
          link: {
            role: r.role,
            name: r.name,
            alias: r.alias,
            remark: r.remark,
            groupId: r.groupId,
            createdAt: r.linkedAt,
          },
          groupName: r.groupName,
        }),
      ),
      deps.screens,
    );
    const total = await pageTotal(list.length, { page, pageSize }, async () => {
      const [{ n }] = await db
        .select({ n: count() })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...conditions(values)));
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
