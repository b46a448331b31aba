import { useCallback } from "react";
import { useNavigate } from "react-router";
import { signOutLocally } from "../../lib/session.ts";
import { MOBILE } from "../../paths.ts";

/**
 * Signing out on the phone: the signed-in screens are left first (rendered at once), then
 * the token and the cached data go. Clearing the cache while the tab bar's screens are still
 * mounted made them fetch again without a token, and the refusal showed "session expired".
 */
export function useMobileSignOut(): () => void {
  const navigate = useNavigate();
  return useCallback(() => {
    navigate(MOBILE.login, { replace: true, flushSync: true });
    window.setTimeout(() => signOutLocally(MOBILE.login), 0);
  }, [navigate]);
}
