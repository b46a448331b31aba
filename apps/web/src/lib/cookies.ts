import { DAY_MS } from "@keyway/shared";

/** Minimal cookie helpers (path "/", SameSite=Lax). `days` undefined = session cookie. */
export function getCookie(name: string): string | undefined {
  return getCookies(name)[0];
}

/** Every value of cookies named `name` (others' with a Domain or a longer Path come too). */
export function getCookies(name: string): string[] {
  const prefix = `${encodeURIComponent(name)}=`;
  const values: string[] = [];
  for (const part of document.cookie.split(";")) {
    const item = part.trim();
    if (item.startsWith(prefix)) values.push(decodeURIComponent(item.slice(prefix.length)));
  }
  return values;
}

export function setCookie(name: string, value: string, days?: number): void {
  let cookie = `${encodeURIComponent(name)}=${encodeURIComponent(value)}; path=/; SameSite=Lax`;
  if (days !== undefined)
    cookie += `; expires=${new Date(Date.now() + days * DAY_MS).toUTCString()}`;
  if (window.location.protocol === "https:") cookie += "; Secure";
  // biome-ignore lint/suspicious/noDocumentCookie: a tiny helper; the Cookie Store API is not everywhere yet
  document.cookie = cookie;
}

export function removeCookie(name: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: see setCookie
  document.cookie = `${encodeURIComponent(name)}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** Cookie names shared with the server (token, lang) and the login page. */
export const COOKIE = {
  token: "token",
  lang: "lang",
  rememberAccount: "rememberAccount",
} as const;
