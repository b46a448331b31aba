import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";

/** Device list type of the SPEC: 1 enterprise devices, 2 maintenance devices. */
export type ListType = 1 | 2;

/**
 * The enterprise half of "who sees a device": an admin sees both lists, a member the
 * enterprise devices (type 1), a maintenance member the maintenance devices (type 2).
 * A condition on a join of enterprise_devices with the user's enterprise_members rows.
 */
export const seesHeldDevice: SQL = or(
  eq(enterpriseMembers.isAdmin, true),
  and(eq(enterpriseMembers.kind, "member"), eq(enterpriseDevices.type, 1)),
  and(eq(enterpriseMembers.kind, "maintenance"), eq(enterpriseDevices.type, 2)),
) as SQL;

/**
 * The device sets other modules filter by, as subqueries (docs/architecture/permissions.md):
 * a user's personal list, an enterprise's lists, and everything a user may see anywhere.
 */
export function createScopes(db: Db) {
  /**
   * The devices of a user's personal list: the device, the user's name for it, their
   * identity and write level. The same columns as `enterpriseScope`.
   */
  function personalScope(userId: number) {
    return db
      .select({
        deviceId: sql<number>`${deviceLinks.deviceId}`.as("scope_device_id"),
        name: sql<string>`${deviceLinks.name}`.as("scope_name"),
        role: sql<string>`${deviceLinks.role}`.as("scope_role"),
        canWrite: sql<boolean>`${deviceLinks.canWrite}`.as("scope_can_write"),
        maintained: sql<boolean>`false`.as("scope_maintained"),
      })
      .from(deviceLinks)
      .where(eq(deviceLinks.userId, userId))
      .as("scope");
  }

  /**
   * The devices of an enterprise's lists of these types, with the columns of
   * `personalScope`; `maintained`: held as a maintenance device. Which types a viewer may
   * see is the enterprises module's membership check.
   */
  function enterpriseScope(eid: number, types: readonly ListType[]) {
    return db
      .select({
        deviceId: sql<number>`${enterpriseDevices.deviceId}`.as("scope_device_id"),
        name: sql<string>`min(${enterpriseDevices.name})`.as("scope_name"),
        role: sql<string>`'enterprise'`.as("scope_role"),
        canWrite: sql<boolean>`true`.as("scope_can_write"),
        maintained: sql<boolean>`bool_or(${enterpriseDevices.type} = 2)`.as("scope_maintained"),
      })
      .from(enterpriseDevices)
      .where(
        and(eq(enterpriseDevices.enterpriseId, eid), inArray(enterpriseDevices.type, [...types])),
      )
      .groupBy(enterpriseDevices.deviceId)
      .as("scope");
  }

  /**
   * A condition on `devices.id`: the devices a user may see anywhere — any identity in their
   * personal list, and in each enterprise the list of their membership's kind.
   */
  function visibleTo(userId: number): SQL {
    const personal = db
      .select({ id: deviceLinks.deviceId })
      .from(deviceLinks)
      .where(eq(deviceLinks.userId, userId));
    const held = db
      .select({ id: enterpriseDevices.deviceId })
      .from(enterpriseDevices)
      .innerJoin(
        enterpriseMembers,
        and(
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
          eq(enterpriseMembers.userId, userId),
        ),
      )
      .where(seesHeldDevice);
    return or(inArray(devices.id, personal), inArray(devices.id, held)) as SQL;
  }

  return { personalScope, enterpriseScope, visibleTo };
}

export type Scopes = ReturnType<typeof createScopes>;
