import { API } from "@keyway/shared";
import type { Serve } from "../../../http/routes.ts";
import { parseAccountString } from "../accountRef.ts";
import { contextOf, terminalOf } from "../requestContext.ts";
import type { AccountService } from "../service.ts";
import { LOGIN_LIMIT } from "./limits.ts";

/** SPEC §7 login and logout. */
export function loginRoutes(serve: Serve, { accounts }: { accounts: AccountService }) {
  const a = API.accounts;
  serve(
    a.login,
    ({ input, request }) =>
      accounts.login(
        {
          account: parseAccountString(input.loginName, input.countryCode),
          password: input.loginPwd,
          keepLogin: input.keepLogin ?? false,
          terminal: terminalOf(input),
        },
        contextOf(request, input.loginOemId),
      ),
    { config: LOGIN_LIMIT },
  );
  serve(a.logout, ({ caller, input }) => accounts.logout(caller, input?.token || undefined));
}
