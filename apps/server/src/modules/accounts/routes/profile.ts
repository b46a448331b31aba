import { API, friendsListBody } from "@keyway/shared";
import type { Serve } from "../../../http/routes.ts";
import { accountRef } from "../accountRef.ts";
import type { AccountService } from "../service.ts";
import { operationFailed } from "./failureReplies.ts";
import { CHECK_LIMIT, LOGIN_LIMIT } from "./limits.ts";

/**
 * SPEC §7 the caller's own account: profile and friends, the security centre (switches,
 * password, terminals), whether an e-mail is taken, and deleting the account.
 */
export function profileRoutes(serve: Serve, { accounts }: { accounts: AccountService }) {
  const a = API.accounts;
  serve(a.userInfo, ({ caller }) => accounts.userInfo(caller.userId));
  serve(a.userInfoByPost, ({ caller }) => accounts.userInfo(caller.userId));
  serve(a.userId, ({ caller }) => ({ userid: caller.userId }));
  serve(a.friends, ({ caller, input }) => {
    const { page, pageSize } = input ?? friendsListBody.parse({});
    return accounts.friends(caller.userId, page, pageSize);
  });

  serve(a.updateSafety, async ({ caller, input }) => {
    await accounts.setHideMap(caller.userId, input.hideMap);
    return { hideMap: input.hideMap ? 1 : 0 } as const;
  });
  serve(a.changeName, ({ caller, input }) => accounts.changeName(caller.userId, input.name));
  serve(
    a.changeAccount,
    async ({ caller, input }) => {
      await accounts.changeAccount(caller.userId, accountRef(input), input.code);
      return null;
    },
    { preSerialization: operationFailed },
  );
  serve(
    a.changePassword,
    async ({ caller, input }) => {
      await accounts.changePassword(caller, input.oldPwd, input.newPwd);
      return null;
    },
    { config: LOGIN_LIMIT },
  );
  serve(a.setHideMap, ({ caller, input }) => accounts.setHideMap(caller.userId, input.hideMap));

  serve(a.terminals, ({ caller, input }) =>
    accounts.listTerminals(caller, input.page, input.pageSize),
  );
  serve(a.deleteTerminal, ({ caller, params }) =>
    accounts.deleteTerminal(caller.userId, params.id),
  );
  serve(
    a.verifyPassword,
    async ({ caller, input }) => {
      await accounts.verifyCurrentPassword(caller.userId, input.password);
      return null;
    },
    { config: LOGIN_LIMIT },
  );
  serve(
    a.emailInUse,
    async ({ input }) => ({ exists: (await accounts.emailInUse(input.email)) ? 1 : 0 }) as const,
    { config: CHECK_LIMIT },
  );
  serve(
    a.deleteAccount,
    async ({ caller, input }) => {
      await accounts.deleteAccount(caller.userId, input.password);
      return null;
    },
    { config: LOGIN_LIMIT },
  );
}
