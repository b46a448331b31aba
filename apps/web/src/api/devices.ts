import type {
  AUTO_LOCATION_WAYS,
  DeviceGroup,
  DeviceRole,
  DeviceRoleInfo,
  groupCreateBody,
  groupMoveBody,
  groupRenameBody,
  ListResult,
  Machine,
  MachineIconMap,
  MachineLocation,
  MachineStateEntry,
  MachineTypeIcon,
  machineAddBody,
  machineUpdateBody,
  manualLocationBody,
} from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";
import { ApiError } from "./errors.ts";

export type {
  DeviceGroup,
  DeviceRole,
  DeviceRoleInfo,
  Machine,
  MachineIconMap,
  MachineLocation,
  MachineStateEntry,
  MachineTypeIcon,
};

export type AutoLocationWay = (typeof AUTO_LOCATION_WAYS)[number];
export type ManualLocationPayload = z.output<typeof manualLocationBody>;

/** The cloud switch as the server answers it (1 open, 0 closed). */
export interface CloudSwitchState {
  machine_id: number;
  cloud_service: 0 | 1;
}

export interface MachineSelectQuery {
  groupId?: number;
  search?: string;
}

export type MachineAddPayload = z.output<typeof machineAddBody>;
export type MachineUpdatePayload = z.output<typeof machineUpdateBody>;

/** SPEC §8: deleting a device that is already gone or unbound counts as success. */
export const DELETE_AS_SUCCESS = ["040103010", "04010307"] as const;

/** Personal devices and groups (SPEC §7 "Machines"). */
export const devicesApi = {
  select: (query: MachineSelectQuery) =>
    api.post<ListResult<Machine>>("/machine/select", { ...query }),
  add: (body: MachineAddPayload) => api.post<Machine>("/machine/add", body),
  update: (body: MachineUpdatePayload) => api.post<Machine>("/machine/update", body),
  remove: async (machine: Pick<Machine, "machine_id" | "limit_authority">): Promise<null> => {
    try {
      await api.post<null>("/machine/del", {
        delMachineID: machine.machine_id,
        isAkey: machine.limit_authority === 3 ? 1 : 0,
      });
    } catch (error) {
      if (error instanceof ApiError && DELETE_AS_SUCCESS.some((code) => error.is(code))) {
        return null;
      }
      throw error;
    }
    return null;
  },
  detail: (deviceId: number) => api.get<Machine>("/device/v1/detail", { deviceId }),
  roleInfo: (deviceId: number) =>
    api.get<DeviceRoleInfo>("/device/v1/user/role/info", { deviceId }),
  icons: () => api.get<MachineIconMap>("/internal/v1/icons"),

  groups: () => api.get<ListResult<DeviceGroup>>("/device/v1/userGroup"),
  createGroup: (body: z.output<typeof groupCreateBody>) =>
    api.post<DeviceGroup>("/device/v1/userGroup", body),
  renameGroup: (body: z.output<typeof groupRenameBody>) =>
    api.put<DeviceGroup>("/device/v1/userGroup", body),
  deleteGroup: (id: number) => api.delete<null>("/device/v1/userGroup", { id }),
  /** groupId 0 takes the devices out of any group. */
  moveToGroup: (body: Pick<z.output<typeof groupMoveBody>, "groupId" | "deviceIds">) =>
    api.put<null>("/device/v1/userGroup/move", {
      groupId: body.groupId,
      deviceIds: body.deviceIds.join(","),
    }),

  // ---- State, alarms, location and the cloud switch (SPEC §2 device detail) ----

  /** Online state of the caller's devices: all of them, or those of `machineIds`. */
  states: (machineIds?: readonly number[]) =>
    api.post<ListResult<MachineStateEntry>>("/machine/machineStates", {
      machineIds: machineIds ? machineIds.join(",") : undefined,
    }),
  /** Reads the cloud switch (no state) or turns it (Akey only). */
  cloudSwitch: (machineId: number, state?: 0 | 1) =>
    api.post<CloudSwitchState>("/machine/machineCloudSwitchState", { machineId, state }),
  location: (machineId: number) =>
    api.post<MachineLocation>("/machine/machineLocationWay", { machineId }),
  setAutoLocationWay: (machineId: number, way: AutoLocationWay) =>
    api.post<MachineLocation>("/machine/machineAutoLocationWay", { machineId, way }),
  setManualLocation: (body: ManualLocationPayload) =>
    api.post<MachineLocation>("/machine/machineManualLocation", { ...body }),
  /** Asks the device for a fresh fix (SPEC §9: 5 a day). */
  refreshLocation: (machineId: number) =>
    api.post<MachineLocation>("/machine/machineAutoLocationAddress", { machineId }),
};
