import { z } from "zod";
import { LIMITS, PAGE_SIZE } from "./constants.ts";
import { ID_MAX, idField, idOrZeroField, optionalText, pageField } from "./fields.ts";

/**
 * Devices, groups, enterprises and the operator's registry (SPEC §3 Machine / Enterprise,
 * §5, §7 "Enterprise" and "Machines"). Wire names as the SPEC has them.
 */

const NO_SPECIAL = /^[\p{L}\p{N} _.·()（）#-]+$/u;

/** SPEC §5 machine name: not empty, no special codes, at most 20 characters. */
export const machineNameField = z
  .string({ error: "v.required" })
  .trim()
  .min(1, { error: "v.machineName" })
  .max(20, { error: "v.machineName" })
  .regex(NO_SPECIAL, { error: "v.machineName" });

/** Machine (PN) codes the operator issues: 8-32 letters, digits and dashes. */
export const machineCodeField = z
  .string({ error: "v.required" })
  .trim()
  .min(1, { error: "v.machineCode" })
  .max(32, { error: "v.machineCode" })
  .regex(/^[A-Za-z0-9-]{8,32}$/, { error: "v.machineCode" })
  .transform((v) => v.toUpperCase());

export const machinePasswordField = z
  .string({ error: "v.required" })
  .min(1, { error: "v.required" })
  .max(64, { error: "v.text" });

export const remarkField = z.coerce.string().trim().max(LIMITS.remark.max, { error: "v.remark" });

export const groupNameField = z
  .string({ error: "v.required" })
  .trim()
  .min(LIMITS.groupName.min, { error: "v.groupName" })
  .max(LIMITS.groupName.max, { error: "v.groupName" })
  .regex(NO_SPECIAL, { error: "v.groupName" });

/** 0 / empty means "no group". */
const optionalGroupId = idOrZeroField.optional();

// ---- Personal devices ----

/**
 * SPEC §7 paging of the device lists: a client that sends no page gets the first page of
 * 5000; a bigger page is refused (docs/architecture/devices.md#personal-lists).
 */
const deviceListPageSize = pageField.max(PAGE_SIZE.deviceLists, { error: "v.page" });
const deviceListPage = {
  page: pageField.default(1),
  pageSize: deviceListPageSize.default(PAGE_SIZE.deviceLists),
};

export const machineSelectBody = z.object({
  terminalID: optionalText(64),
  version: optionalText(32),
  groupId: optionalGroupId,
  search: optionalText(40),
  ...deviceListPage,
});

/** A page of a device list: `list` and `total`, and the page it is (SPEC §7 paging). */
export interface DeviceListPage {
  list: Machine[];
  total: number;
  page: number;
  pageSize: number;
}

export const machineAddBody = z.object({
  machineName: machineNameField,
  machineCode: machineCodeField,
  machinePwd: machinePasswordField,
  machineGroupID: optionalGroupId,
});

export const machineDelBody = z.object({
  delMachineID: idField,
  isAkey: optionalText(8),
});

export const machineUpdateBody = z.object({
  updateMachineID: idField,
  updateMachineName: machineNameField,
  updateMachineRemark: remarkField.optional(),
  updateMachineCode: optionalText(32),
  updateMachineAlias: remarkField.optional(),
  updateMachineGroupID: optionalGroupId,
});

export const machineStateBody = z.object({ machineCode: machineCodeField });

export const deviceIdQuery = z.object({ deviceId: idField });

/**
 * `POST /api/device/v1/detail/page` (payload not in the SPEC; docs/architecture/devices.md#personal-lists): the
 * caller's personal devices in full detail, a page at a time, with the list's filters.
 */
export const deviceDetailPageBody = z.object({
  page: pageField.default(1),
  pageSize: deviceListPageSize.default(20),
  groupId: optionalGroupId,
  search: optionalText(40),
});

// ---- State, location and cloud switch ----

/** Comma-separated or array list of ids / codes. */
const listOf = <T extends z.ZodType>(item: T) =>
  z
    .union([z.array(z.any()), z.string(), z.number()])
    .transform((v) =>
      (Array.isArray(v)
        ? v
        : String(v)
            .split(",")
            .map((x) => x.trim())
      ).filter((x) => x !== ""),
    )
    .pipe(z.array(item).max(5000, { error: "v.text" }));

export const machineStatesBody = z.object({ machineIds: listOf(idField).optional() });
export const machineCodesBody = z.object({ machineCodes: listOf(machineCodeField) });
export const machineIdBody = z.object({ machineId: idField });
/** `testUrl`: the device's visit URL, or its machine code. */
export const testMachineStateBody = z.object({
  testUrl: z
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(500, { error: "v.text" }),
});

export const AUTO_LOCATION_WAYS = ["gps", "base", "ip"] as const;
export const autoLocationWayBody = z.object({
  machineId: idField,
  way: z.enum(AUTO_LOCATION_WAYS, { error: "v.locationWay" }),
});
export const manualLocationBody = z.object({
  machineId: idField,
  lat: z.coerce
    .number({ error: "v.latLng" })
    .min(-90, { error: "v.latLng" })
    .max(90, { error: "v.latLng" }),
  lng: z.coerce
    .number({ error: "v.latLng" })
    .min(-180, { error: "v.latLng" })
    .max(180, { error: "v.latLng" }),
  address: z.coerce.string().trim().max(200, { error: "v.text" }).optional(),
});
export const cloudSwitchBody = z.object({
  machineId: idField,
  /** 1 open, 0 closed; absent: just read the state. */
  state: z.coerce.number().int().min(0).max(1).optional(),
});

export interface MachineStateEntry {
  machine_id: number;
  machine_code: string;
  state: 0 | 1;
  online: boolean;
  last_seen: string | null;
}

export interface MachineLocation {
  machine_id: number;
  lat: number | null;
  lng: number | null;
  address: string;
  /** gps | base | ip | manual */
  locationWay: string;
  /** Fixes left today (SPEC: 5 per day). */
  remaining: number;
}

// ---- Groups (GET, POST, PUT, DELETE /api/device/v1/userGroup) ----

export const groupCreateBody = z.object({ name: groupNameField });
export const groupRenameBody = z.object({ id: idField, name: groupNameField });
export const groupDeleteBody = z.object({ id: idField });
export const groupMoveBody = z.object({
  /** 0 moves the devices out of any group. */
  groupId: idOrZeroField,
  deviceIds: z
    .union([z.array(idField), idField.transform((v) => [v]), z.string()])
    .transform((v) => (typeof v === "string" ? v.split(",").map((part) => Number(part.trim())) : v))
    .pipe(
      z
        .array(z.number().int().min(1, { error: "v.id" }).max(ID_MAX, { error: "v.id" }))
        .min(1, { error: "v.id" }),
    ),
});

/** Upper limit of groups per user (SPEC: "group limit reached"; the number is ours). */
export const GROUP_LIMIT = 50;

// ---- Enterprises ----

export const eidBody = z.object({ eid: idField });

export const enterpriseDeviceListBody = z.object({
  eid: idField,
  ...deviceListPage,
  groupId: optionalGroupId,
  search: optionalText(40),
  version: optionalText(32),
  /** 1 enterprise devices, 2 maintenance devices. */
  type: z.coerce.number().int().min(1).max(2).default(1),
});

export const enterpriseMachineBody = z.object({ eid: idField, machineId: idField });
export const maintenanceRemarkBody = z.object({
  eid: idField,
  machineId: idField,
  remark: remarkField,
});

// ---- Operator back-office and enterprise admin ----

export const provisionBody = z.object({
  count: z.coerce
    .number({ error: "v.count" })
    .int()
    .min(1, { error: "v.count" })
    .max(1000, { error: "v.count" }),
  model: optionalText(32),
});

export const enterpriseNameField = z
  .string({ error: "v.required" })
  .trim()
  .min(2, { error: "v.enterpriseName" })
  .max(40, { error: "v.enterpriseName" });

export const enterpriseCreateBody = z.object({
  name: enterpriseNameField,
  platformName: optionalText(40),
  applyLogoUrl: optionalText(300),
  enableProject: z.coerce.number().int().min(0).max(1).default(0),
});

/** A user creates an enterprise of their own (the web form and the route). */
export const userEnterpriseCreateBody = z.object({
  name: enterpriseNameField,
  enableProject: z.coerce.number().int().min(0).max(1).default(1),
});

/** An admin of a user-created enterprise (or the operator) switches its projects. */
export const enterpriseProjectBody = z.object({
  eid: idField,
  enableProject: z.coerce.number().int().min(0).max(1),
});

/** The operator's per-brand switches (`oemid` of brands.ts). */
export const brandSettingsBody = z.object({
  oemid: z.string().trim().min(1).max(40),
  userEnterprises: z.coerce.number().int().min(0).max(1),
});

/** Whether the caller may create an enterprise now, and how many they have created. */
export interface EnterpriseCreation {
  /** The brand lets its users create enterprises. */
  allowed: boolean;
  created: number;
  limit: number;
}

/** One brand's switches as the operator sees them. */
export interface BrandSettingsView {
  oemid: string;
  name: { zh: string; en: string };
  userEnterprises: 0 | 1;
}

export const MEMBER_KINDS = ["member", "maintenance"] as const;
export type MemberKind = (typeof MEMBER_KINDS)[number];

export const memberAddBody = z.object({
  eid: idField,
  account: z.string({ error: "v.required" }).trim().min(1, { error: "v.account" }).max(100),
  countryCode: optionalText(6),
  kind: z.enum(MEMBER_KINDS, { error: "v.memberKind" }),
  isAdmin: z.coerce.number().int().min(0).max(1).default(0),
});
export const memberRemoveBody = z.object({
  eid: idField,
  userId: idField,
  kind: z.enum(MEMBER_KINDS, { error: "v.memberKind" }),
});

export const enterpriseDeviceAssignBody = z.object({
  eid: idField,
  machineCode: machineCodeField,
  /** 1 enterprise device, 2 maintenance device. */
  type: z.coerce.number().int().min(1).max(2).default(1),
});
export const enterpriseDeviceRemoveBody = z.object({
  eid: idField,
  machineId: idField,
  type: z.coerce.number().int().min(1).max(2).default(1),
});

export const registryQuery = z.object({
  page: pageField.default(1),
  pageSize: pageField.max(200).default(20),
  search: optionalText(40),
});

// ---- Response shapes ----

/** limit_authority: 3 Akey, 2 Bkey or ordinary user, 0 none. */
export type LimitAuthority = 0 | 2 | 3;

export interface Machine {
  machine_id: number;
  machine_code: string;
  machine_name: string;
  machine_remark: string;
  alias: string;
  maintenance_remark: string;
  limit_authority: LimitAuthority;
  /** The viewer's exact identity (limit_authority 2 covers both Bkey and ordinary user). */
  role: DeviceRole;
  /** 0 Akey+Bkey, 1 Akey+Password. */
  check_type: 0 | 1;
  cloud_service: 0 | 1;
  /** The user's group id, 0 when ungrouped. */
  groups: number;
  group_name: string;
  state: 0 | 1;
  online: boolean;
  /** The device's agent offers its screen (VNC) now: the lists show "Screen". */
  screen?: boolean;
  model: string;
  version: string;
  ip: string;
  iccid_num: string;
  eid: number;
  hasPasswd: 0 | 1;
  lat: number | null;
  lng: number | null;
  address: string;
  /** gps | base | ip (located automatically by that way) or manual (placed by hand). */
  locationWay: string;
  /** auto (the device reports its fixes) or manual. */
  locationType: "auto" | "manual";
  /** The device's camera cloud account (0: none; docs/architecture/devices.md#cameras). */
  ezviz_account_id: number;
  icon: string;
  created_at: string;
}

export interface DeviceGroup {
  id: number;
  name: string;
  deviceCount: number;
}

export interface EnterpriseSummary {
  eid: number;
  name: string;
  enableProject: 0 | 1;
  platformName: string;
  applyLogoUrl: string;
  /** The caller's kinds of membership and admin flag. */
  kinds: MemberKind[];
  isAdmin: 0 | 1;
}

export interface EnterpriseMember {
  userId: number;
  name: string;
  account: string;
  kind: MemberKind;
  isAdmin: 0 | 1;
}

export interface ProvisionedDevice {
  machineCode: string;
  /** Authenticates the device itself (MQTT password); shown once. */
  deviceSecret: string;
  /** What a user types to add the device; shown once. */
  devicePassword: string;
  model: string;
}

export interface RegistryEntry {
  machine_id: number;
  machine_code: string;
  model: string;
  akey: string | null;
  eid: number | null;
  enterprise_name: string | null;
  created_at: string;
}

export interface MachineTypeIcon {
  /** A regular expression over the model / machine name. */
  pattern: string;
  image: string;
  name: string;
  nameZh: string;
}

/** `GET /api/internal/v1/icons`: the machine type icon map. */
export interface MachineIconMap {
  list: MachineTypeIcon[];
  default: { image: string; name: string; nameZh: string };
}

export type DeviceRole = "akey" | "bkey" | "user" | "visitor" | "none";

/** `GET /api/device/v1/user/role/info`: the caller's identity on a device. */
export interface DeviceRoleInfo {
  limit_authority: LimitAuthority;
  role: DeviceRole;
}

/** `GET /eapi/o/getlogo`. */
export interface EnterpriseLogo {
  name: string;
  platformName: string;
  applyLogoUrl: string;
}

/** 1 enterprise devices, 2 maintenance devices. */
export type EnterpriseDeviceType = 1 | 2;
