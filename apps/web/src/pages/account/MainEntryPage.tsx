import { Navigate, useLocation } from "react-router";
import { LANGUAGE_PARAM } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";

/**
 * /main: the entry a bookmark or another product links to. A signed-in user lands on the
 * device list, anyone else on /login; an explicit ?language= goes along.
 */
export function MainEntryPage() {
  const { search } = useLocation();
  const language = new URLSearchParams(search).get(LANGUAGE_PARAM);
  const target = hasToken() ? LANDING_ROUTE : PATHS.login;
  const query = language ? `${LANGUAGE_PARAM}=${encodeURIComponent(language)}` : "";
  const to = query ? `${target}${target.includes("?") ? "&" : "?"}${query}` : target;
  return <Navigate to={to} replace />;
}
