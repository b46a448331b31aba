import { z } from "zod";
import type { ListResult } from "../accounts.ts";
import {
  type BrandSettingsView,
  brandSettingsBody,
  type DeviceGroup,
  type DeviceListPage,
  type EnterpriseCreation,
  type EnterpriseLogo,
  type EnterpriseMember,
  type EnterpriseSummary,
  eidBody,
  enterpriseCreateBody,
  enterpriseDeviceAssignBody,
  enterpriseDeviceListBody,
  enterpriseDeviceRemoveBody,
  enterpriseMachineBody,
  enterpriseProjectBody,
  groupNameField,
  type Machine,
  type MemberKind,
  maintenanceRemarkBody,
  memberAddBody,
  memberRemoveBody,
  type RegistryEntry,
  registryQuery,
  userEnterpriseCreateBody,
} from "../devices.ts";
import { idOrZeroField } from "../fields.ts";
import { group, route } from "./route.ts";

/** The caller's rights in an enterprise. */
interface EnterprisePermission {
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
type EnterpriseGroup = Pick<DeviceGroup, "id" | "name">;

const eidQuery = z.object({ eid: eidBody.shape.eid });
const adminDevicesQuery = eidQuery.extend({
  type: z.coerce.number().int().min(1).max(2).default(1),
});
const groupBody = z.object({ eid: eidBody.shape.eid, name: groupNameField });
const groupIdBody = z.object({ eid: eidBody.shape.eid, id: eidBody.shape.eid });
const deviceGroupBody = enterpriseDeviceRemoveBody.extend({ groupId: idOrZeroField });

const deviceList = {
  method: "POST",
  summary: "Enterprise (type 1) or maintenance (type 2) devices",
  input: enterpriseDeviceListBody,
} as const;
const groups = {
  method: "POST",
  summary: "The enterprise's device groups",
  input: eidBody,
} as const;
const machineInfo = {
  method: "POST",
  summary: "A device of the enterprise",
  input: enterpriseMachineBody,
} as const;
// The logo lookup is open: an enterprise-branded login page needs it before login.
const logoGet = {
  method: "GET",
  summary: "Enterprise name, platform name and logo",
  input: eidQuery,
  auth: "none",
} as const;
const logoPost = { ...logoGet, method: "POST", input: eidBody } as const;

/** SPEC §7 "Enterprise": a member's calls, /api and the enterprise portal's /eapi paths. */
const member = group(
  { auth: "user", tags: ["enterprises"] },
  {
    listForUser: route<{ list: EnterpriseSummary[]; total: number }>()({
      method: "POST",
      path: "/api/enterprises/userEnterpriseList",
      summary: "Enterprises the caller belongs to",
    }),
    deviceList: route<DeviceListPage>()({
      ...deviceList,
      path: "/api/enterprises/enterpriseDeviceList",
    }),
    portalDeviceList: route<DeviceListPage>()({
      ...deviceList,
      path: "/eapi/ent/c/manager/device/group/devicelist",
    }),
    groups: route<ListResult<EnterpriseGroup>>()({
      ...groups,
      path: "/api/enterprises/getAllGroup",
    }),
    portalGroups: route<ListResult<EnterpriseGroup>>()({
      ...groups,
      path: "/eapi/ent/c/manager/device/group/all",
    }),
    maintenanceTeam: route<{ list: EnterpriseMember[] }>()({
      method: "POST",
      path: "/eapi/ent/c/manager/maintain/getteammember",
      summary: "The enterprise's maintenance team",
      input: eidBody,
    }),
    permission: route<EnterprisePermission>()({
      method: "POST",
      path: "/api/enterprises/enterprisePermission",
      summary: "The caller's rights in an enterprise",
      input: eidBody,
    }),
    machineInfo: route<Machine>()({ ...machineInfo, path: "/api/enterprises/machineInfo" }),
    machineBaseInfo: route<Machine>()({ ...machineInfo, path: "/api/enterprises/machineBaseInfo" }),
    machinePersonnel: route<{ list: EnterpriseMember[] }>()({
      method: "POST",
      path: "/api/enterprises/machinePersonnel",
      summary: "Enterprise members who see a device",
      input: enterpriseMachineBody,
    }),
    machineMaintenancePersonnel: route<{ list: EnterpriseMember[] }>()({
      method: "POST",
      path: "/api/enterprises/machineMaintenancePersonnel",
      summary: "Maintenance members who see a device",
      input: enterpriseMachineBody,
    }),
    updateMaintenanceRemark: route()({
      method: "POST",
      path: "/api/enterprises/UpdateMaintenanceRemark",
      summary: "Set a maintenance device's remark",
      input: maintenanceRemarkBody,
    }),
    info: route<EnterpriseSummary>()({
      method: "GET",
      path: "/api/entportal/v1/enterprise/info",
      summary: "Enterprise record",
      input: eidQuery,
    }),
    logo: route<EnterpriseLogo>()({ ...logoGet, path: "/eapi/o/getlogo" }),
    logoByPost: route<EnterpriseLogo>()({ ...logoPost, path: "/eapi/o/getlogo" }),
    apiLogo: route<EnterpriseLogo>()({ ...logoGet, path: "/api/enterprises/getLogo" }),
    apiLogoByPost: route<EnterpriseLogo>()({ ...logoPost, path: "/api/enterprises/getLogo" }),

    // ---- Enterprises users create (unless their brand's operator turned it off) ----
    creation: route<EnterpriseCreation>()({
      method: "GET",
      path: "/api/enterprises/v1/creation",
      summary: "Whether the caller may create an enterprise, and how many they created",
    }),
    createOwn: route<EnterpriseSummary>()({
      method: "POST",
      path: "/api/enterprises/v1/create",
      summary: "Create an enterprise of one's own (the caller becomes its admin)",
      input: userEnterpriseCreateBody,
    }),
  },
);

/** Enterprise administration (operator or enterprise admin). */
const admin = group(
  { auth: "user", tags: ["enterprise admin"] },
  {
    setProject: route<EnterpriseSummary>()({
      method: "PUT",
      path: "/api/enterprises/v1/admin/project",
      summary: "Switch projects on or off (operator; admins of a user-created enterprise)",
      input: enterpriseProjectBody,
    }),
    members: route<ListResult<EnterpriseMember>>()({
      method: "GET",
      path: "/api/enterprises/v1/admin/members",
      summary: "Members of an enterprise",
      input: eidQuery,
    }),
    addMember: route()({
      method: "POST",
      path: "/api/enterprises/v1/admin/members",
      summary: "Add a member by account",
      input: memberAddBody,
    }),
    removeMember: route()({
      method: "DELETE",
      path: "/api/enterprises/v1/admin/members",
      summary: "Remove a member",
      input: memberRemoveBody,
    }),
    adminDevices: route<ListResult<Machine>>()({
      method: "GET",
      path: "/api/enterprises/v1/admin/devices",
      summary: "Devices of an enterprise",
      input: adminDevicesQuery,
    }),
    assignDevice: route<Machine>()({
      method: "POST",
      path: "/api/enterprises/v1/admin/devices",
      summary: "Assign a device to an enterprise (operator)",
      input: enterpriseDeviceAssignBody,
    }),
    removeDevice: route()({
      method: "DELETE",
      path: "/api/enterprises/v1/admin/devices",
      summary: "Take a device from an enterprise (operator)",
      input: enterpriseDeviceRemoveBody,
    }),
    createGroup: route<EnterpriseGroup>()({
      method: "POST",
      path: "/api/enterprises/v1/admin/groups",
      summary: "Create an enterprise device group",
      input: groupBody,
    }),
    deleteGroup: route()({
      method: "DELETE",
      path: "/api/enterprises/v1/admin/groups",
      summary: "Delete an empty enterprise group",
      input: groupIdBody,
    }),
    setDeviceGroup: route()({
      method: "PUT",
      path: "/api/enterprises/v1/admin/devices/group",
      summary: "Put an enterprise device in a group (0: none)",
      input: deviceGroupBody,
    }),
  },
);

/** The operator's back office; the service refuses anyone else (auth stays "user"). */
const operator = group(
  { auth: "user", tags: ["operator"] },
  {
    listAll: route<ListResult<EnterpriseSummary>>()({
      method: "GET",
      path: "/api/operator/v1/enterprises",
      summary: "All enterprises",
      input: registryQuery,
    }),
    create: route<EnterpriseSummary>()({
      method: "POST",
      path: "/api/operator/v1/enterprises",
      summary: "Create an enterprise",
      input: enterpriseCreateBody,
    }),
    brandSettings: route<{ list: BrandSettingsView[] }>()({
      method: "GET",
      path: "/api/operator/v1/brandSettings",
      summary: "The operator's switches per brand",
    }),
    setBrandSettings: route()({
      method: "PUT",
      path: "/api/operator/v1/brandSettings",
      summary: "Set a brand's switches (userEnterprises: its users may create enterprises)",
      input: brandSettingsBody,
    }),
    registry: route<ListResult<RegistryEntry>>()({
      method: "GET",
      path: "/api/operator/v1/devices",
      summary: "The device registry",
      input: registryQuery,
    }),
  },
);

/** Enterprises: a member's calls, their administration and the operator's, under three tags. */
export const enterprises = { ...member, ...admin, ...operator };
