import type {
  DeviceGroup,
  EnterpriseCreation,
  EnterpriseDeviceType,
  EnterpriseLogo,
  EnterpriseMember,
  EnterpriseSummary,
  enterpriseDeviceAssignBody,
  enterpriseDeviceRemoveBody,
  ListResult,
  Machine,
  MemberKind,
  memberAddBody,
  memberRemoveBody,
  userEnterpriseCreateBody,
} from "@keyway/shared";
import { PAGE_SIZE } from "@keyway/shared";
import type { z } from "zod";
import { api, eapi } from "./client.ts";

export type {
  EnterpriseCreation,
  EnterpriseDeviceType,
  EnterpriseLogo,
  EnterpriseMember,
  EnterpriseSummary,
  MemberKind,
};

/** The caller's rights in an enterprise (POST /enterprises/enterprisePermission). */
export interface EnterprisePermission {
  eid: number;
  kinds: MemberKind[];
  isAdmin: 0 | 1;
  enableProject: 0 | 1;
  canSeeEnterpriseDevices: boolean;
  canSeeMaintenanceDevices: boolean;
  /** The caller may switch projects (operator; admins of a user-created enterprise). */
  canSetProject: boolean;
}

/** A group of enterprise devices (the enterprise list carries no device count). */
export type EnterpriseGroup = Pick<DeviceGroup, "id" | "name">;

export interface EnterpriseDeviceQuery {
  eid: number;
  type: EnterpriseDeviceType;
  groupId?: number;
  search?: string;
}

/** Enterprise context calls of SPEC §7 "Enterprise" (the caller must be a member). */
export const enterprisesApi = {
  userEnterpriseList: () =>
    api.post<{ list: EnterpriseSummary[] }>("/enterprises/userEnterpriseList", {}),
  /** The whole list in one page (SPEC §9: device lists 5000). */
  deviceList: (query: EnterpriseDeviceQuery) =>
    eapi.post<ListResult<Machine>>("/ent/c/manager/device/group/devicelist", {
      eid: query.eid,
      page: 1,
      pageSize: PAGE_SIZE.deviceLists,
      groupId: query.groupId,
      search: query.search,
      type: query.type,
    }),
  groups: (eid: number) =>
    eapi.post<{ list: EnterpriseGroup[]; total?: number }>("/ent/c/manager/device/group/all", {
      eid,
    }),
  machineInfo: (eid: number, machineId: number) =>
    api.post<Machine>("/enterprises/machineInfo", { eid, machineId }),
  machinePersonnel: (eid: number, machineId: number) =>
    api.post<{ list: EnterpriseMember[] }>("/enterprises/machinePersonnel", { eid, machineId }),
  machineMaintenancePersonnel: (eid: number, machineId: number) =>
    api.post<{ list: EnterpriseMember[] }>("/enterprises/machineMaintenancePersonnel", {
      eid,
      machineId,
    }),
  updateMaintenanceRemark: (body: { eid: number; machineId: number; remark: string }) =>
    api.post<unknown>("/enterprises/UpdateMaintenanceRemark", body),
  info: (eid: number) => api.get<EnterpriseSummary>("/entportal/v1/enterprise/info", { eid }),
  permission: (eid: number) =>
    api.post<EnterprisePermission>("/enterprises/enterprisePermission", { eid }),
  /** Whether the caller may create an enterprise of their own (brand switch, limit). */
  creation: () => api.get<EnterpriseCreation>("/enterprises/v1/creation"),
  /** Creates an enterprise of the caller's own; they become its admin. */
  createOwn: (body: z.output<typeof userEnterpriseCreateBody>) =>
    api.post<EnterpriseSummary>("/enterprises/v1/create", body),
  logo: (eid: number) => eapi.get<EnterpriseLogo>("/o/getlogo", { eid }),
};

/** Enterprise administration (operator, or an admin of that enterprise). */
export const enterpriseAdminApi = {
  setProject: (body: { eid: number; enableProject: 0 | 1 }) =>
    api.put<EnterpriseSummary>("/enterprises/v1/admin/project", body),
  members: (eid: number) =>
    api.get<{ list: EnterpriseMember[] }>("/enterprises/v1/admin/members", { eid }),
  addMember: (body: z.output<typeof memberAddBody>) =>
    api.post<null>("/enterprises/v1/admin/members", body),
  removeMember: (body: z.output<typeof memberRemoveBody>) =>
    api.delete<null>("/enterprises/v1/admin/members", body),
  devices: (eid: number, type: EnterpriseDeviceType) =>
    api.get<ListResult<Machine>>("/enterprises/v1/admin/devices", { eid, type }),
  /** Operator only. */
  assignDevice: (body: z.output<typeof enterpriseDeviceAssignBody>) =>
    api.post<Machine>("/enterprises/v1/admin/devices", body),
  removeDevice: (body: z.output<typeof enterpriseDeviceRemoveBody>) =>
    api.delete<null>("/enterprises/v1/admin/devices", body),
  createGroup: (body: { eid: number; name: string }) =>
    api.post<EnterpriseGroup>("/enterprises/v1/admin/groups", body),
  /** Refused with 04011201 while the group still holds devices. */
  deleteGroup: (body: { eid: number; id: number }) =>
    api.delete<null>("/enterprises/v1/admin/groups", body),
  /** Puts an enterprise device in a group (`groupId` 0: none). */
  setDeviceGroup: (body: {
    eid: number;
    machineId: number;
    type: EnterpriseDeviceType;
    groupId: number;
  }) => api.put<null>("/enterprises/v1/admin/devices/group", body),
};
