import { API } from "@keyway/shared";
import type { FastifyRequest } from "fastify";
import { tokenOf } from "../../../http/auth.ts";
import type { Handler, Serve } from "../../../http/routes.ts";
import { accountRef, parseAccountString } from "../accountRef.ts";
import { contextOf } from "../requestContext.ts";
import type { AccountService } from "../service.ts";
import { zeroOnFailure } from "./failureReplies.ts";
import { CHECK_LIMIT, CODE_LIMIT } from "./limits.ts";

/** SPEC §7 registration, activation and the verification codes of every purpose. */
export function signUpRoutes(serve: Serve, { accounts }: { accounts: AccountService }) {
  const a = API.accounts;
  serve(
    a.register,
    ({ input, request }) => {
      const context = contextOf(request, input.oemid);
      return accounts.register(
        {
          account: accountRef(input),
          password: input.password,
          name: input.name,
          oemId: context.brand.id,
          hideMap: input.hideMap,
          language: context.lang,
        },
        context,
      );
    },
    { config: CODE_LIMIT },
  );

  serve(
    a.activate,
    async ({ input }) => {
      await accounts.activate(
        parseAccountString(input.activeAccount, input.countryCode),
        input.SMSVerificationCode,
      );
      return 1 as const;
    },
    { config: CHECK_LIMIT, preSerialization: zeroOnFailure },
  );

  // Verification codes: two families of paths in the SPEC, one behaviour. Public calls; a code
  // for changing an account needs the caller, read from the token when one is sent.
  const optionalCaller = async (request: FastifyRequest) => {
    const token = tokenOf(request);
    return token ? ((await accounts.authenticate(token))?.userId ?? undefined) : undefined;
  };
  const send: Handler<typeof a.sendSmsCode | typeof a.sendEmailCode> = async ({
    input,
    request,
  }) => {
    await accounts.sendCode(
      accountRef(input),
      input.purpose,
      contextOf(request),
      await optionalCaller(request),
    );
    return null;
  };
  const check: Handler<typeof a.checkSmsCode | typeof a.checkEmailCode> = async ({ input }) => {
    await accounts.checkCode(accountRef(input), input.purpose, input.code);
    return null;
  };
  for (const route of [
    a.sendSmsCode,
    a.sendSmsCodeInternal,
    a.sendEmailCode,
    a.sendEmailCodeInternal,
  ])
    serve(route, send, { config: CODE_LIMIT });
  for (const route of [
    a.checkSmsCode,
    a.checkSmsCodeInternal,
    a.checkEmailCode,
    a.checkEmailCodeInternal,
  ])
    serve(route, check, { config: CHECK_LIMIT });
}
