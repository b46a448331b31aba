import { App } from "antd";
import { useState } from "react";
import { userApi } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { signOutLocally } from "../../lib/session.ts";

/** POST /user/logout (ends this terminal), then the local sign-out of SPEC §4. */
export function useLogout() {
  const { t } = useLang();
  const { message } = App.useApp();
  const [pending, setPending] = useState(false);
  const logout = async () => {
    setPending(true);
    try {
      await userApi.logout();
    } catch {
      // the token may already be gone on the server: sign out locally anyway
    } finally {
      setPending(false);
      signOutLocally("/login");
      message.success(t("layout.loggedOut"));
    }
  };
  return { logout, pending };
}
