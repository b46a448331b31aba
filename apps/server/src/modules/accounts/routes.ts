import {
  activeAccountBody,
  brandById,
  brandForHost,
  changeAccountBody,
  changeLoginPwdBody,
  checkEmailCodeBody,
  checkSmsCodeBody,
  confirmAccountQuery,
  deleteAccountBody,
  disableTwoFactorBody,
  emailVerifyQuery,
  enableTwoFactorBody,
  friendsListBody,
  getQrTokenBody,
  hideMapBody,
  loginBody,
  logoutBody,
  passVerifyQuery,
  qrLoginCheckBody,
  qrLoginConfirmBody,
  qrLoginScanBody,
  regenerateRecoveryCodesBody,
  registerBody,
  resetPasswordBody,
  safetyUpdateBody,
  sendEmailCodeBody,
  sendSmsCodeBody,
  terminalIdParams,
  tokenInfoQuery,
  twoFactorLoginBody,
  userNameBody,
} from "@keyway/shared";
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf, tokenOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import { requestLang } from "../../http/lang.ts";
import type { QrLoginService } from "./qrLogin.ts";
import type { AccountService } from "./service.ts";
import { accountRef, parseAccountString, type RequestContext } from "./service.ts";
import type { TwoFactorService } from "./twoFactor.ts";

/** Per-IP limits; per-account limits live in the services (login lock, code throttle). */
const LOGIN_LIMIT = { rateLimit: { max: 20, timeWindow: "1 minute" } };
const CODE_LIMIT = { rateLimit: { max: 10, timeWindow: "1 minute" } };
const CHECK_LIMIT = { rateLimit: { max: 30, timeWindow: "1 minute" } };

type Envelope = { hwcode: number | string; hwdata: unknown; msg?: string };
const isFailure = (payload: unknown): payload is Envelope =>
  typeof payload === "object" &&
  payload !== null &&
  "hwcode" in payload &&
  String((payload as Envelope).hwcode) !== "0";

/** SPEC: activeAccount answers 1 or 0 — every failure (format, code, account) carries 0. */
async function zeroOnFailure(_request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  return isFailure(payload) ? { ...payload, hwdata: 0 } : payload;
}

/**
 * SPEC: `PUT /api/user/v1/account` answers 0 or 420. A business refusal (the account module's
 * string codes: same as current, taken, wrong or expired code) becomes 420 with its own
 * localized text in msg and its code in hwdata.reason; format errors keep 400 and token /
 * rate-limit answers their codes, as on every call.
 */
async function operationFailed(_request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  if (!isFailure(payload) || typeof payload.hwcode !== "string") return payload;
  return { ...payload, hwcode: 420, hwdata: { reason: payload.hwcode } };
}

export function contextOf(request: FastifyRequest, oemId?: string): RequestContext {
  return {
    lang: requestLang(request),
    brand: brandById(oemId) ?? brandForHost(request.hostname),
    ip: request.ip,
  };
}

/** SPEC §7 "User and account": wire names to service calls. */
export function accountRoutes(
  app: FastifyInstance,
  deps: { accounts: AccountService; auth: preHandlerAsyncHookHandler },
) {
  const { accounts, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["account"];

  r.post(
    "/api/user/login",
    {
      schema: { tags, summary: "Log in by phone or e-mail", body: loginBody },
      config: LOGIN_LIMIT,
    },
    async (request) => {
      const b = request.body;
      const result = await accounts.login(
        {
          account: parseAccountString(b.loginName, b.countryCode),
          password: b.loginPwd,
          keepLogin: b.keepLogin ?? false,
          terminal: {
            uuid: b.terminalUUID,
            type: b.terminalType,
            name: b.terminalName,
            os: b.terminalOS,
          },
        },
        contextOf(request, b.loginOemId),
      );
      return ok(result);
    },
  );

  r.post(
    "/api/user/logout",
    {
      schema: {
        tags,
        summary: "Log out this terminal, or the caller's terminal holding `token`",
        body: logoutBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) => {
      await accounts.logout(callerOf(request), request.body?.token || undefined);
      return ok(null);
    },
  );

  r.post(
    "/api/user/v1/register",
    {
      schema: {
        tags,
        summary: "Register by phone or e-mail; sends the activation code",
        body: registerBody,
      },
      config: CODE_LIMIT,
    },
    async (request) => {
      const b = request.body;
      const context = contextOf(request, b.oemid);
      return ok(
        await accounts.register(
          {
            account: accountRef(b),
            password: b.password,
            name: b.name,
            oemId: context.brand.id,
            hideMap: b.hideMap,
            language: context.lang,
          },
          context,
        ),
      );
    },
  );

  r.post(
    "/api/user/activeAccount",
    {
      schema: { tags, summary: "Activate a registration with its code", body: activeAccountBody },
      config: CHECK_LIMIT,
      preSerialization: zeroOnFailure,
    },
    async (request) => {
      const b = request.body;
      await accounts.activate(
        parseAccountString(b.activeAccount, b.countryCode),
        b.SMSVerificationCode,
      );
      return ok(1);
    },
  );

  // Verification codes: two families of paths in the SPEC, one behaviour.
  const optionalCaller = async (request: FastifyRequest) => {
    const token = tokenOf(request);
    return token ? ((await accounts.authenticate(token))?.userId ?? undefined) : undefined;
  };
  for (const path of ["/api/common/mobSendMessage", "/api/v1/internal/smsVerificationCode"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "Send a code by SMS", body: sendSmsCodeBody },
        config: CODE_LIMIT,
      },
      async (request) => {
        const b = request.body;
        await accounts.sendCode(
          accountRef(b),
          b.purpose,
          contextOf(request),
          await optionalCaller(request),
        );
        return ok(null);
      },
    );
  }
  for (const path of ["/api/common/emailCode", "/api/v1/internal/emailVerificationCode"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "Send a code by e-mail", body: sendEmailCodeBody },
        config: CODE_LIMIT,
      },
      async (request) => {
        const b = request.body;
        await accounts.sendCode(
          accountRef(b),
          b.purpose,
          contextOf(request),
          await optionalCaller(request),
        );
        return ok(null);
      },
    );
  }
  for (const path of ["/api/common/mobCheckCode", "/api/v1/internal/smsVerificationCodeCheck"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "Check an SMS code", body: checkSmsCodeBody },
        config: CHECK_LIMIT,
      },
      async (request) => {
        await accounts.checkCode(accountRef(request.body), request.body.purpose, request.body.code);
        return ok(null);
      },
    );
  }
  for (const path of ["/api/common/emailVerify", "/api/v1/internal/emailVerificationCodeCheck"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "Check an e-mail code", body: checkEmailCodeBody },
        config: CHECK_LIMIT,
      },
      async (request) => {
        await accounts.checkCode(accountRef(request.body), request.body.purpose, request.body.code);
        return ok(null);
      },
    );
  }

  r.get(
    "/api/user/v1/confirmAccount",
    {
      schema: {
        tags,
        summary: "Forgot password, step 1: the account exists",
        querystring: confirmAccountQuery,
      },
      config: CHECK_LIMIT,
    },
    async (request) => ok(await accounts.confirmAccount(accountRef(request.query))),
  );

  r.put(
    "/api/user/v1/password",
    {
      schema: {
        tags,
        summary: "Forgot password, last step: set a new password with the code",
        body: resetPasswordBody,
      },
      config: CHECK_LIMIT,
    },
    async (request) => {
      const b = request.body;
      await accounts.resetPassword(accountRef(b), b.password, b.code);
      return ok(null);
    },
  );

  for (const method of ["GET", "POST"] as const) {
    r.route({
      method,
      url: "/api/user/selectInfo",
      schema: { tags, summary: "The caller's account information" },
      preValidation: auth,
      handler: async (request) => ok(await accounts.userInfo(callerOf(request).userId)),
    });
  }

  r.post(
    "/api/user/getUserId",
    { schema: { tags, summary: "The caller's user id" }, preValidation: auth },
    async (request) => ok({ userid: callerOf(request).userId }),
  );

  r.post(
    "/api/user/selectFriendsList",
    {
      schema: {
        tags,
        summary: "People the caller shares devices with (paged)",
        body: friendsListBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) => {
      const { page, pageSize } = request.body ?? friendsListBody.parse({});
      return ok(await accounts.friends(callerOf(request).userId, page, pageSize));
    },
  );

  r.post(
    "/api/safety/update",
    {
      schema: { tags, summary: "Security centre switches (hide map)", body: safetyUpdateBody },
      preValidation: auth,
    },
    async (request) => {
      await accounts.setHideMap(callerOf(request).userId, request.body.hideMap);
      return ok({ hideMap: request.body.hideMap ? 1 : 0 });
    },
  );

  r.put(
    "/api/user/v1/userName",
    { schema: { tags, summary: "Change the name", body: userNameBody }, preValidation: auth },
    async (request) => {
      await accounts.changeName(callerOf(request).userId, request.body.name);
      return ok(null);
    },
  );

  r.put(
    "/api/user/v1/account",
    {
      schema: {
        tags,
        summary: "Change the phone or e-mail (code sent to the new one)",
        body: changeAccountBody,
      },
      preValidation: auth,
      preSerialization: operationFailed,
    },
    async (request) => {
      await accounts.changeAccount(
        callerOf(request).userId,
        accountRef(request.body),
        request.body.code,
      );
      return ok(null);
    },
  );

  r.post(
    "/api/user/changeLoginPwd",
    {
      schema: {
        tags,
        summary: "Change the password (other terminals are logged out)",
        body: changeLoginPwdBody,
      },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) => {
      await accounts.changePassword(callerOf(request), request.body.oldPwd, request.body.newPwd);
      return ok(null);
    },
  );

  r.put(
    "/api/user/v1/hideMap",
    {
      schema: { tags, summary: "Hide or show the cloud map", body: hideMapBody },
      preValidation: auth,
    },
    async (request) => {
      await accounts.setHideMap(callerOf(request).userId, request.body.hideMap);
      return ok(null);
    },
  );

  r.get(
    "/api/user/v1/tokenInfo",
    {
      schema: { tags, summary: "Terminals logged in to this account", querystring: tokenInfoQuery },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await accounts.listTerminals(callerOf(request), request.query.page, request.query.pageSize),
      ),
  );

  r.delete(
    "/api/user/v1/tokenInfo/:id",
    {
      schema: { tags, summary: "Delete a terminal: its session ends", params: terminalIdParams },
      preValidation: auth,
    },
    async (request) => {
      await accounts.deleteTerminal(callerOf(request).userId, request.params.id);
      return ok(null);
    },
  );

  r.get(
    "/api/user/v1/passVerify",
    {
      schema: { tags, summary: "Check the caller's password", querystring: passVerifyQuery },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) => {
      await accounts.verifyCurrentPassword(callerOf(request).userId, request.query.password);
      return ok(null);
    },
  );

  r.get(
    "/api/user/v1/emailVerify",
    {
      schema: {
        tags,
        summary: "Whether an e-mail is already registered",
        querystring: emailVerifyQuery,
      },
      config: CHECK_LIMIT,
    },
    async (request) => ok({ exists: (await accounts.emailInUse(request.query.email)) ? 1 : 0 }),
  );

  r.delete(
    "/api/v1/users/account",
    {
      schema: { tags, summary: "Delete the caller's account", body: deleteAccountBody },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) => {
      await accounts.deleteAccount(callerOf(request).userId, request.body.password);
      return ok(null);
    },
  );
}

/** Per-IP limits of the QR login: a desktop asks for a QR every two minutes and polls. */
const QR_TOKEN_LIMIT = { rateLimit: { max: 10, timeWindow: "1 minute" } };
const QR_CHECK_LIMIT = { rateLimit: { max: 90, timeWindow: "1 minute" } };

/** QR-code login (SPEC §7 getQrToken, qrLoginCheck; the phone's scan and confirm). */
export function qrLoginRoutes(
  app: FastifyInstance,
  deps: { qrLogin: QrLoginService; auth: preHandlerAsyncHookHandler },
) {
  const { qrLogin, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["account"];

  r.post(
    "/api/user/getQrToken",
    {
      schema: {
        tags,
        summary: "A QR code for logging this desktop in from a phone",
        body: getQrTokenBody,
      },
      config: QR_TOKEN_LIMIT,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await qrLogin.issue(
          {
            keepLogin: b.keepLogin ?? false,
            oemId: b.loginOemId,
            terminal: {
              uuid: b.terminalUUID,
              type: b.terminalType,
              name: b.terminalName,
              os: b.terminalOS,
            },
          },
          contextOf(request, b.loginOemId),
          `${request.protocol}://${request.host}`,
        ),
      );
    },
  );

  r.post(
    "/api/user/qrLoginCheck",
    {
      schema: {
        tags,
        summary: "The desktop's poll: waiting, scanned, or the session once confirmed",
        body: qrLoginCheckBody,
      },
      config: QR_CHECK_LIMIT,
    },
    async (request) => ok(await qrLogin.check(request.body.checkToken, contextOf(request))),
  );

  r.post(
    "/api/user/qrLoginScan",
    {
      schema: { tags, summary: "The phone opened a QR: who asks to log in", body: qrLoginScanBody },
      preValidation: auth,
      config: CHECK_LIMIT,
    },
    async (request) => ok(await qrLogin.scan(request.body.qrToken)),
  );

  r.post(
    "/api/user/qrLoginConfirm",
    {
      schema: {
        tags,
        summary: "The phone lets the desktop in (confirm=1) or not (confirm=0)",
        body: qrLoginConfirmBody,
      },
      preValidation: auth,
      config: CHECK_LIMIT,
    },
    async (request) => {
      await qrLogin.answer(request.body.qrToken, callerOf(request), request.body.confirm);
      return ok(null);
    },
  );
}

/** Two-factor login: SPEC §7 enableTwoFactorAuthentication plus status, off, codes, login step. */
export function twoFactorRoutes(
  app: FastifyInstance,
  deps: {
    twoFactor: TwoFactorService;
    accounts: AccountService;
    auth: preHandlerAsyncHookHandler;
  },
) {
  const { twoFactor, accounts, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["account"];
  const userOf = (request: FastifyRequest) => accounts.requireUser(callerOf(request).userId);

  r.get(
    "/api/v1/users/twoFactorAuthentication",
    { schema: { tags, summary: "Whether two-factor login is on" }, preValidation: auth },
    async (request) => ok(await twoFactor.status(callerOf(request).userId)),
  );

  r.post(
    "/api/v1/users/enableTwoFactorAuthentication",
    {
      schema: {
        tags,
        summary:
          "Without code: a new authenticator secret (QR); with the current code: turn it on (recovery codes answered once)",
        // No body at all starts a set-up.
        body: enableTwoFactorBody.nullish(),
      },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) => {
      const code = request.body?.code;
      if (code) return ok(await twoFactor.confirmSetup(callerOf(request), code));
      const context = contextOf(request);
      return ok(await twoFactor.beginSetup(await userOf(request), context.brand, context.lang));
    },
  );

  r.delete(
    "/api/v1/users/twoFactorAuthentication",
    {
      schema: {
        tags,
        summary: "Turn two-factor login off (password, or a current or recovery code)",
        body: disableTwoFactorBody,
      },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) => {
      await twoFactor.disable(await userOf(request), request.body);
      return ok(null);
    },
  );

  r.post(
    "/api/v1/users/twoFactorRecoveryCodes",
    {
      schema: {
        tags,
        summary: "Ten new recovery codes (the old ones stop working)",
        body: regenerateRecoveryCodesBody,
      },
      preValidation: auth,
      config: LOGIN_LIMIT,
    },
    async (request) =>
      ok(await twoFactor.regenerateRecoveryCodes(callerOf(request).userId, request.body.code)),
  );

  r.post(
    "/api/user/twoFactorLogin",
    {
      schema: {
        tags,
        summary: "Login, second step: the challenge of the password step and the code",
        body: twoFactorLoginBody,
      },
      config: LOGIN_LIMIT,
    },
    async (request) =>
      ok(
        await twoFactor.completeLogin(
          request.body.challenge,
          request.body.code,
          contextOf(request),
        ),
      ),
  );
}
