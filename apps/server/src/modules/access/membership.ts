import { AUDIT_STATE } from "@keyway/shared";
import { and, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { type DeviceLink, deviceLinks } from "../devices/schema.ts";
import type { AccessContext } from "./lookups.ts";
import { accessRequests, blackList, visitGrants } from "./schema.ts";

/**
 * Whether the actor may change the target's identity: the Akey never; a Bkey only
 * ordinary users and visitors; the Akey anyone else.
 */
export function mayManage(actorLink: DeviceLink, target: DeviceLink | undefined) {
  if (target?.role === "akey") throw fail("AKEY_UNCHANGEABLE");
  if (actorLink.role === "bkey" && target?.role === "bkey" && target.userId !== actorLink.userId)
    throw fail("DEVICE_NO_PERMISSION");
}

/** Removing someone from a device, shared by the audit (black-list answer) and the lists. */
export function createMembership(ctx: AccessContext) {
  const { db, clock } = ctx;

  /** Removes a user's identity and visit grants on a device (not the Akey's). */
  async function removeUser(tx: Db, deviceId: number, userId: number) {
    await tx
      .delete(deviceLinks)
      .where(
        and(
          eq(deviceLinks.deviceId, deviceId),
          eq(deviceLinks.userId, userId),
          ne(deviceLinks.role, "akey"),
        ),
      );
    await tx
      .delete(visitGrants)
      .where(and(eq(visitGrants.deviceId, deviceId), eq(visitGrants.userId, userId)));
  }

  async function addToBlackList(tx: Db, deviceId: number, userId: number, by: number) {
    await removeUser(tx, deviceId, userId);
    await tx
      .insert(blackList)
      .values({ deviceId, userId, addedBy: by, createdAt: clock.now() })
      .onConflictDoNothing();
    // Pending requests of a black-listed user are refused on the spot.
    await tx
      .update(accessRequests)
      .set({ state: AUDIT_STATE.refusedByBkey, updatedAt: clock.now() })
      .where(
        and(
          eq(accessRequests.deviceId, deviceId),
          eq(accessRequests.requesterId, userId),
          inArray(accessRequests.state, [
            AUDIT_STATE.pending,
            AUDIT_STATE.akeyPassedWaitingBkey,
            AUDIT_STATE.bkeyPassedWaitingAkey,
          ]),
        ),
      );
  }

  async function memberById(deviceId: number, id: number) {
    const [target] = await db
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.id, id), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    if (!target) throw fail("MEMBER_NOT_FOUND");
    return target as DeviceLink;
  }

  return { removeUser, addToBlackList, memberById };
}

export type Membership = ReturnType<typeof createMembership>;
