import { HW, loginByEmailForm, loginByPhoneForm } from "@keyway/shared";
import { App } from "antd";
import { useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { sendCode } from "../../api/common.ts";
import { ApiError } from "../../api/errors.ts";
import type { AccountRef } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { LANDING_ROUTE } from "../../paths.ts";
import { LOGIN_STATE, useAppStore } from "../../store/app.ts";
import { REDIRECT_PARAM, safeReturnPath } from "../account/returnPath.ts";
import { loginErrorText } from "./loginErrorText.ts";
import { type Credentials, performLogin, TwoFactorRequired } from "./performLogin.ts";
import { rememberAccount } from "./remember.ts";

export type Tab = "phone" | "email" | "qr";

export interface LoginValues {
  countryCode?: string;
  phone?: string;
  email?: string;
  password?: string;
  remember?: boolean;
  keep?: boolean;
}

interface Pending {
  account: AccountRef;
  credentials: Credentials;
  keep: boolean;
}

/**
 * The login's steps after the form: the password check, then two-factor or activation when
 * the server asks for them; remember-me and the way back once logged in.
 */
export function useLoginFlow(tab: Tab) {
  const { t } = useLang();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [inactive, setInactive] = useState<Pending | null>(null);
  const [activating, setActivating] = useState<{ justSent: boolean } | null>(null);
  const [sendingActivation, setSendingActivation] = useState(false);
  /** Two-factor: the password was right, the code is asked next. */
  const [secondStep, setSecondStep] = useState<{
    challenge: string;
    pending: Pending;
    remember: boolean;
  } | null>(null);

  const login = async (pending: Pending, remember: boolean) => {
    setSubmitting(true);
    setError(null);
    try {
      const result = await performLogin(pending.credentials, pending.keep);
      loggedIn(pending, remember, result.name);
    } catch (e) {
      if (e instanceof TwoFactorRequired) {
        setSecondStep({ challenge: e.challenge, pending, remember });
        setError(null);
      } else if (e instanceof ApiError && e.is(HW.ACCOUNT_NOT_ACTIVATED.code)) {
        useAppStore.getState().setLoginState(LOGIN_STATE.needsActivation);
        setInactive(pending);
        setError(null);
      } else {
        setInactive(null);
        const text = loginErrorText(e, t("login.formatError"));
        if (text !== null) setError(text);
      }
    } finally {
      setSubmitting(false);
    }
  };

  const loggedIn = (pending: Pending, remember: boolean, name: string) => {
    rememberAccount(
      remember
        ? {
            tab: "email" in pending.account ? "email" : "phone",
            loginName: pending.credentials.loginName,
            countryCode: pending.credentials.countryCode,
          }
        : null,
    );
    message.success(t("login.success", { name }));
    // Back to the page that sent the user here (/userInfo, /modifyPhone, ...), else the devices.
    const back = safeReturnPath(new URLSearchParams(location.search).get(REDIRECT_PARAM));
    navigate(back ?? LANDING_ROUTE, { replace: true });
  };

  const onFinish = (values: LoginValues) => {
    setInactive(null);
    let pending: Pending;
    if (tab === "phone") {
      const v = parseForm(loginByPhoneForm, values);
      pending = {
        account: { phone: v.phone, countryCode: v.countryCode },
        credentials: { loginName: v.phone, loginPwd: v.password, countryCode: v.countryCode },
        keep: Boolean(values.keep),
      };
    } else {
      const v = parseForm(loginByEmailForm, values);
      pending = {
        account: { email: v.email },
        credentials: { loginName: v.email, loginPwd: v.password },
        keep: Boolean(values.keep),
      };
    }
    void login(pending, Boolean(values.remember));
  };

  const startActivation = async () => {
    if (!inactive) return;
    setSendingActivation(true);
    try {
      await sendCode(inactive.account, "register");
      setActivating({ justSent: true });
    } catch (e) {
      // A code sent less than a minute ago is still valid: go on to the code step.
      if (e instanceof ApiError && e.is(HW.CODE_TOO_FREQUENT.code)) {
        message.warning(e.message);
        setActivating({ justSent: true });
      } else if (e instanceof Error) {
        message.error(e.message);
      }
    } finally {
      setSendingActivation(false);
    }
  };

  return {
    submitting,
    error,
    setError,
    inactive,
    setInactive,
    activating,
    setActivating,
    sendingActivation,
    secondStep,
    setSecondStep,
    login,
    loggedIn,
    onFinish,
    startActivation,
  };
}
