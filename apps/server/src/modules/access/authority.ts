import { type AdminEntry, AUDIT_STATE, LEVEL, MESSAGE_TYPE } from "@keyway/shared";
import { and, asc, eq } from "drizzle-orm";
import { fail } from "../../http/envelope.ts";
import { verifyPassword } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import type { AuditViews } from "./audit.ts";
import { type AccessContext, type Actor, accountOf } from "./lookups.ts";
import { type Membership, mayManage } from "./membership.ts";
import { blackList } from "./schema.ts";

/**
 * The authority of a device (SPEC §6): its members and their levels, Bkeys, the black list,
 * and the Akey's audit mode.
 */
export function createAuthority(ctx: AccessContext, views: AuditViews, membership: Membership) {
  const { db, clock, messages, requireDevice, linkOf, requireApprover, requireAkey } = ctx;
  const { approversOf, rightsChanged } = ctx;
  const { removeUser, addToBlackList, memberById } = membership;

  async function members(actor: Actor, deviceId: number): Promise<AdminEntry[]> {
    await requireApprover(actor.userId, deviceId);
    const rows = await db
      .select({ link: deviceLinks, name: users.name, phone: users.phone, email: users.email })
      .from(deviceLinks)
      .innerJoin(users, eq(users.id, deviceLinks.userId))
      .where(eq(deviceLinks.deviceId, deviceId))
      .orderBy(asc(deviceLinks.id));
    const order = { akey: 0, bkey: 1, user: 2, visitor: 3 };
    return rows
      .sort((a, b) => order[a.link.role] - order[b.link.role])
      .map((r) => ({
        id: r.link.id,
        user_id: r.link.userId,
        name: r.name,
        ...accountOf(r),
        limit_authority: r.link.role === "akey" ? 3 : 2,
        role: r.link.role,
        machine_id: deviceId,
        write: r.link.role === "user" || r.link.role === "visitor" ? (r.link.canWrite ? 1 : 0) : 1,
        alarm: r.link.receivesAlarms ? 1 : 0,
      }));
  }

  async function blacklistAdd(actor: Actor, deviceId: number, userId: number) {
    const own = await requireApprover(actor.userId, deviceId);
    if (userId === actor.userId) throw fail("DEVICE_NO_PERMISSION");
    const target = await linkOf(userId, deviceId);
    mayManage(own, target);
    const [exists] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
    if (!exists) throw fail("MEMBER_NOT_FOUND");
    await db.transaction((tx) => addToBlackList(tx, deviceId, userId, actor.userId));
    rightsChanged(deviceId, userId);
  }

  async function blacklistRemove(actor: Actor, deviceId: number, userId: number) {
    await requireApprover(actor.userId, deviceId);
    const removed = await db
      .delete(blackList)
      .where(and(eq(blackList.deviceId, deviceId), eq(blackList.userId, userId)))
      .returning({ id: blackList.id });
    if (removed.length === 0) throw fail("MEMBER_NOT_FOUND");
  }

  async function removeMember(actor: Actor, deviceId: number, id: number) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await memberById(deviceId, id);
    mayManage(own, target);
    await db.transaction((tx) => removeUser(tx, deviceId, target.userId));
    rightsChanged(deviceId, target.userId);
  }

  /** Adds a Bkey by account (SPEC admin/push): 01010304 no such account, 01010305 already Bkey. */
  async function addBkey(actor: Actor, deviceId: number, ref: AccountRef) {
    await requireApprover(actor.userId, deviceId);
    const user = await ctx.findUser(ref);
    if (!user) throw fail("BKEY_ACCOUNT_NOT_FOUND");
    const target = await linkOf(user.id, deviceId);
    if (target?.role === "akey" || target?.role === "bkey") throw fail("BKEY_EXISTS");
    const device = await requireDevice(deviceId);
    const [akey] = await approversOf(deviceId).then((a) => a.filter((x) => x.role === "akey"));
    const deviceName = akey?.name ?? device.code;
    await db.transaction(async (tx) => {
      // An explicit appointment lifts an earlier black-listing.
      await tx
        .delete(blackList)
        .where(and(eq(blackList.deviceId, deviceId), eq(blackList.userId, user.id)));
      if (target)
        await tx
          .update(deviceLinks)
          .set({ role: "bkey", canWrite: true })
          .where(eq(deviceLinks.id, target.id));
      else
        await tx.insert(deviceLinks).values({
          deviceId,
          userId: user.id,
          role: "bkey",
          name: deviceName,
          createdAt: clock.now(),
        });
      await messages.write(
        [
          {
            userId: user.id,
            box: "inbox",
            type: MESSAGE_TYPE.bindSuccess,
            deviceId,
            params: { device: deviceName },
          },
        ],
        tx,
      );
    });
    await views.announceAudit("bind", device, [user.id], AUDIT_STATE.allPassed);
    return members(actor, deviceId);
  }

  /** SPEC updateLevel: white-list visitor or ordinary user → Bkey (2); Bkey or visitor → ordinary user (1). */
  async function updateLevel(actor: Actor, deviceId: number, id: number, limit: number) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await memberById(deviceId, id);
    mayManage(own, target);
    const role = limit === LEVEL.bkey ? "bkey" : "user";
    await db
      .update(deviceLinks)
      .set({ role, ...(role === "bkey" && { canWrite: true }) })
      .where(eq(deviceLinks.id, target.id));
    rightsChanged(deviceId, target.userId);
    return members(actor, deviceId);
  }

  /** Member levels (SPEC §6): read-only or read and write; alarm or no alarm. */
  async function setLevel(
    actor: Actor,
    deviceId: number,
    userId: number,
    level: { write?: boolean; alarm?: boolean },
  ) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await linkOf(userId, deviceId);
    if (!target) throw fail("MEMBER_NOT_FOUND");
    // Anyone else's levels follow who may change whom (a Bkey silenced the Akey's or another
    // Bkey's alarms before); an approver's own alarm switch is theirs.
    const ownAlarm = level.write === undefined && target.userId === actor.userId;
    if (!ownAlarm) mayManage(own, target);
    await db
      .update(deviceLinks)
      .set({
        ...(level.write !== undefined && { canWrite: level.write }),
        ...(level.alarm !== undefined && { receivesAlarms: level.alarm }),
      })
      .where(eq(deviceLinks.id, target.id));
    if (level.write !== undefined) rightsChanged(deviceId, userId);
  }

  /** Audit mode (SPEC cloudSet/updateMachineInfo): only the Akey; password mode needs the password. */
  async function updateDeviceInfo(
    actor: Actor,
    input: { code: string; name?: string; checkType: number; password?: string },
  ) {
    const [device] = await db
      .select()
      .from(devices)
      .where(eq(devices.code, input.code.trim().toUpperCase()))
      .limit(1);
    if (!device) throw fail("EDIT_MACHINE_NOT_FOUND");
    const own = await requireAkey(actor.userId, device.id);
    if (input.checkType === 1 && device.checkType !== 1) {
      if (!input.password || !(await verifyPassword(device.passwordHash, input.password)))
        throw fail("DEVICE_PASSWORD_ERROR");
    }
    await db.transaction(async (tx) => {
      await tx.update(devices).set({ checkType: input.checkType }).where(eq(devices.id, device.id));
      if (input.name)
        await tx.update(deviceLinks).set({ name: input.name }).where(eq(deviceLinks.id, own.id));
    });
    return { machine_id: device.id, check_type: input.checkType };
  }

  return {
    members,
    blacklistAdd,
    blacklistRemove,
    removeMember,
    addBkey,
    updateLevel,
    setLevel,
    updateDeviceInfo,
  };
}
