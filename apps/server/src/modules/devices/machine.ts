import { type LimitAuthority, type Machine, machineIconFor, machineIconUrl } from "@keyway/shared";
import { sql } from "drizzle-orm";
import { type Device, type DeviceLink, devices } from "./schema.ts";

/** SPEC limit_authority of each identity on a personal device. */
export const AUTHORITY: Record<DeviceLink["role"], LimitAuthority> = {
  akey: 3,
  bkey: 2,
  user: 2,
  visitor: 2,
};

/**
 * `devices.id` always qualified: a single-table select prints a bare "id", which the subquery
 * below would read as its own camera_accounts.id.
 */
const deviceIdQualified = sql`${devices}.${sql.identifier(devices.id.name)}`;

/**
 * The Machine's ezviz_account_id as a column of a device query: the device's bound camera
 * account while that account's owner is still the device's Akey (a transferred device does
 * not keep the former owner's credentials; docs/architecture/devices.md), else 0. Raw
 * aliases so that it never mixes with the outer query's own device_links, and so that the
 * device module needs nothing of the cameras module (which builds on this one).
 */
export const ezvizAccountIdColumn =
  sql<number>`coalesce((select cb.account_id from camera_bindings cb join camera_accounts ca on ca.id = cb.account_id join device_links dl on dl.device_id = cb.device_id and dl.user_id = ca.user_id and dl.role = 'akey' where cb.device_id = ${deviceIdQualified} limit 1), 0)`.mapWith(
    Number,
  );

/** The device columns a Machine shows: lists select only these (never the hashes). */
export const machineColumns = {
  id: devices.id,
  code: devices.code,
  model: devices.model,
  checkType: devices.checkType,
  cloudService: devices.cloudService,
  online: devices.online,
  version: devices.version,
  ip: devices.ip,
  iccid: devices.iccid,
  locationWay: devices.locationWay,
  lat: devices.lat,
  lng: devices.lng,
  address: devices.address,
  createdAt: devices.createdAt,
  ezvizAccountId: ezvizAccountIdColumn,
};
type MachineSource = Pick<Device, Exclude<keyof typeof machineColumns, "ezvizAccountId">> & {
  /** The bound camera account (SPEC ezviz_account_id); absent on a bare device row: 0. */
  ezvizAccountId?: number;
};

/** The SPEC's Machine as the wire shows it, from a device and the viewer's link to it. */
export function toMachine(
  device: MachineSource,
  view: {
    link?: Pick<DeviceLink, "role" | "name" | "alias" | "remark" | "groupId" | "createdAt"> | null;
    groupName?: string | null;
    eid?: number;
    name?: string;
    maintenanceRemark?: string;
    groupId?: number | null;
  } = {},
): Machine {
  const name = view.link?.name ?? view.name ?? device.code;
  return {
    machine_id: device.id,
    machine_code: device.code,
    machine_name: name,
    machine_remark: view.link?.remark ?? "",
    alias: view.link?.alias ?? "",
    maintenance_remark: view.maintenanceRemark ?? "",
    limit_authority: view.link ? AUTHORITY[view.link.role] : 0,
    role: view.link?.role ?? "none",
    check_type: device.checkType === 1 ? 1 : 0,
    cloud_service: device.cloudService ? 1 : 0,
    groups: (view.link ? view.link.groupId : view.groupId) ?? 0,
    group_name: view.groupName ?? "",
    state: device.online ? 1 : 0,
    online: device.online,
    model: device.model,
    version: device.version,
    ip: device.ip,
    iccid_num: device.iccid,
    eid: view.eid ?? 0,
    hasPasswd: 1,
    lat: device.lat,
    lng: device.lng,
    address: device.address,
    locationWay: device.locationWay,
    locationType: device.locationWay === "manual" ? "manual" : "auto",
    ezviz_account_id: device.ezvizAccountId ?? 0,
    icon: machineIconUrl(machineIconFor(device.model, name)),
    created_at: (view.link?.createdAt ?? device.createdAt).toISOString(),
  };
}
