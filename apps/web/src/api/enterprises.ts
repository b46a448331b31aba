import type {
  EnterpriseCreation,
  EnterpriseDeviceType,
  EnterpriseLogo,
  EnterpriseMember,
  EnterpriseSummary,
  MemberKind,
  ParsedInputOf,
  ReplyOf,
} from "@keyway/shared";
import { API, PAGE_SIZE } from "@keyway/shared";
import { request } from "./client.ts";

export type {
  EnterpriseCreation,
  EnterpriseDeviceType,
  EnterpriseLogo,
  EnterpriseMember,
  EnterpriseSummary,
  MemberKind,
};

const e = API.enterprises;

/** The caller's rights in an enterprise (POST /enterprises/enterprisePermission). */
export type EnterprisePermission = ReplyOf<typeof e.permission>;

/** A group of enterprise devices (the enterprise list carries no device count). */
export type EnterpriseGroup = ReplyOf<typeof e.createGroup>;

export interface EnterpriseDeviceQuery {
  eid: number;
  type: EnterpriseDeviceType;
  groupId?: number;
  search?: string;
  /** The server's page of the list (SPEC §7: 5000 a page); absent: the first. */
  page?: number;
}

/** Enterprise context calls of SPEC §7 "Enterprise" (the caller must be a member). */
export const enterprisesApi = {
  userEnterpriseList: () => request(e.listForUser),
  /** A page of the list (SPEC §9: device lists 5000 a page). */
  deviceList: (query: EnterpriseDeviceQuery) =>
    request(e.portalDeviceList, {
      eid: query.eid,
      page: query.page ?? 1,
      pageSize: PAGE_SIZE.deviceLists,
      groupId: query.groupId,
      search: query.search,
      type: query.type,
    }),
  groups: (eid: number) => request(e.portalGroups, { eid }),
  machineInfo: (eid: number, machineId: number) => request(e.machineInfo, { eid, machineId }),
  machinePersonnel: (eid: number, machineId: number) =>
    request(e.machinePersonnel, { eid, machineId }),
  machineMaintenancePersonnel: (eid: number, machineId: number) =>
    request(e.machineMaintenancePersonnel, { eid, machineId }),
  updateMaintenanceRemark: (body: { eid: number; machineId: number; remark: string }) =>
    request(e.updateMaintenanceRemark, body),
  info: (eid: number) => request(e.info, { eid }),
  permission: (eid: number) => request(e.permission, { eid }),
  /** Whether the caller may create an enterprise of their own (brand switch, limit). */
  creation: () => request(e.creation),
  /** Creates an enterprise of the caller's own; they become its admin. */
  createOwn: (body: ParsedInputOf<typeof e.createOwn>) => request(e.createOwn, body),
  logo: (eid: number) => request(e.logo, { eid }),
};

/** Enterprise administration (operator, or an admin of that enterprise). */
export const enterpriseAdminApi = {
  setProject: (body: { eid: number; enableProject: 0 | 1 }) => request(e.setProject, body),
  members: (eid: number) => request(e.members, { eid }),
  addMember: (body: ParsedInputOf<typeof e.addMember>) => request(e.addMember, body),
  removeMember: (body: ParsedInputOf<typeof e.removeMember>) => request(e.removeMember, body),
  devices: (eid: number, type: EnterpriseDeviceType) => request(e.adminDevices, { eid, type }),
  /** Operator only. */
  assignDevice: (body: ParsedInputOf<typeof e.assignDevice>) => request(e.assignDevice, body),
  removeDevice: (body: ParsedInputOf<typeof e.removeDevice>) => request(e.removeDevice, body),
  createGroup: (body: { eid: number; name: string }) => request(e.createGroup, body),
  /** Refused with 04011201 while the group still holds devices. */
  deleteGroup: (body: { eid: number; id: number }) => request(e.deleteGroup, body),
  /** Puts an enterprise device in a group (`groupId` 0: none). */
  setDeviceGroup: (body: {
    eid: number;
    machineId: number;
    type: EnterpriseDeviceType;
    groupId: number;
  }) => request(e.setDeviceGroup, body),
};
