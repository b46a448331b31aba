import type { CameraBinding } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { ezvizAccountIdColumn } from "../devices/machine.ts";
import { devices } from "../devices/schema.ts";
import { cameraBindings } from "./schema.ts";
import type { StoredAccounts } from "./views.ts";

export type CameraBindings = ReturnType<typeof createCameraBindings>;

/** A device's camera account, chosen by its Akey. */
export function createCameraBindings(deps: {
  db: Db;
  clock: Clock;
  stored: StoredAccounts;
  roleOf: (userId: number, deviceId: number) => Promise<string>;
}) {
  const { db, clock } = deps;

  /** The account bound to a device, if its owner is the device's Akey; 0 otherwise. */
  async function boundAccount(deviceId: number): Promise<number> {
    const [row] = await db
      .select({ accountId: ezvizAccountIdColumn })
      .from(devices)
      .where(eq(devices.id, deviceId));
    return row?.accountId ?? 0;
  }

  /** Only the device's Akey chooses its camera account (SPEC §6: the owner's settings). */
  async function requireAkey(userId: number, deviceId: number) {
    const role = await deps.roleOf(userId, deviceId);
    if (role === "none") throw fail("EDIT_MACHINE_NOT_FOUND");
    if (role !== "akey") throw fail("DEVICE_NO_PERMISSION");
  }

  async function bind(userId: number, deviceId: number, accountId: number): Promise<CameraBinding> {
    await requireAkey(userId, deviceId);
    await deps.stored.own(userId, accountId);
    await db
      .insert(cameraBindings)
      .values({ deviceId, accountId, createdAt: clock.now() })
      .onConflictDoUpdate({
        target: cameraBindings.deviceId,
        set: { accountId, createdAt: clock.now() },
      });
    return { machine_id: deviceId, ezviz_account_id: accountId };
  }

  async function release(userId: number, deviceId: number): Promise<CameraBinding> {
    await requireAkey(userId, deviceId);
    await db.delete(cameraBindings).where(eq(cameraBindings.deviceId, deviceId));
    return { machine_id: deviceId, ezviz_account_id: 0 };
  }

  return { boundAccount, bind, release };
}
