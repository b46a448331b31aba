import { fail } from "../../http/envelope.ts";
import { confirmAllOfDevice } from "../alarms/marks.ts";
import type { AccessContext, Actor } from "./lookups.ts";

/** Confirming all of a device's alarms at once (SPEC §6). */
export function createAlarmConfirmation(ctx: AccessContext) {
  const { db, clock, permissions, requireDevice } = ctx;

  /**
   * One-click confirmation of a device's alarms: only its Akey (personal context) or a
   * maintainer of an enterprise that maintains it (SPEC §6).
   */
  async function confirmAllAlarms(actor: Actor, deviceId: number) {
    await requireDevice(deviceId);
    if (!(await mayConfirmAllAlarms(actor.userId, deviceId))) throw fail("DEVICE_NO_PERMISSION");
    const confirmed = await confirmAllOfDevice(db, deviceId, actor.userId, clock.now());
    return { confirmed: confirmed.length };
  }

  /** The rule of confirmAllAlarms, for the alarm centre to offer the button. */
  async function mayConfirmAllAlarms(userId: number, deviceId: number): Promise<boolean> {
    return (await permissions.allowed(userId, [deviceId], "confirmAlarms")).has(deviceId);
  }

  return { confirmAllAlarms, mayConfirmAllAlarms };
}
