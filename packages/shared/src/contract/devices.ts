import type { ListResult } from "../accounts.ts";
import {
  cloudSwitchBody,
  type DeviceGroup,
  type DeviceListPage,
  type DeviceRoleInfo,
  deviceDetailPageBody,
  deviceIdQuery,
  groupCreateBody,
  groupDeleteBody,
  groupMoveBody,
  groupRenameBody,
  type Machine,
  type MachineIconMap,
  type MachineStateEntry,
  machineAddBody,
  machineCodesBody,
  machineDelBody,
  machineSelectBody,
  machineStateBody,
  machineStatesBody,
  machineUpdateBody,
  type ProvisionedDevice,
  provisionBody,
  testMachineStateBody,
} from "../devices.ts";
import { group, route } from "./route.ts";

/** The cloud switch as the server answers it (1 open, 0 closed). */
interface CloudSwitchState {
  machine_id: number;
  cloud_service: 0 | 1;
}

type MachineState = Pick<MachineStateEntry, "state" | "online">;

/** SPEC §7 "Machines": the caller's personal devices (docs/architecture/devices.md). */
const machines = group(
  { auth: "user", tags: ["devices"] },
  {
    select: route<DeviceListPage>()({
      method: "POST",
      path: "/api/machine/select",
      summary: "The caller's personal devices, a page at a time (first page of 5000 by default)",
      input: machineSelectBody.nullish(),
    }),
    add: route<Machine>()({
      method: "POST",
      path: "/api/machine/add",
      summary: "Add a device by machine code and device password",
      input: machineAddBody,
    }),
    remove: route()({
      method: "POST",
      path: "/api/machine/del",
      summary: "Remove a device from the caller's list (the Akey unbinds it)",
      input: machineDelBody,
    }),
    update: route<Machine>()({
      method: "POST",
      path: "/api/machine/update",
      summary: "Edit name, remark, alias and group",
      input: machineUpdateBody,
    }),
    state: route<MachineState>()({
      method: "POST",
      path: "/api/machine/getMachineState",
      summary: "Online state of one of the caller's devices",
      input: machineStateBody,
    }),
    detail: route<Machine>()({
      method: "GET",
      path: "/api/device/v1/detail",
      summary: "Device detail",
      input: deviceIdQuery,
    }),
    detailPage: route<DeviceListPage>()({
      method: "POST",
      path: "/api/device/v1/detail/page",
      summary: "The caller's personal devices in detail, a page at a time",
      input: deviceDetailPageBody.nullish(),
    }),
    roleInfo: route<DeviceRoleInfo>()({
      method: "GET",
      path: "/api/device/v1/user/role/info",
      summary: "The caller's identity on a device",
      input: deviceIdQuery,
    }),
    states: route<ListResult<MachineStateEntry>>()({
      method: "POST",
      path: "/api/machine/machineStates",
      summary: "Online state of the caller's devices (all, or by machineIds)",
      input: machineStatesBody.nullish(),
    }),
    statesByCode: route<ListResult<MachineStateEntry>>()({
      method: "POST",
      path: "/api/machine/getMachineStates",
      summary: "Online state of the caller's devices by machine code",
      input: machineCodesBody,
    }),
    testState: route<MachineState & Pick<MachineStateEntry, "machine_code">>()({
      method: "POST",
      path: "/api/tls/testMachineState",
      summary: "State of the device a visit URL (or machine code) points at",
      input: testMachineStateBody,
    }),
    cloudSwitch: route<CloudSwitchState>()({
      method: "POST",
      path: "/api/machine/machineCloudSwitchState",
      summary: "Read or turn the cloud switch (Akey)",
      input: cloudSwitchBody,
    }),
    icons: route<MachineIconMap>()({
      method: "GET",
      path: "/api/internal/v1/icons",
      summary: "Machine type icon map",
      auth: "none",
    }),
  },
);

/** The caller's personal device groups. */
const groups = group(
  { auth: "user", tags: ["groups"] },
  {
    groups: route<ListResult<DeviceGroup>>()({
      method: "GET",
      path: "/api/device/v1/userGroup",
      summary: "The caller's device groups",
    }),
    createGroup: route<DeviceGroup>()({
      method: "POST",
      path: "/api/device/v1/userGroup",
      summary: "Create a group",
      input: groupCreateBody,
    }),
    renameGroup: route()({
      method: "PUT",
      path: "/api/device/v1/userGroup",
      summary: "Rename a group",
      input: groupRenameBody,
    }),
    // The id may come in the body or, for clients that send no DELETE body, the query.
    deleteGroup: route()({
      method: "DELETE",
      path: "/api/device/v1/userGroup",
      summary: "Delete an empty group (id in the body or the query)",
      input: groupDeleteBody,
      bodyOrQuery: true,
    }),
    moveToGroup: route()({
      method: "PUT",
      path: "/api/device/v1/userGroup/move",
      summary: "Move devices into a group (0: no group)",
      input: groupMoveBody,
    }),
  },
);

/** The operator issues machine codes. */
const provisioning = group(
  { auth: "operator", tags: ["operator"] },
  {
    provision: route<{ list: ProvisionedDevice[] }>()({
      method: "POST",
      path: "/api/operator/v1/devices/provision",
      summary: "Issue machine codes (secrets and passwords are shown once)",
      input: provisionBody,
    }),
  },
);

/** Devices, groups and provisioning: one domain under three OpenAPI tags. */
export const devices = { ...machines, ...groups, ...provisioning };
