import {
  CAMERA_ACCOUNT,
  CAMERA_ACCOUNT_STATE,
  type CameraAccountList,
  type CameraAccountView,
  type CameraAppKeyCheck,
  type CameraBinding,
  HW,
  LOCATION_REFRESH_PER_DAY,
  maskCameraSecret,
} from "@keyway/shared";
import { and, count, eq, gte, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, encryptSecret } from "../../infra/crypto.ts";
import { deviceLinks } from "../devices/schema.ts";
import type { EzvizClient } from "./ezviz.ts";
import {
  type CameraAccount,
  cameraAccountChecks,
  cameraAccounts,
  cameraBindings,
} from "./schema.ts";

export type CameraService = ReturnType<typeof createCameraService>;

export interface CameraAccountInput {
  name: string;
  appKey: string;
  secret: string;
  remark: string;
  isDefault: boolean;
}

const DAY_MS = 24 * 3600_000;
/** Advisory lock namespace of the per-account re-check count (any constant unique in the app). */
const CHECK_LOCK = 7_310_002;
/** …and of the per-user account limit. */
const ADD_LOCK = 7_310_003;

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "23505" || e?.cause?.code === "23505";
}

/**
 * Camera cloud accounts (SPEC §3, §7): a user's own EZVIZ key pairs, checked at EZVIZ before
 * they are stored, re-checked on demand (5 per account per rolling day, SPEC §9), and bound
 * to devices by their Akey. The Secret leaves only towards EZVIZ; answers carry it masked.
 */
export function createCameraService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  ezviz: EzvizClient;
  /** The caller's identity on a personal device ("none" when it is not in their list). */
  roleOf: (userId: number, deviceId: number) => Promise<string>;
}) {
  const { db, clock } = deps;

  const seal = (secret: string) => encryptSecret(deps.secretKey, secret);
  const unseal = (account: CameraAccount) => decryptSecret(deps.secretKey, account.secretSealed);

  /** Asks EZVIZ; a refusal or an unreachable platform becomes the matching hwcode. */
  async function verify(appKey: string, secret: string) {
    const result = await deps.ezviz.check(appKey, secret);
    if (!result.ok) throw fail(result.error, { field: fieldOf(result.error) });
    return result;
  }

  function fieldOf(error: string): string | undefined {
    if (error === "EZVIZ_APPKEY_NOT_FOUND" || error === "EZVIZ_APPKEY_FROZEN") return "appKey";
    if (error === "EZVIZ_SECRET_MISMATCH") return "secret";
    return undefined;
  }

  async function own(userId: number, id: number): Promise<CameraAccount> {
    const [row] = await db
      .select()
      .from(cameraAccounts)
      .where(and(eq(cameraAccounts.id, id), eq(cameraAccounts.userId, userId)));
    // Another user's account and a missing one look the same.
    if (!row) throw fail("CAMERA_ACCOUNT_NOT_FOUND");
    return row;
  }

  const since = () => new Date(clock.now().getTime() - DAY_MS);

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

  /** The account bound to a device, if its owner is the device's Akey; 0 otherwise. */
  async function boundAccount(deviceId: number): Promise<number> {
    const [row] = await db
      .select({ accountId: cameraBindings.accountId })
      .from(cameraBindings)
      .innerJoin(cameraAccounts, eq(cameraAccounts.id, cameraBindings.accountId))
      .innerJoin(
        deviceLinks,
        and(
          eq(deviceLinks.deviceId, cameraBindings.deviceId),
          eq(deviceLinks.userId, cameraAccounts.userId),
          eq(deviceLinks.role, "akey"),
        ),
      )
      .where(eq(cameraBindings.deviceId, deviceId));
    return row?.accountId ?? 0;
  }

  async function list(userId: number, machineId?: number): Promise<CameraAccountList> {
    const rows = await db
      .select()
      .from(cameraAccounts)
      .where(eq(cameraAccounts.userId, userId))
      .orderBy(cameraAccounts.id);
    const result: CameraAccountList = { list: await views(rows), total: rows.length };
    if (machineId !== undefined) {
      if ((await deps.roleOf(userId, machineId)) === "none") throw fail("EDIT_MACHINE_NOT_FOUND");
      result.machine_id = machineId;
      result.ezviz_account_id = await boundAccount(machineId);
    }
    return result;
  }

  /** Makes `id` the user's only default (inside the caller's transaction). */
  async function clearOtherDefaults(tx: Pick<Db, "update">, userId: number, id: number) {
    await tx
      .update(cameraAccounts)
      .set({ isDefault: false })
      .where(
        and(
          eq(cameraAccounts.userId, userId),
          eq(cameraAccounts.isDefault, true),
          ne(cameraAccounts.id, id),
        ),
      );
  }

  async function add(userId: number, input: CameraAccountInput): Promise<CameraAccountView> {
    const existing = await db
      .select({ id: cameraAccounts.id, appKey: cameraAccounts.appKey })
      .from(cameraAccounts)
      .where(eq(cameraAccounts.userId, userId));
    if (existing.some((a) => a.appKey === input.appKey))
      throw fail("CAMERA_ACCOUNT_EXISTS", { field: "appKey" });
    if (existing.length >= CAMERA_ACCOUNT.perUser) throw fail("CAMERA_ACCOUNT_LIMIT");
    const checked = await verify(input.appKey, input.secret);
    const now = clock.now();
    // The first account is the default: "default" should always mean something at first.
    const isDefault = input.isDefault || existing.length === 0;
    try {
      const row = await db.transaction(async (tx) => {
        // Counted again under a per-user lock: parallel adds cannot pass the limit together.
        await tx.execute(sql`select pg_advisory_xact_lock(${ADD_LOCK}, ${userId})`);
        const [{ n }] = await tx
          .select({ n: count() })
          .from(cameraAccounts)
          .where(eq(cameraAccounts.userId, userId));
        if (n >= CAMERA_ACCOUNT.perUser) throw fail("CAMERA_ACCOUNT_LIMIT");
        const [created] = await tx
          .insert(cameraAccounts)
          .values({
            userId,
            name: input.name,
            appKey: input.appKey,
            secretSealed: seal(input.secret),
            remark: input.remark,
            isDefault: false,
            state: CAMERA_ACCOUNT_STATE.valid,
            cameraCount: checked.cameraCount,
            checkedAt: now,
            createdAt: now,
          })
          .returning();
        if (!isDefault) return created;
        await clearOtherDefaults(tx, userId, created.id);
        const [updated] = await tx
          .update(cameraAccounts)
          .set({ isDefault: true })
          .where(eq(cameraAccounts.id, created.id))
          .returning();
        return updated;
      });
      return viewOf(row);
    } catch (error) {
      // Two adds of the same AppKey at once: the unique index decides.
      if (isUniqueViolation(error)) throw fail("CAMERA_ACCOUNT_EXISTS", { field: "appKey" });
      throw error;
    }
  }

  async function update(
    userId: number,
    id: number,
    input: Omit<CameraAccountInput, "secret"> & { secret?: string },
  ): Promise<CameraAccountView> {
    const account = await own(userId, id);
    const keyChanged = input.appKey !== account.appKey;
    const secret = input.secret ?? unseal(account);
    const credentialsChanged = keyChanged || secret !== unseal(account);
    const changes: Partial<typeof cameraAccounts.$inferInsert> = {
      name: input.name,
      appKey: input.appKey,
      remark: input.remark,
      isDefault: input.isDefault,
    };
    if (credentialsChanged) {
      const checked = await verify(input.appKey, secret);
      Object.assign(changes, {
        secretSealed: seal(secret),
        state: CAMERA_ACCOUNT_STATE.valid,
        cameraCount: checked.cameraCount,
        checkCode: "",
        checkedAt: clock.now(),
      });
    }
    try {
      const row = await db.transaction(async (tx) => {
        if (input.isDefault) await clearOtherDefaults(tx, userId, id);
        const [updated] = await tx
          .update(cameraAccounts)
          .set(changes)
          .where(eq(cameraAccounts.id, id))
          .returning();
        return updated;
      });
      return viewOf(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("CAMERA_ACCOUNT_EXISTS", { field: "appKey" });
      throw error;
    }
  }

  async function remove(userId: number, id: number): Promise<void> {
    await own(userId, id);
    // Its bindings go with it (foreign key cascade): those devices have no camera account.
    await db.delete(cameraAccounts).where(eq(cameraAccounts.id, id));
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
    if (id !== undefined) account = await own(userId, id);
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
            gte(cameraAccountChecks.createdAt, since()),
          ),
        );
      if (used >= LOCATION_REFRESH_PER_DAY) throw fail("CAMERA_CHECK_DAILY_LIMIT");
      const [row] = await tx
        .insert(cameraAccountChecks)
        .values({ accountId: account.id, createdAt: clock.now() })
        .returning({ id: cameraAccountChecks.id });
      return row;
    });
    const result = await deps.ezviz.check(account.appKey, unseal(account));
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
    return viewOf(row);
  }

  /** Only the device's Akey chooses its camera account (SPEC §6: the owner's settings). */
  async function requireAkey(userId: number, deviceId: number) {
    const role = await deps.roleOf(userId, deviceId);
    if (role === "none") throw fail("EDIT_MACHINE_NOT_FOUND");
    if (role !== "akey") throw fail("DEVICE_NO_PERMISSION");
  }

  async function bind(userId: number, deviceId: number, accountId: number): Promise<CameraBinding> {
    await requireAkey(userId, deviceId);
    await own(userId, accountId);
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

  return { list, add, update, remove, checkAppKey, checkAccount, bind, release, boundAccount };
}
