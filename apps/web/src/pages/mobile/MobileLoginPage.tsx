import {
  DEFAULT_COUNTRY_CODE,
  loginByEmailForm,
  loginByPhoneForm,
  twoFactorCodeForm,
} from "@keyway/shared";
import { Button, Checkbox, Form, Input, Tabs, Toast } from "antd-mobile";
import { useMemo, useState } from "react";
import { Link, Navigate, useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { useBrand } from "../../brand/brand.ts";
import { CountryCodeSelect } from "../../components/CountryCodeSelect.tsx";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { MOBILE, PATHS } from "../../paths.ts";
import { completeTwoFactorLogin, performLogin, TwoFactorRequired } from "../login/performLogin.ts";
import { readRememberedAccount, rememberAccount } from "../login/remember.ts";
import { MobileLanguageSwitch } from "./parts.tsx";
import { useMobileZodRule } from "./zodRule.ts";

type Tab = "phone" | "email";

interface Values {
  countryCode?: string;
  phone?: string;
  email?: string;
  password?: string;
  keep?: boolean;
  remember?: boolean;
}

/** Only a mobile route may be come back to (no open redirect through the login). */
export function safeRedirect(value: string | null): string {
  if (
    value &&
    (value === MOBILE.root || value.startsWith(`${MOBILE.root}/`)) &&
    !value.startsWith("//")
  )
    return value;
  return MOBILE.root;
}

/**
 * Log in on the phone by phone number or e-mail (POST /user/login, the desktop's call and
 * the shared zod forms), remember-me and keep-login as on the desktop (SPEC §1), the country
 * code from the desktop's country-code list; then back to where the phone was going
 * (`?redirect=`, e.g. a QR-login confirmation) or the device list. Register, forgot password
 * and app download lead to those public pages, which a phone may open.
 */
export function MobileLoginPage() {
  const { t } = useLang();
  const { wording, logo } = useBrand();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const target = safeRedirect(params.get("redirect"));
  const remembered = useMemo(readRememberedAccount, []);
  const [tab, setTab] = useState<Tab>(remembered?.tab ?? "phone");
  const [form] = Form.useForm<Values>();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rule = useMobileZodRule(tab === "phone" ? loginByPhoneForm : loginByEmailForm);
  const codeRule = useMobileZodRule(twoFactorCodeForm);
  // Two-factor login on: the password was right, the code is asked next.
  const [second, setSecond] = useState<{
    challenge: string;
    keep: boolean;
    remembered: Parameters<typeof rememberAccount>[0];
  } | null>(null);

  if (hasToken()) return <Navigate to={target} replace />;

  const onFinish = async (values: Values) => {
    setError(null);
    const credentials: { loginName: string; loginPwd: string; countryCode?: string } =
      tab === "phone"
        ? (() => {
            const v = parseForm(loginByPhoneForm, values);
            return { loginName: v.phone, loginPwd: v.password, countryCode: v.countryCode };
          })()
        : (() => {
            const v = parseForm(loginByEmailForm, values);
            return { loginName: v.email, loginPwd: v.password };
          })();
    // Remember-me keeps the account name only (3 days), never the password.
    const toRemember = values.remember
      ? { tab, loginName: credentials.loginName, countryCode: credentials.countryCode }
      : null;
    setSubmitting(true);
    try {
      const result = await performLogin(credentials, Boolean(values.keep));
      rememberAccount(toRemember);
      Toast.show({ content: t("login.success", { name: result.name }) });
      navigate(target, { replace: true });
    } catch (e) {
      if (e instanceof TwoFactorRequired) {
        setSecond({ challenge: e.challenge, keep: Boolean(values.keep), remembered: toRemember });
      } else if (!(e instanceof ApiError && e.kind === "session")) {
        setError(e instanceof Error ? e.message : String(e));
      }
    } finally {
      setSubmitting(false);
    }
  };

  const onCode = async (values: { code?: string }) => {
    if (!second) return;
    setError(null);
    setSubmitting(true);
    try {
      const { code } = parseForm(twoFactorCodeForm, values);
      const result = await completeTwoFactorLogin(second.challenge, code, second.keep);
      rememberAccount(second.remembered);
      Toast.show({ content: t("login.success", { name: result.name }) });
      navigate(target, { replace: true });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <div className="kwm-login" data-testid="m-login">
      <div className="kwm-login-top">
        <MobileLanguageSwitch />
      </div>
      <div className="kwm-login-brand">
        <img src={logo} width={56} height={56} alt="" />
        <h1 data-testid="brand-name">{wording.name}</h1>
        <p>{t("login.subtitle")}</p>
      </div>
      {second ? (
        <Form
          layout="vertical"
          mode="card"
          onFinish={onCode}
          footer={
            <>
              {error && (
                <div className="kwm-form-error" data-testid="m-login-error" role="alert">
                  {error}
                </div>
              )}
              <Button
                block
                type="submit"
                color="primary"
                size="large"
                loading={submitting}
                data-testid="m-login-2fa-submit"
              >
                {t("twoFactor.verify")}
              </Button>
              <Button block fill="none" className="kwm-mt" onClick={() => setSecond(null)}>
                {t("login.backToLogin")}
              </Button>
            </>
          }
        >
          <Form.Header>{t("twoFactor.stepTitle")}</Form.Header>
          <Form.Item name="code" label={t("twoFactor.stepHint")} rules={[codeRule("code")]}>
            <Input
              autoComplete="one-time-code"
              inputMode="numeric"
              data-testid="m-login-2fa-code"
            />
          </Form.Item>
        </Form>
      ) : (
        <>
          <Tabs
            activeKey={tab}
            onChange={(key) => {
              setTab(key as Tab);
              setError(null);
            }}
          >
            <Tabs.Tab
              key="phone"
              title={<span data-testid="m-login-tab-phone">{t("login.tabPhone")}</span>}
            />
            <Tabs.Tab
              key="email"
              title={<span data-testid="m-login-tab-email">{t("login.tabEmail")}</span>}
            />
          </Tabs>
          <Form
            key={tab}
            form={form}
            layout="horizontal"
            mode="card"
            initialValues={{
              countryCode: remembered?.countryCode ?? DEFAULT_COUNTRY_CODE,
              phone: remembered?.tab === "phone" ? remembered.loginName : undefined,
              email: remembered?.tab === "email" ? remembered.loginName : undefined,
              keep: false,
              remember: remembered !== null,
            }}
            onFinish={onFinish}
            onValuesChange={() => error && setError(null)}
            footer={
              <>
                {error && (
                  <div className="kwm-form-error" data-testid="m-login-error" role="alert">
                    {error}
                  </div>
                )}
                <Button
                  block
                  type="submit"
                  color="primary"
                  size="large"
                  loading={submitting}
                  data-testid="m-login-submit"
                >
                  {t("login.submit")}
                </Button>
              </>
            }
          >
            {tab === "phone" ? (
              <>
                <Form.Item
                  name="countryCode"
                  label={t("field.countryCode")}
                  rules={[rule("countryCode")]}
                >
                  <CountryCodeSelect data-testid="m-login-country" />
                </Form.Item>
                <Form.Item name="phone" label={t("field.phone")} rules={[rule("phone")]}>
                  <Input
                    inputMode="tel"
                    autoComplete="tel-national"
                    placeholder={t("placeholder.phone")}
                    data-testid="m-login-phone"
                  />
                </Form.Item>
              </>
            ) : (
              <Form.Item name="email" label={t("field.email")} rules={[rule("email")]}>
                <Input
                  // Not type="email": the browser's own check would cover the shared rule's text.
                  inputMode="email"
                  autoComplete="email"
                  placeholder={t("placeholder.email")}
                  data-testid="m-login-email"
                />
              </Form.Item>
            )}
            <Form.Item name="password" label={t("field.password")} rules={[rule("password")]}>
              <Input
                type="password"
                autoComplete="current-password"
                placeholder={t("placeholder.password")}
                data-testid="m-login-password"
              />
            </Form.Item>
            <Form.Item>
              <div className="kwm-login-checks">
                <Form.Item name="remember" valuePropName="checked" noStyle>
                  <Checkbox data-testid="m-login-remember">{t("login.remember")}</Checkbox>
                </Form.Item>
                <Form.Item name="keep" valuePropName="checked" noStyle>
                  <Checkbox data-testid="m-login-keep">{t("login.keep")}</Checkbox>
                </Form.Item>
              </div>
            </Form.Item>
          </Form>
          <div className="kwm-login-links">
            <Link
              to={tab === "phone" ? PATHS.register : PATHS.registerByEmail}
              data-testid="m-login-register"
            >
              {t("m.login.register")}
            </Link>
            <Link to={PATHS.forgetPwd} data-testid="m-login-forgot">
              {t("m.login.forgot")}
            </Link>
            <Link to={PATHS.appDownload} data-testid="m-login-app">
              {t("m.login.appDownload")}
            </Link>
          </div>
        </>
      )}
    </div>
  );
}
