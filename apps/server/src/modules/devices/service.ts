import type { CommandPayload } from "@keyway/protocol";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import { createPermissions, type Permissions } from "../permissions/service.ts";
import { createDeviceGroups } from "./groups.ts";
import { createPersonalLists } from "./lists.ts";
import { createPersonalMachines } from "./machines.ts";
import { createDeviceRegistry } from "./registry.ts";
import type { ScreenLookup } from "./screens.ts";
import { createDeviceStates } from "./states.ts";

export type DeviceService = ReturnType<typeof createDeviceService>;

/**
 * Devices in a user's personal context, their groups, and the operator's registry: one
 * file per job (registry, lists, groups, machines, states), composed here. Who may see or
 * act on a device is the permissions module's rule (docs/architecture/permissions.md).
 */
export function createDeviceService(deps: {
  db: Db;
  clock: Clock;
  /** Who sees / may act on a device; tools like the CLI, which only provision, omit it. */
  permissions?: Permissions;
  /** Delivers a command to a device (the gateway); absent in tools like the CLI. */
  sendCommand?: (machineCode: string, command: CommandPayload) => Promise<void>;
  /** Where ended identities are told ("rights.changed": remote access closes streams). */
  events?: Pick<Events, "publish">;
  /** After a delete: projects whose owner no longer manages the device let it go. */
  releaseFromProjects?: (deviceId: number) => Promise<unknown>;
  /** Which devices' agents offer their screen now (Machine.screen); absent in tools. */
  screens?: ScreenLookup;
}) {
  const permissions = deps.permissions ?? createPermissions(deps);
  const registry = createDeviceRegistry(deps);
  const lists = createPersonalLists(deps);
  const groups = createDeviceGroups(deps);
  const machines = createPersonalMachines({ ...deps, lists, groups, permissions });
  const states = createDeviceStates({ db: deps.db, permissions });

  return {
    /**
     * The user's personal list as a subquery other modules filter by (the alarm centre):
     * the permissions module's scope, kept here for the callers that know devices.
     */
    personalScope: permissions.personalScope,
    provision: registry.provision,
    findByCode: registry.findByCode,
    add: machines.add,
    list: lists.list,
    detail: lists.detail,
    roleInfo: machines.roleInfo,
    update: machines.update,
    remove: machines.remove,
    state: states.state,
    states: states.states,
    testState: states.testState,
    cloudSwitch: machines.cloudSwitch,
    listGroups: groups.listGroups,
    createGroup: groups.createGroup,
    renameGroup: groups.renameGroup,
    deleteGroup: groups.deleteGroup,
    moveToGroup: groups.moveToGroup,
  };
}
