import { type DeviceGroup, GROUP_LIMIT } from "@keyway/shared";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { deviceGroups, deviceLinks } from "./schema.ts";

export type DeviceGroups = ReturnType<typeof createDeviceGroups>;

/** A user's personal groups of devices. */
export function createDeviceGroups(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  /** The user's group by id (none for 0 or absent); another user's group is not found. */
  async function requireGroup(userId: number, groupId: number | undefined): Promise<number | null> {
    if (!groupId) return null;
    const [group] = await db
      .select({ id: deviceGroups.id })
      .from(deviceGroups)
      .where(and(eq(deviceGroups.id, groupId), eq(deviceGroups.userId, userId)))
      .limit(1);
    if (!group) throw fail("GROUP_NOT_FOUND");
    return group.id;
  }

  async function listGroups(userId: number): Promise<{ list: DeviceGroup[]; total: number }> {
    const rows = await db
      .select({
        id: deviceGroups.id,
        name: deviceGroups.name,
        deviceCount: sql<number>`cast(count(${deviceLinks.id}) as int)`,
      })
      .from(deviceGroups)
      .leftJoin(deviceLinks, eq(deviceLinks.groupId, deviceGroups.id))
      .where(eq(deviceGroups.userId, userId))
      .groupBy(deviceGroups.id)
      .orderBy(deviceGroups.id);
    return { list: rows, total: rows.length };
  }

  async function createGroup(userId: number, name: string): Promise<DeviceGroup> {
    const [{ n }] = await db
      .select({ n: count() })
      .from(deviceGroups)
      .where(eq(deviceGroups.userId, userId));
    if (n >= GROUP_LIMIT) throw fail("GROUP_LIMIT");
    try {
      const [group] = await db
        .insert(deviceGroups)
        .values({ userId, name, createdAt: clock.now() })
        .returning();
      return { id: group.id, name: group.name, deviceCount: 0 };
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("GROUP_EXISTS");
      throw error;
    }
  }

  async function renameGroup(userId: number, id: number, name: string): Promise<void> {
    try {
      const updated = await db
        .update(deviceGroups)
        .set({ name })
        .where(and(eq(deviceGroups.id, id), eq(deviceGroups.userId, userId)))
        .returning({ id: deviceGroups.id });
      if (updated.length === 0) throw fail("GROUP_NOT_FOUND");
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("GROUP_EXISTS");
      throw error;
    }
  }

  async function deleteGroup(userId: number, id: number): Promise<void> {
    await requireGroup(userId, id);
    const [{ n }] = await db
      .select({ n: count() })
      .from(deviceLinks)
      .where(eq(deviceLinks.groupId, id));
    if (n > 0) throw fail("GROUP_NOT_EMPTY");
    await db
      .delete(deviceGroups)
      .where(and(eq(deviceGroups.id, id), eq(deviceGroups.userId, userId)));
  }

  async function moveToGroup(userId: number, groupId: number, deviceIds: number[]): Promise<void> {
    const target = await requireGroup(userId, groupId);
    const unique = [...new Set(deviceIds)];
    const owned = await db
      .select({ deviceId: deviceLinks.deviceId })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), inArray(deviceLinks.deviceId, unique)));
    if (owned.length !== unique.length) throw fail("EDIT_MACHINE_NOT_FOUND");
    await db
      .update(deviceLinks)
      .set({ groupId: target })
      .where(and(eq(deviceLinks.userId, userId), inArray(deviceLinks.deviceId, unique)));
  }

  return { requireGroup, listGroups, createGroup, renameGroup, deleteGroup, moveToGroup };
}
