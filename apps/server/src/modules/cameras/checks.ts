import {
  CAMERA_ACCOUNT_STATE,
  type CameraAccountView,
  type CameraAppKeyCheck,
  HW,
  LOCATION_REFRESH_PER_DAY,
} from "@keyway/shared";
import { and, count, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { EzvizClient } from "./ezviz.ts";
import { type CameraAccount, cameraAccountChecks, cameraAccounts } from "./schema.ts";
import type { StoredAccounts } from "./views.ts";

/** Advisory lock namespace of the per-account re-check count (any constant unique in the app). */
const CHECK_LOCK = 7_310_002;

function fieldOf(error: string): string | undefined {
  if (error === "EZVIZ_APPKEY_NOT_FOUND" || error === "EZVIZ_APPKEY_FROZEN") return "appKey";
  if (error === "EZVIZ_SECRET_MISMATCH") return "secret";
  return undefined;
}

export type CameraChecks = ReturnType<typeof createCameraChecks>;

/** Key pairs checked at EZVIZ: before they are stored, and stored ones on demand. */
export function createCameraChecks(deps: {
  db: Db;
  clock: Clock;
  ezviz: EzvizClient;
  stored: StoredAccounts;
}) {
  const { db, clock, stored } = deps;

  /** Asks EZVIZ; a refusal or an unreachable platform becomes the matching hwcode. */
  async function verify(appKey: string, secret: string) {
    const result = await deps.ezviz.check(appKey, secret);
    if (!result.ok) throw fail(result.error, { field: fieldOf(result.error) });
    return result;
  }

  /** Checks a key pair typed into the form; nothing is stored. */
  async function checkAppKey(appKey: string, secret: string): Promise<CameraAppKeyCheck> {
    const checked = await verify(appKey, secret);
    return { valid: true, camera_count: checked.cameraCount ?? 0 };
  }

  /**
   * Re-checks a stored account at EZVIZ (the default one without id) and records the outcome.
   * Counted per account over the last 24 hours like the location module's fixes; a check
   * that did not reach EZVIZ is not counted.
   */
  async function checkAccount(userId: number, id?: number): Promise<CameraAccountView> {
    let account: CameraAccount;
    if (id !== undefined) account = await stored.own(userId, id);
    else {
      const [row] = await db
        .select()
        .from(cameraAccounts)
        .where(and(eq(cameraAccounts.userId, userId), eq(cameraAccounts.isDefault, true)));
      if (!row) throw fail("CAMERA_ACCOUNT_NOT_FOUND");
      account = row;
    }
    const counted = await db.transaction(async (tx) => {
      // One account's checks are counted and recorded one at a time (lock held until the
      // commit), so parallel checks cannot pass the daily limit together. EZVIZ is asked
      // after the commit: the lock is never held across the network.
      await tx.execute(sql`select pg_advisory_xact_lock(${CHECK_LOCK}, ${account.id})`);
      const [{ used }] = await tx
        .select({ used: count() })
        .from(cameraAccountChecks)
        .where(
          and(
            eq(cameraAccountChecks.accountId, account.id),
            gte(cameraAccountChecks.createdAt, stored.since()),
          ),
        );
      if (used >= LOCATION_REFRESH_PER_DAY) throw fail("CAMERA_CHECK_DAILY_LIMIT");
      const [row] = await tx
        .insert(cameraAccountChecks)
        .values({ accountId: account.id, createdAt: clock.now() })
        .returning({ id: cameraAccountChecks.id });
      return row;
    });
    const result = await deps.ezviz.check(account.appKey, stored.unseal(account));
    if (!result.ok && !result.refused) {
      await db.delete(cameraAccountChecks).where(eq(cameraAccountChecks.id, counted.id));
      throw fail(result.error);
    }
    const [row] = await db
      .update(cameraAccounts)
      .set(
        result.ok
          ? {
              state: CAMERA_ACCOUNT_STATE.valid,
              cameraCount: result.cameraCount,
              checkCode: "",
              checkedAt: clock.now(),
            }
          : {
              state: CAMERA_ACCOUNT_STATE.invalid,
              checkCode: String(HW[result.error].code),
              checkedAt: clock.now(),
            },
      )
      .where(eq(cameraAccounts.id, account.id))
      .returning();
    // A refusal is the answer's hwcode; the stored state already says "invalid".
    if (!result.ok) throw fail(result.error);
    return stored.viewOf(row);
  }

  return { verify, checkAppKey, checkAccount };
}
