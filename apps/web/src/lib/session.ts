import { TOKEN_COOKIE_DAYS } from "@keyway/shared";
import { queryClient } from "../api/queryClient.ts";
import { type MOBILE, PATHS } from "../paths.ts";
import { useAppStore } from "../store/app.ts";
import { COOKIE, getCookies, removeCookie, setCookie } from "./cookies.ts";
import { navigateTo } from "./navigation.ts";
import { STORAGE_KEY, safeStorage } from "./storage.ts";

/**
 * The login token: the `token` cookie (SPEC §4), but only the one this app wrote. A device
 * page on a visit host of the same site can set a `token` cookie for the parent domain
 * (cookie tossing, docs/security.md); the copy in this origin's storage tells ours apart.
 */
export function getToken(): string | undefined {
  const values = getCookies(COOKIE.token).filter(Boolean);
  const ours = safeStorage.get(STORAGE_KEY.tokenCopy);
  if (ours) return values.includes(ours) ? ours : undefined;
  return values[0];
}

export function hasToken(): boolean {
  return getToken() !== undefined;
}

/** Keep-login: the token cookie lives TOKEN_COOKIE_DAYS; otherwise it is a session cookie. */
export function saveToken(token: string, keepLogin: boolean): void {
  setCookie(COOKIE.token, token, keepLogin ? TOKEN_COOKIE_DAYS : undefined);
  safeStorage.set(STORAGE_KEY.tokenCopy, token);
}

/**
 * SPEC §4 sign-out: clear the token cookie, reset login state 0 / user state 8, drop cached
 * server data and go to `to` (/login, /loginTimeout after an expired session, or the phone's
 * own login, so a phone is not sent through the desktop route and back).
 */
export function signOutLocally(
  to: typeof PATHS.login | typeof PATHS.loginTimeout | typeof MOBILE.login = PATHS.login,
): void {
  removeCookie(COOKIE.token);
  useAppStore.getState().signOut();
  queryClient.clear();
  navigateTo(to, { replace: true });
}
