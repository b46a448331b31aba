import type {
  AUTO_LOCATION_WAYS,
  DeviceGroup,
  DeviceRole,
  DeviceRoleInfo,
  groupMoveBody,
  Machine,
  MachineIconMap,
  MachineLocation,
  MachineStateEntry,
  MachineTypeIcon,
  ParsedInputOf,
} from "@keyway/shared";
import { API } from "@keyway/shared";
import type { z } from "zod";
import { request } from "./client.ts";
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

const d = API.devices;
const l = API.location;

export type AutoLocationWay = (typeof AUTO_LOCATION_WAYS)[number];
export type ManualLocationPayload = ParsedInputOf<typeof l.setManual>;

export interface MachineSelectQuery {
  groupId?: number;
  search?: string;
  /** The server's page of the list (SPEC §7: 5000 a page); absent: the first. */
  page?: number;
}

export type MachineAddPayload = ParsedInputOf<typeof d.add>;
export type MachineUpdatePayload = ParsedInputOf<typeof d.update>;

/** SPEC §8: deleting a device that is already gone or unbound counts as success. */
export const DELETE_AS_SUCCESS = ["040103010", "04010307"] as const;

/** Personal devices and groups (SPEC §7 "Machines"). */
export const devicesApi = {
  select: (query: MachineSelectQuery) => request(d.select, { ...query }),
  add: (body: MachineAddPayload) => request(d.add, body),
  update: (body: MachineUpdatePayload) => request(d.update, body),
  remove: async (machine: Pick<Machine, "machine_id" | "limit_authority">): Promise<null> => {
    try {
      await request(d.remove, {
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
  detail: (deviceId: number) => request(d.detail, { deviceId }),
  roleInfo: (deviceId: number) => request(d.roleInfo, { deviceId }),
  icons: () => request(d.icons),

  groups: () => request(d.groups),
  createGroup: (body: ParsedInputOf<typeof d.createGroup>) => request(d.createGroup, body),
  renameGroup: (body: ParsedInputOf<typeof d.renameGroup>) => request(d.renameGroup, body),
  deleteGroup: (id: number) => request(d.deleteGroup, { id }),
  /** groupId 0 takes the devices out of any group. */
  moveToGroup: (body: Pick<z.output<typeof groupMoveBody>, "groupId" | "deviceIds">) =>
    request(d.moveToGroup, { groupId: body.groupId, deviceIds: body.deviceIds.join(",") }),

  // ---- State, alarms, location and the cloud switch (SPEC §2 device detail) ----

  /** Online state of the caller's devices: all of them, or those of `machineIds`. */
  states: (machineIds?: readonly number[]) =>
    request(d.states, { machineIds: machineIds ? machineIds.join(",") : undefined }),
  /** Reads the cloud switch (no state) or turns it (Akey only). */
  cloudSwitch: (machineId: number, state?: 0 | 1) => request(d.cloudSwitch, { machineId, state }),
  location: (machineId: number) => request(l.get, { machineId }),
  setAutoLocationWay: (machineId: number, way: AutoLocationWay) =>
    request(l.setAutomatic, { machineId, way }),
  setManualLocation: (body: ManualLocationPayload) => request(l.setManual, { ...body }),
  /** Asks the device for a fresh fix (SPEC §9: 5 a day). */
  refreshLocation: (machineId: number) => request(l.refresh, { machineId }),
};
