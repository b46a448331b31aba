import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { currentDeviceKind, mobileRedirectTarget } from "../../lib/deviceKind.ts";
import { MOBILE_REDIRECT_EXEMPT } from "../../paths.ts";

/**
 * SPEC §1: phones and tablets opening a desktop route are replaced to the mobile route (its
 * counterpart screen where there is one); TV boxes and the SCADA registration page are
 * exempt. Rendered instead of the page, so a desktop page never starts its calls on a phone.
 */
export function MobileRedirect({ children }: { children: ReactNode }) {
  const { pathname, search } = useLocation();
  const target =
    currentDeviceKind(search) === "mobile"
      ? mobileRedirectTarget(pathname, search, MOBILE_REDIRECT_EXEMPT)
      : null;
  return target ? <Navigate to={target} replace /> : children;
}
