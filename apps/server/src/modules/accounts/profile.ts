import { LOGOUT_REASON } from "@keyway/protocol";
import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { hashPassword, verifyPassword } from "../../infra/crypto.ts";
import type { VerificationService } from "../verification/service.ts";
import type { AccountRef } from "./accountRef.ts";
import type { AccountLookup } from "./lookup.ts";
import { terminals, users } from "./schema.ts";
import type { TellEnded } from "./sessions.ts";

/** The caller's own account: name, phone / e-mail, password, map switch, and deleting it. */
export function createProfile(deps: {
  db: Db;
  verification: VerificationService;
  tellEnded: TellEnded;
  lookup: Pick<AccountLookup, "findUser" | "requireUser">;
}) {
  const { db, verification, tellEnded } = deps;
  const { findUser, requireUser } = deps.lookup;

  async function changeName(userId: number, name: string) {
    await db.update(users).set({ name }).where(eq(users.id, userId));
  }

  async function changeAccount(userId: number, account: AccountRef, code: string) {
    const user = await requireUser(userId);
    const current =
      account.channel === "email"
        ? user.email === account.email
        : user.phone === account.phone && user.countryCode === account.countryCode;
    if (current) throw fail("SAME_AS_CURRENT");
    const owner = await findUser(account);
    if (owner?.activatedAt) throw fail("ACCOUNT_EXISTS");
    await verification.check(account, "change", code, { consume: true });
    await db.transaction(async (tx) => {
      // A never-activated registration holding this address gives way to the verified owner.
      if (owner) await tx.delete(users).where(eq(users.id, owner.id));
      await tx
        .update(users)
        .set(
          account.channel === "email"
            ? { email: account.email }
            : { phone: account.phone, countryCode: account.countryCode },
        )
        .where(eq(users.id, userId));
    });
  }

  async function changePassword(
    caller: { userId: number; terminalId: number },
    oldPassword: string,
    newPassword: string,
  ) {
    const user = await requireUser(caller.userId);
    if (!(await verifyPassword(user.passwordHash, oldPassword))) throw fail("PASSWORD_ERROR");
    const passwordHash = await hashPassword(newPassword);
    const removed = await db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
      // Other terminals must log in again with the new password.
      return tx
        .delete(terminals)
        .where(and(eq(terminals.userId, user.id), ne(terminals.id, caller.terminalId)))
        .returning({ id: terminals.id });
    });
    tellEnded(user.id, removed, LOGOUT_REASON.passwordChanged);
  }

  async function setHideMap(userId: number, hideMap: boolean) {
    await db.update(users).set({ hideMap }).where(eq(users.id, userId));
  }

  async function verifyCurrentPassword(userId: number, password: string) {
    const user = await requireUser(userId);
    if (!(await verifyPassword(user.passwordHash, password))) throw fail("PASSWORD_ERROR");
  }

  async function deleteAccount(userId: number, password: string) {
    await verifyCurrentPassword(userId, password);
    const sessions = await db
      .select({ id: terminals.id })
      .from(terminals)
      .where(eq(terminals.userId, userId));
    await db.delete(users).where(eq(users.id, userId));
    tellEnded(userId, sessions, LOGOUT_REASON.accountDeleted);
  }

  return {
    changeName,
    changeAccount,
    changePassword,
    setHideMap,
    verifyCurrentPassword,
    deleteAccount,
  };
}
