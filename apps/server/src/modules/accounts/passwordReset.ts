import { LOGOUT_REASON } from "@keyway/protocol";
import { type ConfirmAccountResult, maskPhone } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { hashPassword } from "../../infra/crypto.ts";
import type { VerificationService } from "../verification/service.ts";
import { type AccountRef, maskEmail } from "./accountRef.ts";
import type { LoginGuard } from "./loginGuard.ts";
import { terminals, type User, users } from "./schema.ts";
import type { TellEnded } from "./sessions.ts";

/** Forgot password: the account is confirmed, then a new password is set with the code. */
export function createPasswordReset(deps: {
  db: Db;
  verification: VerificationService;
  guard: LoginGuard;
  tellEnded: TellEnded;
  findUser: (ref: AccountRef) => Promise<User | undefined>;
}) {
  const { db, verification, guard, findUser } = deps;

  async function confirmAccount(account: AccountRef): Promise<ConfirmAccountResult> {
    const user = await findUser(account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    return {
      account: account.channel === "email" ? maskEmail(account.email) : maskPhone(account.phone),
      channel: account.channel,
    };
  }

  async function resetPassword(account: AccountRef, password: string, code: string) {
    const user = await findUser(account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    const passwordHash = await hashPassword(password);
    await verification.check(account, "reset", code, { consume: true });
    const removed = await db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
      await guard.release(user.id, tx);
      return tx
        .delete(terminals)
        .where(eq(terminals.userId, user.id))
        .returning({ id: terminals.id });
    });
    deps.tellEnded(user.id, removed, LOGOUT_REASON.passwordChanged);
  }

  return { confirmAccount, resetPassword };
}
