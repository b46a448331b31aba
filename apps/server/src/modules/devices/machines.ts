import type { CommandPayload } from "@keyway/protocol";
import { AUDIT_STATE, type DeviceRoleInfo, type Machine } from "@keyway/shared";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { verifyPassword } from "../../infra/crypto.ts";
import { accessRequests, blackList, visitGrants } from "../access/schema.ts";
import { enterpriseDevices } from "../enterprises/schema.ts";
import type { Permissions } from "../permissions/service.ts";
import type { DeviceGroups } from "./groups.ts";
import type { PersonalLists } from "./lists.ts";
import { AUTHORITY, toMachine } from "./machine.ts";
import { deviceByCode, hasAkey } from "./registry.ts";
import { deviceLinks, devices } from "./schema.ts";

/** A user's own devices: adding one by code and password, editing, removing, the cloud switch. */
export function createPersonalMachines(deps: {
  db: Db;
  clock: Clock;
  lists: PersonalLists;
  groups: DeviceGroups;
  permissions: Pick<Permissions, "require">;
  sendCommand?: (machineCode: string, command: CommandPayload) => Promise<void>;
  /** Where changed rights and links are told (domain events). */
  events?: Pick<Events, "publish">;
  releaseFromProjects?: (deviceId: number) => Promise<unknown>;
}) {
  const { db, clock, lists, groups } = deps;

  async function add(
    userId: number,
    input: { name: string; code: string; password: string; groupId?: number },
  ): Promise<Machine> {
    const device = await deviceByCode(db, input.code);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const [held] = await db
      .select({ id: enterpriseDevices.deviceId })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.deviceId, device.id), eq(enterpriseDevices.type, 1)))
      .limit(1);
    // Owned already: said before the password, so someone with only the code is led to a
    // visit or bind request (the code is what such a request names anyway).
    if ((await hasAkey(db, device.id)) || held) throw fail("DEVICE_ALREADY_ADDED");
    if (!(await verifyPassword(device.passwordHash, input.password))) {
      throw fail("DEVICE_PASSWORD_ERROR");
    }
    const groupId = await groups.requireGroup(userId, input.groupId);
    try {
      const [link] = await db
        .insert(deviceLinks)
        .values({
          deviceId: device.id,
          userId,
          role: "akey",
          name: input.name,
          groupId,
          createdAt: clock.now(),
        })
        .returning();
      return toMachine(device, { link });
    } catch (error) {
      // Two users adding the same device at once: the one-Akey index decides.
      if (isUniqueViolation(error)) throw fail("DEVICE_ALREADY_ADDED");
      throw error;
    }
  }

  async function roleInfo(userId: number, deviceId: number): Promise<DeviceRoleInfo> {
    const [link] = await db
      .select({ role: deviceLinks.role })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    return {
      limit_authority: link ? AUTHORITY[link.role] : 0,
      role: link?.role ?? "none",
    };
  }

  async function update(
    userId: number,
    input: {
      deviceId: number;
      name: string;
      remark?: string;
      alias?: string;
      groupId?: number;
      /** The code of the device the client is editing: a guard against a stale row. */
      code?: string;
    },
  ): Promise<Machine> {
    // SPEC §8 edit codes (docs/architecture/devices.md): 04010412 the id is not in the
    // caller's list; 04010406 the code is another of the caller's devices; 040104011 it is
    // none of them.
    const row = await lists.requireLink(userId, input.deviceId);
    const code = input.code?.trim().toUpperCase();
    if (code && code !== row.device.code) {
      const [other] = await db
        .select({ id: devices.id })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(eq(deviceLinks.userId, userId), eq(devices.code, code)))
        .limit(1);
      throw fail(other ? "EDIT_MACHINE_CODE_EXISTS" : "EDIT_MACHINE_FAILED");
    }
    const groupId =
      input.groupId === undefined ? undefined : await groups.requireGroup(userId, input.groupId);
    await db
      .update(deviceLinks)
      .set({
        name: input.name,
        ...(input.remark !== undefined && { remark: input.remark }),
        ...(input.alias !== undefined && { alias: input.alias }),
        ...(groupId !== undefined && { groupId }),
      })
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, input.deviceId)));
    return lists.detail(userId, input.deviceId);
  }

  /**
   * Removes the device from the user's list. When the Akey deletes it the device is unbound:
   * every identity on it goes, and it can be added again.
   */
  async function remove(userId: number, deviceId: number): Promise<void> {
    const [link] = await db
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    // Missing, someone else's or already deleted: one answer, so ids cannot be probed; the
    // client counts it as success.
    if (!link) throw fail("DELETE_MACHINE_GONE");
    await db.transaction(async (tx) => {
      const mine = await tx
        .delete(deviceLinks)
        .where(eq(deviceLinks.id, link.id))
        .returning({ id: deviceLinks.id });
      // The link went between the read and now (the Akey unbound the device meanwhile).
      if (mine.length === 0) throw fail("DELETE_MACHINE_NOT_BOUND");
      if (link.role === "akey") {
        // Unbound: no identity, visit time, black list or open request survives the owner.
        await tx.delete(deviceLinks).where(eq(deviceLinks.deviceId, deviceId));
        await tx.delete(visitGrants).where(eq(visitGrants.deviceId, deviceId));
        await tx.delete(blackList).where(eq(blackList.deviceId, deviceId));
        await tx
          .update(accessRequests)
          .set({ state: AUDIT_STATE.refusedByAkey, updatedAt: clock.now() })
          .where(
            and(
              eq(accessRequests.deviceId, deviceId),
              inArray(accessRequests.state, [
                AUDIT_STATE.pending,
                AUDIT_STATE.akeyPassedWaitingBkey,
                AUDIT_STATE.bkeyPassedWaitingAkey,
              ]),
            ),
          );
      } else {
        await tx
          .delete(visitGrants)
          .where(and(eq(visitGrants.deviceId, deviceId), eq(visitGrants.userId, userId)));
      }
    });
    deps.events?.publish("rights.changed", {
      deviceId,
      userId: link.role === "akey" ? undefined : userId,
    });
    await deps.releaseFromProjects?.(deviceId);
  }

  /**
   * The cloud switch (SPEC machineCloudSwitchState): only the Akey turns it; the device is
   * told at once when connected, and again by the gateway each time it (re)connects.
   */
  async function cloudSwitch(userId: number, deviceId: number, open?: boolean) {
    const row = await lists.requireLink(userId, deviceId);
    if (open !== undefined) {
      await deps.permissions.require(userId, deviceId, "own");
      await db.update(devices).set({ cloudService: open }).where(eq(devices.id, deviceId));
      if (!open) deps.events?.publish("rights.changed", { deviceId });
      await deps.sendCommand?.(row.device.code, { type: "cloudSwitch", open });
    }
    const current = open ?? row.device.cloudService;
    return { machine_id: deviceId, cloud_service: current ? 1 : 0 };
  }

  return { add, roleInfo, update, remove, cloudSwitch };
}
