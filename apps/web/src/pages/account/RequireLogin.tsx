import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { hasToken } from "../../lib/session.ts";
import { loginPathFor } from "./returnPath.ts";

/**
 * The login-shell account pages work for a signed-in user; anyone else goes to /login and
 * comes back here after logging in.
 */
export function RequireLogin({ children }: { children: ReactNode }) {
  const { pathname, search } = useLocation();
  if (!hasToken()) return <Navigate to={loginPathFor(pathname, search)} replace />;
  return children;
}
