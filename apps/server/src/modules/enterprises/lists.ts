import { type DeviceListPage, PAGE_SIZE } from "@keyway/shared";
import { and, asc, count, desc, eq, ilike, or, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { flatSelection } from "../../db/flatRows.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { machineColumns, toMachine } from "../devices/machine.ts";
import { deviceByCode, hasAkey } from "../devices/registry.ts";
import { devices } from "../devices/schema.ts";
import { type ScreenLookup, withScreens } from "../devices/screens.ts";
import { likePattern, listPages, type PageFilter, pageTotal } from "../devices/sql.ts";
import { type EnterpriseRoles, type ListType, requireOperator, type Viewer } from "./roles.ts";
import { enterpriseDevices, enterpriseGroups } from "./schema.ts";

/** The row of an enterprise's hold on a device as one type of list. */
export function heldBy(eid: number, deviceId: number, type: ListType) {
  return and(
    eq(enterpriseDevices.enterpriseId, eid),
    eq(enterpriseDevices.deviceId, deviceId),
    eq(enterpriseDevices.type, type),
  );
}

/** An enterprise's two device lists and its groups: read by members, kept by admins. */
export function createEnterpriseLists(deps: {
  db: Db;
  clock: Clock;
  roles: EnterpriseRoles;
  /** A device left the enterprise's list: that list's project lets it go. */
  releaseFromProjects?: (eid: number, type: number, deviceId: number) => Promise<unknown>;
  /** Which devices' agents offer their screen now (Machine.screen). */
  screens?: ScreenLookup;
}) {
  const { db, clock, roles } = deps;

  /**
   * A row of a list: only what a Machine shows (no hashes), flat and read without drizzle's
   * row mapping (flatRows.ts; docs/architecture/devices.md#personal-lists).
   */
  const listRows = flatSelection({
    ...machineColumns,
    heldName: enterpriseDevices.name,
    heldGroupId: enterpriseDevices.groupId,
    maintenanceRemark: enterpriseDevices.maintenanceRemark,
    groupName: sql<string | null>`${enterpriseGroups.name}`,
  });

  /** A filter's values, or the placeholders of a prepared page query. */
  type Filter = PageFilter & { eid: number | Placeholder; type: number | Placeholder };

  /** Which of the enterprise's devices a list shows: one type, in a group, matching a search. */
  function conditions(filter: Filter): SQL[] {
    const where: SQL[] = [
      eq(enterpriseDevices.enterpriseId, filter.eid),
      eq(enterpriseDevices.type, filter.type),
    ];
    if (filter.groupId !== undefined) where.push(eq(enterpriseDevices.groupId, filter.groupId));
    const pattern = filter.pattern;
    if (pattern !== undefined)
      where.push(or(ilike(enterpriseDevices.name, pattern), ilike(devices.code, pattern)) as SQL);
    return where;
  }

  /** The lists' pages, each shape of filter's query prepared once (listPages). */
  const readPage = listPages(db, "enterprise_device_list_page", listRows, (filters) =>
    db
      .select(listRows.selection)
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .leftJoin(enterpriseGroups, eq(enterpriseGroups.id, enterpriseDevices.groupId))
      .where(
        and(
          ...conditions({
            eid: sql.placeholder("eid"),
            type: sql.placeholder("type"),
            ...filters,
          }),
        ),
      )
      .orderBy(desc(enterpriseDevices.deviceId)),
  );

  async function deviceList(
    viewer: Viewer,
    q: {
      eid: number;
      type: ListType;
      groupId?: number;
      search?: string;
      page: number;
      pageSize: number;
    },
  ): Promise<DeviceListPage> {
    await roles.requireList(viewer, q.eid, q.type);
    const values: Filter = {
      eid: q.eid,
      type: q.type,
      groupId: q.groupId || undefined,
      pattern: q.search ? likePattern(q.search) : undefined,
    };
    // The total from the page unless it is full (pageTotal).
    const rows = await readPage(values, q);
    const total = await pageTotal(rows.length, q, () => countHeld(and(...conditions(values))));
    const list = rows.map((r) =>
      toMachine(r, {
        eid: q.eid,
        name: r.heldName,
        groupId: r.heldGroupId,
        groupName: r.groupName,
        maintenanceRemark: r.maintenanceRemark,
      }),
    );
    return {
      list: await withScreens(list, deps.screens),
      total,
      page: q.page,
      pageSize: q.pageSize,
    };
  }

  /** The total when the page cannot tell it (pageTotal). */
  async function countHeld(where: SQL | undefined): Promise<number> {
    const [{ total }] = await db
      .select({ total: count() })
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .where(where);
    return total;
  }

  async function groups(viewer: Viewer, eid: number) {
    await roles.access(viewer, eid);
    const list = await db
      .select({ id: enterpriseGroups.id, name: enterpriseGroups.name })
      .from(enterpriseGroups)
      .where(eq(enterpriseGroups.enterpriseId, eid))
      .orderBy(asc(enterpriseGroups.id));
    return { list, total: list.length };
  }

  async function adminDevices(viewer: Viewer, eid: number, type: ListType) {
    await roles.requireAdmin(viewer, eid);
    return deviceList(
      { userId: viewer.userId, role: "operator" },
      { eid, type, page: 1, pageSize: PAGE_SIZE.deviceLists },
    );
  }

  async function assignDevice(
    viewer: Viewer,
    input: { eid: number; code: string; type: ListType },
  ) {
    requireOperator(viewer);
    await roles.requireEnterprise(input.eid);
    const device = await deviceByCode(db, input.code);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const [held] = await db
      .select({ enterpriseId: enterpriseDevices.enterpriseId })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.deviceId, device.id), eq(enterpriseDevices.type, input.type)))
      .limit(1);
    if (held) {
      throw fail(
        held.enterpriseId === input.eid ? "DEVICE_ALREADY_ADDED" : "DEVICE_IN_OTHER_ENTERPRISE",
      );
    }
    // An enterprise device has no personal owner (SPEC 04010112: personal OR enterprise).
    if (input.type === 1 && (await hasAkey(db, device.id))) throw fail("DEVICE_ALREADY_ADDED");
    await db.insert(enterpriseDevices).values({
      enterpriseId: input.eid,
      deviceId: device.id,
      type: input.type,
      name: device.code,
      createdAt: clock.now(),
    });
    return toMachine(device, { eid: input.eid });
  }

  async function removeDevice(
    viewer: Viewer,
    input: { eid: number; deviceId: number; type: ListType },
  ) {
    requireOperator(viewer);
    const removed = await db
      .delete(enterpriseDevices)
      .where(heldBy(input.eid, input.deviceId, input.type))
      .returning({ deviceId: enterpriseDevices.deviceId });
    if (removed.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
    await deps.releaseFromProjects?.(input.eid, input.type, input.deviceId);
  }

  async function createGroup(viewer: Viewer, eid: number, name: string) {
    await roles.requireAdmin(viewer, eid);
    const inserted = await db
      .insert(enterpriseGroups)
      .values({ enterpriseId: eid, name, createdAt: clock.now() })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) throw fail("GROUP_EXISTS");
    return { id: inserted[0].id, name: inserted[0].name };
  }

  async function deleteGroup(viewer: Viewer, eid: number, groupId: number) {
    await roles.requireAdmin(viewer, eid);
    const [{ n }] = await db
      .select({ n: count() })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.enterpriseId, eid), eq(enterpriseDevices.groupId, groupId)));
    if (n > 0) throw fail("GROUP_NOT_EMPTY");
    const removed = await db
      .delete(enterpriseGroups)
      .where(and(eq(enterpriseGroups.enterpriseId, eid), eq(enterpriseGroups.id, groupId)))
      .returning({ id: enterpriseGroups.id });
    if (removed.length === 0) throw fail("GROUP_NOT_FOUND");
  }

  /** Puts an enterprise device into one of the enterprise's groups (0: none). */
  async function setDeviceGroup(
    viewer: Viewer,
    input: { eid: number; deviceId: number; type: ListType; groupId: number },
  ) {
    await roles.requireAdmin(viewer, input.eid);
    if (input.groupId) {
      const [group] = await db
        .select({ id: enterpriseGroups.id })
        .from(enterpriseGroups)
        .where(
          and(eq(enterpriseGroups.enterpriseId, input.eid), eq(enterpriseGroups.id, input.groupId)),
        );
      if (!group) throw fail("GROUP_NOT_FOUND");
    }
    const updated = await db
      .update(enterpriseDevices)
      .set({ groupId: input.groupId || null })
      .where(heldBy(input.eid, input.deviceId, input.type))
      .returning({ deviceId: enterpriseDevices.deviceId });
    if (updated.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
  }

  return {
    deviceList,
    groups,
    adminDevices,
    assignDevice,
    removeDevice,
    createGroup,
    deleteGroup,
    setDeviceGroup,
  };
}
