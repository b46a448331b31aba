import type { LoginResult } from "@keyway/shared";
import { queryClient } from "../../api/queryClient.ts";
import { type LoginPayload, userApi } from "../../api/user.ts";
import { brand } from "../../brand/brand.ts";
import { saveToken } from "../../lib/session.ts";
import { terminalInfo } from "../../lib/terminal.ts";
import { LOGIN_STATE, useAppStore } from "../../store/app.ts";

export interface Credentials {
  loginName: string;
  loginPwd: string;
  countryCode?: string;
}

/** POST /user/login with this browser's terminal data; saves the token and the session state. */
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
    const { result } = await userApi.login(payload);
    saveToken(result.token, keepLogin);
    // Nothing cached for a previous session may leak into this one.
    queryClient.clear();
    store.signedIn(result.userid);
    return result;
  } catch (error) {
    store.setLoginState(LOGIN_STATE.failed);
    throw error;
  }
}
