import { eq } from "drizzle-orm";
import { fail } from "../../http/envelope.ts";
import type { AccountRef } from "../accounts/service.ts";
import { deviceLinks } from "../devices/schema.ts";
import type { AccessContext, Actor } from "./lookups.ts";

/** Handing a device over to another Akey. */
export function createTransfer(ctx: AccessContext) {
  const { db, clock, requireAkey, isBlacklisted, linkOf, rightsChanged } = ctx;

  /** The Akey hands the device over; the old Akey stays on as a Bkey. */
  async function transfer(actor: Actor, deviceId: number, ref: AccountRef) {
    const own = await requireAkey(actor.userId, deviceId);
    const user = await ctx.findUser(ref);
    if (!user) throw fail("BKEY_ACCOUNT_NOT_FOUND");
    if (user.id === actor.userId || (await isBlacklisted(deviceId, user.id)))
      throw fail("TRANSFER_TARGET_INVALID");
    const target = await linkOf(user.id, deviceId);
    await db.transaction(async (tx) => {
      await tx.update(deviceLinks).set({ role: "bkey" }).where(eq(deviceLinks.id, own.id));
      if (target)
        await tx
          .update(deviceLinks)
          .set({ role: "akey", canWrite: true, receivesAlarms: true })
          .where(eq(deviceLinks.id, target.id));
      else
        await tx.insert(deviceLinks).values({
          deviceId,
          userId: user.id,
          role: "akey",
          name: own.name,
          createdAt: clock.now(),
        });
    });
    rightsChanged(deviceId);
    return { machine_id: deviceId };
  }

  return { transfer };
}
