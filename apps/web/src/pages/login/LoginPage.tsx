import { LockOutlined, MailOutlined, MobileOutlined } from "@ant-design/icons";
import { DEFAULT_COUNTRY_CODE, HW, loginByEmailForm, loginByPhoneForm } from "@keyway/shared";
import { Alert, App, Button, Checkbox, Divider, Flex, Form, Input, Space, Tabs } from "antd";
import { Suspense, useMemo, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { sendCode } from "../../api/common.ts";
import { ApiError } from "../../api/errors.ts";
import type { AccountRef } from "../../api/user.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { lazyPage, PageLoading } from "../../components/lazyPage.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { LOGIN_STATE, useAppStore } from "../../store/app.ts";
import { REDIRECT_PARAM, safeReturnPath } from "../account/returnPath.ts";
import { ActivateStep } from "../register/ActivateStep.tsx";
import {
  type Credentials,
  completeTwoFactorLogin,
  performLogin,
  TwoFactorRequired,
} from "./performLogin.ts";
import { readRememberedAccount, rememberAccount } from "./remember.ts";
import { TwoFactorStep } from "./TwoFactorStep.tsx";

type Tab = "phone" | "email" | "qr";

/** The QR tab's panel (and its QR encoder) is fetched when that tab is opened. */
const QrLoginPanel = lazyPage(() => import("./QrLoginPanel.tsx"), "QrLoginPanel");

/** Login codes shown with their own text; every other business code is a format error. */
const LOGIN_OWN_TEXT: ReadonlySet<string> = new Set(
  [HW.PASSWORD_ERROR, HW.ACCOUNT_NOT_FOUND, HW.ACCOUNT_LOCKED].map((e) => String(e.code)),
);

/**
 * SPEC §8 Login: 07010110 / 07010109 say what is wrong, "any other error is shown as a format
 * error". Codes with their own step (two-factor, activation) never get here; the account lock
 * (a later code) keeps its text, because "format" would send the user hunting for a typo;
 * transport failures (network, rate limit, 5xx) keep theirs, being no answer about the input.
 * null: nothing to show (an expired session is already notified).
 */
export function loginErrorText(error: unknown, formatError: string): string | null {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.kind === "session") return null;
  if (error.kind === "transport") return error.message;
  return LOGIN_OWN_TEXT.has(String(error.hwcode)) ? error.message : formatError;
}

/** Optional router state from register / forgot-password: prefill the account. */
export interface LoginPrefill {
  tab: "phone" | "email";
  loginName: string;
  countryCode?: string;
}

interface LoginValues {
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

export function LoginPage() {
  const { t } = useLang();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const remembered = useMemo(readRememberedAccount, []);
  const prefill = (location.state as { prefill?: LoginPrefill } | null)?.prefill ?? remembered;

  const [tab, setTab] = useState<Tab>(prefill?.tab ?? "phone");
  const [form] = Form.useForm<LoginValues>();
  const schema = tab === "email" ? loginByEmailForm : loginByPhoneForm;
  const rule = useZodRule(schema);

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

  const initialValues: LoginValues = {
    countryCode: prefill?.countryCode ?? DEFAULT_COUNTRY_CODE,
    phone: prefill?.tab === "phone" ? prefill.loginName : undefined,
    email: prefill?.tab === "email" ? prefill.loginName : undefined,
    remember: remembered !== null,
    keep: false,
  };

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

  if (secondStep) {
    return (
      <AuthShell title={t("twoFactor.stepTitle")}>
        <TwoFactorStep
          onBack={() => setSecondStep(null)}
          onSubmit={async (code) => {
            const { pending, remember } = secondStep;
            const result = await completeTwoFactorLogin(secondStep.challenge, code, pending.keep);
            loggedIn(pending, remember, result.name);
          }}
        />
      </AuthShell>
    );
  }

  if (inactive && activating) {
    return (
      <AuthShell title={t("login.activateTitle")}>
        <ActivateStep
          account={inactive.account}
          codeJustSent={activating.justSent}
          backLabel={t("login.backToLogin")}
          onBack={() => setActivating(null)}
          onActivated={async () => {
            message.success(t("login.activated"));
            setActivating(null);
            await login(inactive, Boolean(form.getFieldValue("remember")));
          }}
        />
      </AuthShell>
    );
  }

  return (
    <AuthShell title={t("login.title")} subtitle={t("login.subtitle")}>
      <Tabs
        activeKey={tab}
        onChange={(key) => {
          setTab(key as Tab);
          setError(null);
          setInactive(null);
        }}
        items={[
          {
            key: "phone",
            label: <span data-testid="login-tab-phone">{t("login.tabPhone")}</span>,
          },
          {
            key: "email",
            label: <span data-testid="login-tab-email">{t("login.tabEmail")}</span>,
          },
          {
            key: "qr",
            label: <span data-testid="login-tab-qr">{t("qrLogin.tab")}</span>,
          },
        ]}
      />
      {tab === "qr" && (
        <Suspense fallback={<PageLoading />}>
          <QrLoginPanel />
        </Suspense>
      )}
      <Form
        style={tab === "qr" ? { display: "none" } : undefined}
        form={form}
        size="large"
        initialValues={initialValues}
        onFinish={onFinish}
        onValuesChange={() => error && setError(null)}
        requiredMark={false}
        autoComplete="on"
      >
        {tab === "phone" ? (
          <PhoneField
            rule={rule}
            countryTestId="login-country"
            phoneTestId="login-phone"
            icon
            autoComplete="tel-national"
          />
        ) : (
          <EmailField rule={rule} testId="login-email" icon autoComplete="email" />
        )}
        <Form.Item name="password" rules={[rule("password")]}>
          <Input.Password
            data-testid="login-password"
            prefix={<LockOutlined />}
            placeholder={t("placeholder.password")}
            autoComplete="current-password"
          />
        </Form.Item>
        <Flex justify="space-between" align="center" className="kw-login-options">
          <Space size="small">
            <Form.Item name="remember" valuePropName="checked" noStyle>
              <Checkbox data-testid="login-remember">{t("login.remember")}</Checkbox>
            </Form.Item>
            <Form.Item name="keep" valuePropName="checked" noStyle>
              <Checkbox data-testid="login-keep">{t("login.keep")}</Checkbox>
            </Form.Item>
          </Space>
          <Link to={PATHS.forgetPwd} data-testid="login-forgot">
            {t("login.forgot")}
          </Link>
        </Flex>
        {error && (
          <Alert type="error" showIcon title={error} className="kw-mb" data-testid="login-error" />
        )}
        {inactive && (
          <Alert
            type="warning"
            showIcon
            className="kw-mb"
            data-testid="login-inactive"
            title={t("login.notActivated")}
            action={
              <Button
                size="small"
                type="primary"
                loading={sendingActivation}
                onClick={startActivation}
                data-testid="login-activate"
              >
                {t("login.activateNow")}
              </Button>
            }
          />
        )}
        <Button
          type="primary"
          htmlType="submit"
          block
          loading={submitting}
          data-testid="login-submit"
        >
          {t("login.submit")}
        </Button>
      </Form>
      <Divider plain className="kw-auth-divider">
        {t("login.noAccount")}
      </Divider>
      <div className="kw-register-choices">
        <Button
          block
          icon={<MobileOutlined />}
          onClick={() => navigate(PATHS.register)}
          data-testid="login-register-phone"
        >
          {t("login.registerPhone")}
        </Button>
        <Button
          block
          icon={<MailOutlined />}
          onClick={() => navigate(PATHS.registerByEmail)}
          data-testid="login-register-email"
        >
          {t("login.registerEmail")}
        </Button>
      </div>
    </AuthShell>
  );
}
