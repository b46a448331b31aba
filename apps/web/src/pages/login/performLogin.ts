import { HW, type LoginResult } from "@keyway/shared";
import { ApiError } from "../../api/errors.ts";
import { queryClient } from "../../api/queryClient.ts";
import { passwordLoginStep, twoFactorApi } from "../../api/twoFactor.ts";
import type { LoginPayload } from "../../api/user.ts";
import { brand } from "../../brand/brand.ts";
import { saveToken } from "../../lib/session.ts";
import { terminalInfo } from "../../lib/terminal.ts";
import { LOGIN_STATE, useAppStore } from "../../store/app.ts";

export interface Credentials {
  loginName: string;
  loginPwd: string;
  countryCode?: string;
}

/**
 * The password was right but the account has two-factor login on: the login goes on with
 * `completeTwoFactorLogin(challenge, code, keepLogin)`.
 */
export class TwoFactorRequired extends ApiError {
  constructor(
    message: string,
    readonly challenge: string,
    readonly expiredTime: string,
  ) {
    super(message, "business", HW.TWO_FACTOR_REQUIRED.code);
    this.name = "TwoFactorRequired";
  }
}

/** Saves a new session (token cookie, login state) whichever way it was opened. */
export function finishLogin(result: LoginResult["result"], keepLogin: boolean) {
  saveToken(result.token, keepLogin);
  // Nothing cached for a previous session may leak into this one.
  queryClient.clear();
  useAppStore.getState().signedIn(result.userid);
  return result;
}

/**
 * POST /user/login with this browser's terminal data; saves the token and the session state.
 * Throws TwoFactorRequired when the account asks for its authenticator code.
 */
export async function performLogin(
  credentials: Credentials,
  keepLogin: boolean,
): Promise<LoginResult["result"]> {
  const store = useAppStore.getState();
  const payload: LoginPayload = {
    ...credentials,
    ...terminalInfo(),
    loginOemId: brand.id,
    keepLogin, // sent as 1 | 0
  };
  store.setLoginState(LOGIN_STATE.submitting);
  try {
    const step = await passwordLoginStep(payload);
    if (step.kind === "challenge") {
      throw new TwoFactorRequired(step.message, step.challenge, step.expiredTime);
    }
    return finishLogin(step.result, keepLogin);
  } catch (error) {
    store.setLoginState(LOGIN_STATE.failed);
    throw error;
  }
}

/** The second step: the challenge and an authenticator or recovery code. */
export async function completeTwoFactorLogin(
  challenge: string,
  code: string,
  keepLogin: boolean,
): Promise<LoginResult["result"]> {
  const { result } = await twoFactorApi.login(challenge, code);
  return finishLogin(result, keepLogin);
}
