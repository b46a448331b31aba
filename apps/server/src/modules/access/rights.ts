import type { ConnectRight, ScanCodeResult } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import { fail } from "../../http/envelope.ts";
import { verifyPassword } from "../../infra/crypto.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { type AccessContext, type Actor, grantValid } from "./lookups.ts";

/** The connect check every remote access goes through, and what a scanned code tells. */
export function createRights(ctx: AccessContext) {
  const { db, clock, permissions, requireDevice, isBlacklisted, linkOf, terminalOf, grantFor } =
    ctx;

  /** Akey+password mode: checks a device password without asking anyone. */
  async function checkPassword(deviceId: number, password: string) {
    const device = await requireDevice(deviceId);
    if (!(await verifyPassword(device.passwordHash, password))) throw fail("VISIT_PASSWORD_ERROR");
    return { ok: true };
  }

  /** A visitor's right: a valid visit grant on this very terminal. */
  async function visitorRight(actor: Actor, deviceId: number, canWrite: boolean) {
    const terminal = await terminalOf(actor.terminalId);
    const grant = await grantFor(deviceId, actor.userId, terminal.uuid);
    if (!grant) throw fail("NOT_BOUND");
    if (!grantValid(grant, clock.now())) throw fail("VISIT_TIMEOUT");
    return {
      machine_id: deviceId,
      role: "visitor",
      visitAlidTimeID: grant.id,
      expires_at: grant.expiresAt?.toISOString() ?? null,
      write: canWrite,
    } satisfies ConnectRight;
  }

  /**
   * Whether the user, on this terminal, may reach the device now (SPEC "Connect check"). The
   * one place the rights of remote access are computed: a personal identity first, then an
   * enterprise list (the permissions module's rule), then a visitor's grant.
   */
  async function rights(actor: Actor, deviceId: number): Promise<ConnectRight> {
    const device = await requireDevice(deviceId);
    if (await isBlacklisted(deviceId, actor.userId)) throw fail("REQUEST_BLACKLISTED");
    const link = await linkOf(actor.userId, deviceId);
    let right: ConnectRight | undefined;
    if (link && link.role !== "visitor") {
      right = {
        machine_id: deviceId,
        role: link.role,
        visitAlidTimeID: null,
        expires_at: null,
        write: link.role === "user" ? link.canWrite : true,
      };
    } else {
      const held = (await permissions.enterpriseRoles(actor.userId, [deviceId])).get(deviceId);
      if (held)
        right = {
          machine_id: deviceId,
          role: held,
          visitAlidTimeID: null,
          expires_at: null,
          write: true,
        };
      else if (link?.role === "visitor") right = await visitorRight(actor, deviceId, link.canWrite);
    }
    if (!right) throw fail("NOT_BOUND");
    if (!device.cloudService) throw fail("CLOUD_CLOSED");
    return right;
  }

  async function scanCode(userId: number, code: string): Promise<ScanCodeResult> {
    const [device] = await db
      .select()
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const link = await linkOf(userId, device.id);
    const [akey] = await db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.deviceId, device.id), eq(deviceLinks.role, "akey")))
      .limit(1);
    return {
      machine_id: device.id,
      machine_code: device.code,
      role: link?.role ?? "none",
      blacklisted: await isBlacklisted(device.id, userId),
      has_akey: Boolean(akey),
      check_type: device.checkType === 1 ? 1 : 0,
      cloud_service: device.cloudService ? 1 : 0,
    };
  }

  return { checkPassword, rights, scanCode };
}
