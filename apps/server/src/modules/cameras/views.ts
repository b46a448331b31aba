import { type CameraAccountView, LOCATION_REFRESH_PER_DAY, maskCameraSecret } from "@keyway/shared";
import { and, count, eq, gte, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, encryptSecret } from "../../infra/crypto.ts";
import { deviceLinks } from "../devices/schema.ts";
import {
  type CameraAccount,
  cameraAccountChecks,
  cameraAccounts,
  cameraBindings,
} from "./schema.ts";

const DAY_MS = 24 * 3600_000;

export type StoredAccounts = ReturnType<typeof createStoredAccounts>;

/**
 * The stored camera accounts: their sealed Secret, the caller's own account by id, and the
 * view the wire shows (Secret masked, re-checks left, devices bound).
 */
export function createStoredAccounts(deps: { db: Db; clock: Clock; secretKey: string }) {
  const { db, clock } = deps;

  const seal = (secret: string) => encryptSecret(deps.secretKey, secret);
  const unseal = (account: CameraAccount) => decryptSecret(deps.secretKey, account.secretSealed);

  /** Start of the rolling day the re-checks are counted over. */
  const since = () => new Date(clock.now().getTime() - DAY_MS);

  async function own(userId: number, id: number): Promise<CameraAccount> {
    const [row] = await db
      .select()
      .from(cameraAccounts)
      .where(and(eq(cameraAccounts.id, id), eq(cameraAccounts.userId, userId)));
    // Another user's account and a missing one look the same.
    if (!row) throw fail("CAMERA_ACCOUNT_NOT_FOUND");
    return row;
  }

  async function checksUsed(accountIds: number[]): Promise<Map<number, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db
      .select({ accountId: cameraAccountChecks.accountId, n: count() })
      .from(cameraAccountChecks)
      .where(
        and(
          inArray(cameraAccountChecks.accountId, accountIds),
          gte(cameraAccountChecks.createdAt, since()),
        ),
      )
      .groupBy(cameraAccountChecks.accountId);
    return new Map(rows.map((r) => [r.accountId, r.n]));
  }

  async function machineCounts(accountIds: number[]): Promise<Map<number, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db
      .select({ accountId: cameraBindings.accountId, n: count() })
      .from(cameraBindings)
      .innerJoin(cameraAccounts, eq(cameraAccounts.id, cameraBindings.accountId))
      // Only bindings that count: the account's owner is still the device's Akey.
      .innerJoin(
        deviceLinks,
        and(
          eq(deviceLinks.deviceId, cameraBindings.deviceId),
          eq(deviceLinks.userId, cameraAccounts.userId),
          eq(deviceLinks.role, "akey"),
        ),
      )
      .where(inArray(cameraBindings.accountId, accountIds))
      .groupBy(cameraBindings.accountId);
    return new Map(rows.map((r) => [r.accountId, r.n]));
  }

  async function views(rows: CameraAccount[]): Promise<CameraAccountView[]> {
    const ids = rows.map((r) => r.id);
    const [used, machines] = await Promise.all([checksUsed(ids), machineCounts(ids)]);
    return rows.map((a) => ({
      id: a.id,
      name: a.name,
      app_key: a.appKey,
      secret: maskCameraSecret(unseal(a)),
      remark: a.remark,
      is_default: a.isDefault ? 1 : 0,
      state: a.state as CameraAccountView["state"],
      camera_count: a.cameraCount,
      check_code: a.checkCode,
      checked_at: a.checkedAt?.toISOString() ?? null,
      checks_left: Math.max(0, LOCATION_REFRESH_PER_DAY - (used.get(a.id) ?? 0)),
      machine_count: machines.get(a.id) ?? 0,
      created_at: a.createdAt.toISOString(),
    }));
  }

  async function viewOf(row: CameraAccount): Promise<CameraAccountView> {
    const [view] = await views([row]);
    return view;
  }

  return { seal, unseal, since, own, views, viewOf };
}
