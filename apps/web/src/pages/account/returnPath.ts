import { LANGUAGE_PARAM } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";

/** The query parameter /login reads to go back where the user was sent from. */
export const REDIRECT_PARAM = "redirect";

/**
 * A return path is followed only when it is a path of this site ("/x", not "//host" or
 * "/\host", which browsers treat as another origin): no open redirect through the login.
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) {
    return null;
  }
  // Back to the login itself would loop.
  if (value === PATHS.login || value.startsWith(`${PATHS.login}?`)) return null;
  return value;
}

/** /login with the page to come back to, keeping an explicit ?language=. */
export function loginPathFor(pathname: string, search: string): string {
  const query = new URLSearchParams();
  const language = new URLSearchParams(search).get(LANGUAGE_PARAM);
  if (language) query.set(LANGUAGE_PARAM, language);
  query.set(REDIRECT_PARAM, `${pathname}${search}`);
  return `${PATHS.login}?${query.toString()}`;
}
