import { REMEMBER_ACCOUNT_DAYS } from "@keyway/shared";
import { COOKIE, getCookie, removeCookie, setCookie } from "../../lib/cookies.ts";

/** Remember-me: the account name (never the password) is kept in a cookie for 3 days. */
export interface RememberedAccount {
  tab: "phone" | "email";
  loginName: string;
  countryCode?: string;
}

export function readRememberedAccount(): RememberedAccount | null {
  const raw = getCookie(COOKIE.rememberAccount);
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<RememberedAccount>;
    if ((value.tab === "phone" || value.tab === "email") && typeof value.loginName === "string") {
      return { tab: value.tab, loginName: value.loginName, countryCode: value.countryCode };
    }
  } catch {
    // malformed cookie: forget it
  }
  return null;
}

export function rememberAccount(account: RememberedAccount | null): void {
  if (account) setCookie(COOKIE.rememberAccount, JSON.stringify(account), REMEMBER_ACCOUNT_DAYS);
  else removeCookie(COOKIE.rememberAccount);
}
