import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { AccountRef } from "../accounts/service.ts";
import type { ScreenLookup } from "../devices/screens.ts";
import type { Permissions } from "../permissions/service.ts";
import { createEnterpriseCreation } from "./creation.ts";
import { createEnterpriseLists } from "./lists.ts";
import { createEnterpriseMachines } from "./maintenance.ts";
import { createMembership } from "./membership.ts";
import { createOperatorRegistry } from "./registry.ts";
import { createEnterpriseRoles } from "./roles.ts";

export type { ListType, Viewer } from "./roles.ts";

export type EnterpriseService = ReturnType<typeof createEnterpriseService>;

/**
 * Enterprises, their two kinds of members and their device lists: one file per job (roles,
 * membership, lists, maintenance, creation, registry), composed here. Access: members see
 * the list of their kind, admins both, the operator everything; everyone else is refused
 * the same way whether or not the enterprise exists.
 */
export function createEnterpriseService(deps: {
  db: Db;
  clock: Clock;
  /** Who sees / may act on a device (docs/architecture/permissions.md). */
  permissions: Permissions;
  findUser: (ref: AccountRef) => Promise<{ id: number; activatedAt: Date | null } | undefined>;
  /** A device left the enterprise's list: that list's project lets it go. */
  releaseFromProjects?: (eid: number, type: number, deviceId: number) => Promise<unknown>;
  /** Which devices' agents offer their screen now (Machine.screen on lists and cards). */
  screens?: ScreenLookup;
}) {
  const roles = createEnterpriseRoles(deps);
  const membership = createMembership({ ...deps, roles });
  const lists = createEnterpriseLists({ ...deps, roles });
  const machines = createEnterpriseMachines({ ...deps, roles, membership });
  const creation = createEnterpriseCreation({ ...deps, roles });
  const { registry } = createOperatorRegistry(deps);

  return {
    listForUser: membership.listForUser,
    info: membership.info,
    logo: membership.logo,
    permission: membership.permission,
    deviceList: lists.deviceList,
    groups: lists.groups,
    requireList: roles.requireList,
    maintenanceTeam: membership.maintenanceTeam,
    machineInfo: machines.machineInfo,
    deviceScope: roles.deviceScope,
    machinePersonnel: machines.machinePersonnel,
    updateMaintenanceRemark: machines.updateMaintenanceRemark,
    create: creation.create,
    creation: creation.creation,
    createOwn: creation.createOwn,
    setProject: creation.setProject,
    brandSettingsList: creation.brandSettingsList,
    setBrandSettings: creation.setBrandSettings,
    listAll: creation.listAll,
    listMembers: membership.listMembers,
    addMember: membership.addMember,
    removeMember: membership.removeMember,
    adminDevices: lists.adminDevices,
    assignDevice: lists.assignDevice,
    removeDevice: lists.removeDevice,
    createGroup: lists.createGroup,
    deleteGroup: lists.deleteGroup,
    setDeviceGroup: lists.setDeviceGroup,
    registry,
  };
}
