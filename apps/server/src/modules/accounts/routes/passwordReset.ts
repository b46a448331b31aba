import { API } from "@keyway/shared";
import type { Serve } from "../../../http/routes.ts";
import { accountRef } from "../accountRef.ts";
import type { AccountService } from "../service.ts";
import { CHECK_LIMIT } from "./limits.ts";

/** SPEC §7 forgot password: the account is confirmed, then the new password set with a code. */
export function passwordResetRoutes(serve: Serve, { accounts }: { accounts: AccountService }) {
  const a = API.accounts;
  serve(a.confirmAccount, ({ input }) => accounts.confirmAccount(accountRef(input)), {
    config: CHECK_LIMIT,
  });
  serve(
    a.resetPassword,
    async ({ input }) => {
      await accounts.resetPassword(accountRef(input), input.password, input.code);
      return null;
    },
    { config: CHECK_LIMIT },
  );
}
