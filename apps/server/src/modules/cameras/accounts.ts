import {
  CAMERA_ACCOUNT,
  CAMERA_ACCOUNT_STATE,
  type CameraAccountList,
  type CameraAccountView,
} from "@keyway/shared";
import { and, count, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { CameraBindings } from "./bindings.ts";
import type { CameraChecks } from "./checks.ts";
import { cameraAccounts } from "./schema.ts";
import type { StoredAccounts } from "./views.ts";

export interface CameraAccountInput {
  name: string;
  appKey: string;
  secret: string;
  remark: string;
  isDefault: boolean;
}

/** Advisory lock namespace of the per-user account limit (unique in the app). */
const ADD_LOCK = 7_310_003;

/** A user's camera accounts: listed, added and changed after EZVIZ accepts them, removed. */
export function createCameraAccounts(deps: {
  db: Db;
  clock: Clock;
  stored: StoredAccounts;
  checks: CameraChecks;
  bindings: CameraBindings;
  roleOf: (userId: number, deviceId: number) => Promise<string>;
}) {
  const { db, clock, stored, checks } = deps;

  async function list(userId: number, machineId?: number): Promise<CameraAccountList> {
    const rows = await db
      .select()
      .from(cameraAccounts)
      .where(eq(cameraAccounts.userId, userId))
      .orderBy(cameraAccounts.id);
    const result: CameraAccountList = { list: await stored.views(rows), total: rows.length };
    if (machineId !== undefined) {
      if ((await deps.roleOf(userId, machineId)) === "none") throw fail("EDIT_MACHINE_NOT_FOUND");
      result.machine_id = machineId;
      result.ezviz_account_id = await deps.bindings.boundAccount(machineId);
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
    const checked = await checks.verify(input.appKey, input.secret);
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
            secretSealed: stored.seal(input.secret),
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
      return stored.viewOf(row);
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
    const account = await stored.own(userId, id);
    const keyChanged = input.appKey !== account.appKey;
    const secret = input.secret ?? stored.unseal(account);
    const credentialsChanged = keyChanged || secret !== stored.unseal(account);
    const changes: Partial<typeof cameraAccounts.$inferInsert> = {
      name: input.name,
      appKey: input.appKey,
      remark: input.remark,
      isDefault: input.isDefault,
    };
    if (credentialsChanged) {
      const checked = await checks.verify(input.appKey, secret);
      Object.assign(changes, {
        secretSealed: stored.seal(secret),
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
      return stored.viewOf(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("CAMERA_ACCOUNT_EXISTS", { field: "appKey" });
      throw error;
    }
  }

  async function remove(userId: number, id: number): Promise<void> {
    await stored.own(userId, id);
    // Its bindings go with it (foreign key cascade): those devices have no camera account.
    await db.delete(cameraAccounts).where(eq(cameraAccounts.id, id));
  }

  return { list, add, update, remove };
}
