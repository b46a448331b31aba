import type { CodePurpose } from "@keyway/shared";
import { AppError, fail } from "../../http/envelope.ts";
import type { VerificationService } from "../verification/service.ts";
import type { AccountRef } from "./accountRef.ts";
import type { RequestContext } from "./requestContext.ts";
import type { User } from "./schema.ts";

/** Verification codes of an account: sent only where the purpose makes sense, checked. */
export function createAccountCodes(deps: {
  verification: VerificationService;
  findUser: (ref: AccountRef) => Promise<User | undefined>;
}) {
  const { verification, findUser } = deps;

  /** Sends a code for `purpose`, checking first that the purpose makes sense for the account. */
  async function sendCode(
    account: AccountRef,
    purpose: CodePurpose,
    context: RequestContext,
    callerId?: number,
  ): Promise<void> {
    const user = await findUser(account);
    if (purpose === "register") {
      if (!user) throw fail("ACCOUNT_NOT_FOUND");
      if (user.activatedAt) throw fail("ACCOUNT_EXISTS");
    } else if (purpose === "reset") {
      if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    } else {
      if (callerId === undefined) throw new AppError("TOKEN_INVALID", null, 401);
      if (user?.id === callerId) throw fail("SAME_AS_CURRENT");
      if (user?.activatedAt) throw fail("ACCOUNT_EXISTS");
    }
    await verification.send(account, purpose, context);
  }

  async function checkCode(account: AccountRef, purpose: CodePurpose, code: string) {
    await verification.check(account, purpose, code, { consume: false });
  }

  return { sendCode, checkCode };
}
