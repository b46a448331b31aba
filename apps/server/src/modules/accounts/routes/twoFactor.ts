import { API, type LoginResult } from "@keyway/shared";
import type { Serve } from "../../../http/routes.ts";
import { contextOf } from "../requestContext.ts";
import type { AccountService } from "../service.ts";
import type { TwoFactorService } from "../twoFactor.ts";
import { LOGIN_LIMIT } from "./limits.ts";

/** Two-factor login: SPEC §7 enableTwoFactorAuthentication plus status, off, codes, login step. */
export function twoFactorRoutes(
  serve: Serve,
  { twoFactor, accounts }: { twoFactor: TwoFactorService; accounts: AccountService },
) {
  const t = API.twoFactor;
  serve(t.status, ({ caller }) => twoFactor.status(caller.userId));
  serve(
    t.enable,
    async ({ caller, input, request }) => {
      const code = input?.code;
      if (code) return twoFactor.confirmSetup(caller, code);
      const context = contextOf(request);
      return twoFactor.beginSetup(
        await accounts.requireUser(caller.userId),
        context.brand,
        context.lang,
      );
    },
    { config: LOGIN_LIMIT },
  );
  serve(
    t.disable,
    async ({ caller, input }) => {
      await twoFactor.disable(await accounts.requireUser(caller.userId), input);
      return null;
    },
    { config: LOGIN_LIMIT },
  );
  serve(
    t.regenerateRecoveryCodes,
    ({ caller, input }) => twoFactor.regenerateRecoveryCodes(caller.userId, input.code),
    { config: LOGIN_LIMIT },
  );
  serve(
    t.login,
    // The session opened as by a password login (the service types it loosely for its tests).
    async ({ input, request }) =>
      (await twoFactor.completeLogin(
        input.challenge,
        input.code,
        contextOf(request),
      )) as LoginResult,
    { config: LOGIN_LIMIT },
  );
}
