import type {
  DeviceGroup,
  DeviceRole,
  DeviceRoleInfo,
  groupCreateBody,
  groupMoveBody,
  groupRenameBody,
  ListResult,
  Machine,
  MachineIconMap,
  MachineTypeIcon,
  machineAddBody,
  machineUpdateBody,
} from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";
import { ApiError } from "./errors.ts";

export type { DeviceGroup, DeviceRole, DeviceRoleInfo, Machine, MachineIconMap, MachineTypeIcon };

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
};
