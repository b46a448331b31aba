import { TOKEN_COOKIE_DAYS } from "@keyway/shared";
import { queryClient } from "../api/queryClient.ts";
import { useAppStore } from "../store/app.ts";
import { COOKIE, getCookie, removeCookie, setCookie } from "./cookies.ts";
import { navigateTo } from "./navigation.ts";

export function getToken(): string | undefined {
  return getCookie(COOKIE.token) || undefined;
}

export function hasToken(): boolean {
  return getToken() !== undefined;
}

/** Keep-login: the token cookie lives TOKEN_COOKIE_DAYS; otherwise it is a session cookie. */
export function saveToken(token: string, keepLogin: boolean): void {
  setCookie(COOKIE.token, token, keepLogin ? TOKEN_COOKIE_DAYS : undefined);
}

/**
 * SPEC §4 sign-out: clear the token cookie, reset login state 0 / user state 8, drop cached
 * server data and go to `to` (/login, or /loginTimeout after an expired session).
 */
export function signOutLocally(to: "/login" | "/loginTimeout" = "/login"): void {
  removeCookie(COOKIE.token);
  useAppStore.getState().signOut();
  queryClient.clear();
  navigateTo(to, { replace: true });
}
