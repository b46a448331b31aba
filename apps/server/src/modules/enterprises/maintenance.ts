import type { Machine, MemberKind } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { toMachine } from "../devices/machine.ts";
import { devices } from "../devices/schema.ts";
import { type ScreenLookup, withScreens } from "../devices/screens.ts";
import { heldBy } from "./lists.ts";
import type { Membership } from "./membership.ts";
import type { EnterpriseRoles, ListType, Viewer } from "./roles.ts";
import { enterpriseDevices, enterpriseGroups } from "./schema.ts";

/** One enterprise device: its card, its people and the maintenance team's remark. */
export function createEnterpriseMachines(deps: {
  db: Db;
  roles: EnterpriseRoles;
  membership: Membership;
  screens?: ScreenLookup;
}) {
  const { db, roles } = deps;

  /** The enterprise's hold on one device, visible to the viewer. */
  async function heldDevice(viewer: Viewer, eid: number, deviceId: number) {
    const a = await roles.access(viewer, eid);
    const rows = await db
      .select({ device: devices, held: enterpriseDevices, groupName: enterpriseGroups.name })
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .leftJoin(enterpriseGroups, eq(enterpriseGroups.id, enterpriseDevices.groupId))
      .where(
        and(eq(enterpriseDevices.enterpriseId, eid), eq(enterpriseDevices.deviceId, deviceId)),
      );
    const visible = rows.filter((r) => a.canSee(r.held.type as ListType));
    if (visible.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
    return { access: a, row: visible[0], types: visible.map((r) => r.held.type as ListType) };
  }

  async function machineInfo(viewer: Viewer, eid: number, deviceId: number): Promise<Machine> {
    const { row } = await heldDevice(viewer, eid, deviceId);
    const machine = toMachine(row.device, {
      eid,
      name: row.held.name,
      groupId: row.held.groupId,
      groupName: row.groupName,
      maintenanceRemark: row.held.maintenanceRemark,
    });
    return (await withScreens([machine], deps.screens))[0];
  }

  async function machinePersonnel(viewer: Viewer, eid: number, deviceId: number, kind: MemberKind) {
    await heldDevice(viewer, eid, deviceId);
    return { list: await deps.membership.members(eid, kind) };
  }

  async function updateMaintenanceRemark(
    viewer: Viewer,
    eid: number,
    deviceId: number,
    remark: string,
  ) {
    const { access: a, types } = await heldDevice(viewer, eid, deviceId);
    if (!types.includes(2) || !(a.isAdmin || a.kinds.includes("maintenance"))) {
      throw fail("NO_PERMISSION");
    }
    await db
      .update(enterpriseDevices)
      .set({ maintenanceRemark: remark })
      .where(heldBy(eid, deviceId, 2));
  }

  return { machineInfo, machinePersonnel, updateMaintenanceRemark };
}
