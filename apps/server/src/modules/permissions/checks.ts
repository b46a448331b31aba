import type { HwKey } from "@keyway/shared";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { blackList } from "../access/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import { type Scopes, seesHeldDevice } from "./scopes.ts";

/**
 * What a user may do with a device:
 * - `see`: any identity in their personal list (Akey, Bkey, bound user, visitor), or an
 *   enterprise list of their membership's kind (admins both lists);
 * - `approve`: its Akey or a Bkey (audits requests, keeps the authority lists);
 * - `own`: its Akey (audit mode, transfer);
 * - `confirmAlarms`: confirm all its alarms at once — its Akey, or a maintenance member of
 *   the enterprise that maintains it (SPEC §6).
 */
export type DeviceAct = "see" | "approve" | "own" | "confirmAlarms";

/** How an enterprise list lets a user reach a device: its own list, or the maintained one. */
export type EnterpriseRole = "enterprise" | "maintainer";

/**
 * The checks of one act on many devices, each one set query (as Immich's `checkAccess`):
 * `allowed` answers the allowed subset, `require` refuses when any is missing.
 */
export function createChecks(db: Db, scopes: Scopes) {
  /** Devices among `deviceIds` where the user's personal identity is one of `roles`. */
  async function linked(userId: number, deviceIds: number[], roles: ("akey" | "bkey")[]) {
    const rows = await db
      .select({ id: deviceLinks.deviceId })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.userId, userId),
          inArray(deviceLinks.deviceId, deviceIds),
          inArray(deviceLinks.role, roles),
        ),
      );
    return rows.map((r) => r.id);
  }

  /** Devices among `deviceIds` a maintenance member of their maintaining enterprise. */
  async function maintained(userId: number, deviceIds: number[]) {
    const rows = await db
      .select({ id: enterpriseDevices.deviceId })
      .from(enterpriseDevices)
      .innerJoin(
        enterpriseMembers,
        and(
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
          eq(enterpriseMembers.userId, userId),
          eq(enterpriseMembers.kind, "maintenance"),
        ),
      )
      .where(and(inArray(enterpriseDevices.deviceId, deviceIds), eq(enterpriseDevices.type, 2)));
    return rows.map((r) => r.id);
  }

  const checks: Record<DeviceAct, (userId: number, deviceIds: number[]) => Promise<number[]>> = {
    see: async (userId, deviceIds) => {
      const rows = await db
        .select({ id: devices.id })
        .from(devices)
        .where(and(inArray(devices.id, deviceIds), scopes.visibleTo(userId)));
      return rows.map((r) => r.id);
    },
    approve: (userId, deviceIds) => linked(userId, deviceIds, ["akey", "bkey"]),
    own: (userId, deviceIds) => linked(userId, deviceIds, ["akey"]),
    confirmAlarms: async (userId, deviceIds) => {
      const [owned, held] = await Promise.all([
        linked(userId, deviceIds, ["akey"]),
        maintained(userId, deviceIds),
      ]);
      return [...owned, ...held];
    },
  };

  /** The subset of `deviceIds` on which the user may do `act`. */
  async function allowed(userId: number, deviceIds: number[], act: DeviceAct) {
    const ids = [...new Set(deviceIds)];
    if (ids.length === 0) return new Set<number>();
    return new Set(await checks[act](userId, ids));
  }

  /** Refuses (default DEVICE_NO_PERMISSION) unless the user may do `act` on every device. */
  async function requireAct(
    userId: number,
    deviceIds: number | number[],
    act: DeviceAct,
    refusal: HwKey = "DEVICE_NO_PERMISSION",
  ): Promise<void> {
    const ids = typeof deviceIds === "number" ? [deviceIds] : deviceIds;
    const ok = await allowed(userId, ids, act);
    if (ids.some((id) => !ok.has(id))) throw fail(refusal);
  }

  /**
   * Devices reached through an enterprise list, with how (the remote-access identity). A
   * device held both ways reads as the enterprise's own.
   */
  async function enterpriseRoles(userId: number, deviceIds: number[]) {
    const out = new Map<number, EnterpriseRole>();
    if (deviceIds.length === 0) return out;
    const rows = await db
      .select({ id: enterpriseDevices.deviceId, type: enterpriseDevices.type })
      .from(enterpriseDevices)
      .innerJoin(
        enterpriseMembers,
        and(
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
          eq(enterpriseMembers.userId, userId),
        ),
      )
      .where(and(inArray(enterpriseDevices.deviceId, deviceIds), seesHeldDevice))
      .orderBy(asc(enterpriseDevices.type));
    for (const r of rows)
      if (!out.has(r.id)) out.set(r.id, r.type === 2 ? "maintainer" : "enterprise");
    return out;
  }

  // Built once: an open visit's rights check asks it about one device every second
  // (decisions 231, 233).
  const blacklistedOnOne = db
    .select({ id: blackList.deviceId })
    .from(blackList)
    .where(
      and(
        eq(blackList.userId, sql.placeholder("userId")),
        eq(blackList.deviceId, sql.placeholder("deviceId")),
      ),
    )
    .limit(1)
    .prepare("permissions_blacklisted_one");

  /** Devices among `deviceIds` whose black list holds the user (they may not apply). */
  async function blacklisted(userId: number, deviceIds: number[]) {
    if (deviceIds.length === 0) return new Set<number>();
    const rows =
      deviceIds.length === 1
        ? await blacklistedOnOne.execute({ userId, deviceId: deviceIds[0] })
        : await db
            .select({ id: blackList.deviceId })
            .from(blackList)
            .where(and(eq(blackList.userId, userId), inArray(blackList.deviceId, deviceIds)));
    return new Set(rows.map((r) => r.id));
  }

  return { allowed, require: requireAct, enterpriseRoles, blacklisted };
}
