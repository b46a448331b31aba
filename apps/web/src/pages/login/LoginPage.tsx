import { LockOutlined } from "@ant-design/icons";
import { DEFAULT_COUNTRY_CODE, loginByEmailForm, loginByPhoneForm } from "@keyway/shared";
import { Alert, App, Button, Checkbox, Flex, Form, Input, Space, Tabs } from "antd";
import { Suspense, useMemo, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { AuthShell } from "../../components/AuthShell.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { lazyPage, PageLoading } from "../../components/lazyPage.tsx";
import { useLang } from "../../i18n/index.ts";
import { useZodRule } from "../../lib/zodRule.tsx";
import { PATHS } from "../../paths.ts";
import { ActivateStep } from "../register/ActivateStep.tsx";
import { completeTwoFactorLogin } from "./performLogin.ts";
import { RegisterChoices } from "./RegisterChoices.tsx";
import { readRememberedAccount } from "./remember.ts";
import { TwoFactorStep } from "./TwoFactorStep.tsx";
import { type LoginValues, type Tab, useLoginFlow } from "./useLoginFlow.ts";

/** The QR tab's panel (and its QR encoder) is fetched when that tab is opened. */
const QrLoginPanel = lazyPage(() => import("./QrLoginPanel.tsx"), "QrLoginPanel");

/** Optional router state from register / forgot-password: prefill the account. */
export interface LoginPrefill {
  tab: "phone" | "email";
  loginName: string;
  countryCode?: string;
}

export function LoginPage() {
  const { t } = useLang();
  const { message } = App.useApp();
  const _navigate = useNavigate();
  const location = useLocation();
  const remembered = useMemo(readRememberedAccount, []);
  const prefill = (location.state as { prefill?: LoginPrefill } | null)?.prefill ?? remembered;

  const [tab, setTab] = useState<Tab>(prefill?.tab ?? "phone");
  const [form] = Form.useForm<LoginValues>();
  const schema = tab === "email" ? loginByEmailForm : loginByPhoneForm;
  const rule = useZodRule(schema);

  const {
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
  } = useLoginFlow(tab);

  const initialValues: LoginValues = {
    countryCode: prefill?.countryCode ?? DEFAULT_COUNTRY_CODE,
    phone: prefill?.tab === "phone" ? prefill.loginName : undefined,
    email: prefill?.tab === "email" ? prefill.loginName : undefined,
    remember: remembered !== null,
    keep: false,
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
      <RegisterChoices />
    </AuthShell>
  );
}
