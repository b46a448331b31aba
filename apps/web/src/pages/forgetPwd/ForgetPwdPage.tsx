import { SafetyOutlined } from "@ant-design/icons";
import {
  codeForm,
  confirmAccountQuery,
  DEFAULT_COUNTRY_CODE,
  resetPasswordForm,
} from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { Alert, Button, Form, Result, Segmented, Space, Steps } from "antd";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { checkCode, sendCode } from "../../api/common.ts";
import { queryClient } from "../../api/queryClient.ts";
import { type AccountRef, type Channel, userApi } from "../../api/user.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { CodeField } from "../../components/form/CodeField.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PasswordPairFields } from "../../components/form/PasswordPairFields.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { useLang } from "../../i18n/index.ts";
import { COOKIE, removeCookie } from "../../lib/cookies.ts";
import { hasToken } from "../../lib/session.ts";
import { useCountdown } from "../../lib/useCountdown.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { PATHS } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";
import type { LoginPrefill } from "../login/LoginPage.tsx";

type By = "phone" | "email";

interface Confirmed {
  account: AccountRef;
  masked: string;
  channel: Channel;
}

/** /forgetPwd: confirm account → safety verification → reset → done. */
export function ForgetPwdPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const [step, setStep] = useState(0);
  const [by, setBy] = useState<By>("phone");
  const [confirmed, setConfirmed] = useState<Confirmed | null>(null);
  const [code, setCode] = useState("");
  const countdown = useCountdown();

  const [accountForm] = Form.useForm();
  const [codeFormInstance] = Form.useForm();
  const [resetForm] = Form.useForm();
  const accountRule = useZodRule(confirmAccountQuery);
  const codeRule = useZodRule(codeForm);
  const resetRule = useZodRule(resetPasswordForm);

  const confirm = useMutation({ mutationFn: userApi.confirmAccount });
  const verify = useMutation({
    mutationFn: (vars: { account: AccountRef; code: string }) =>
      checkCode(vars.account, "reset", vars.code),
  });
  const reset = useMutation({ mutationFn: userApi.resetPassword });

  const onConfirm = async (values: Record<string, unknown>) => {
    const v = parseForm(confirmAccountQuery, values);
    const account: AccountRef =
      v.email !== undefined && v.email !== ""
        ? { email: v.email }
        : { phone: v.phone ?? "", countryCode: v.countryCode ?? DEFAULT_COUNTRY_CODE };
    try {
      const result = await confirm.mutateAsync(account);
      setConfirmed({ account, masked: result.account, channel: result.channel });
      countdown.reset();
      codeFormInstance.resetFields();
      setStep(1);
    } catch {
      // shown by the query client
    }
  };

  const onVerify = async (values: Record<string, unknown>) => {
    if (!confirmed) return;
    const v = parseForm(codeForm, values);
    try {
      await verify.mutateAsync({ account: confirmed.account, code: v.code });
      setCode(v.code);
      setStep(2);
    } catch {
      // shown by the query client
    }
  };

  const onReset = async (values: Record<string, unknown>) => {
    if (!confirmed) return;
    const v = parseForm(resetPasswordForm, values);
    try {
      await reset.mutateAsync({ ...confirmed.account, password: v.password, code });
    } catch {
      return;
    }
    // Every session of the user ended on the server; drop this browser's one too.
    if (hasToken()) {
      removeCookie(COOKIE.token);
      useAppStore.getState().signOut();
      queryClient.clear();
    }
    setStep(3);
  };

  const toLogin = () => {
    const account = confirmed?.account;
    const prefill: LoginPrefill | undefined = account
      ? "email" in account
        ? { tab: "email", loginName: account.email }
        : { tab: "phone", loginName: account.phone, countryCode: account.countryCode }
      : undefined;
    navigate(PATHS.login, { state: prefill ? { prefill } : null });
  };

  const channelText =
    confirmed?.channel === "email" ? t("register.channelEmail") : t("register.channelSms");

  return (
    <AuthShell title={t("forget.title")} wide>
      <Steps
        size="small"
        current={step}
        titlePlacement="vertical"
        className="kw-mb-lg"
        items={[
          { title: t("forget.stepConfirm") },
          { title: t("forget.stepVerify") },
          { title: t("forget.stepReset") },
          { title: t("forget.stepDone") },
        ]}
      />

      {step === 0 && (
        <Form
          form={accountForm}
          layout="vertical"
          size="large"
          preserve={false}
          requiredMark={false}
          initialValues={{ countryCode: DEFAULT_COUNTRY_CODE }}
          onFinish={onConfirm}
        >
          <Alert type="info" showIcon title={t("forget.confirmHint")} className="kw-mb" />
          <Segmented<By>
            block
            className="kw-mb"
            value={by}
            onChange={(value) => setBy(value)}
            options={[
              {
                value: "phone",
                label: <span data-testid="forget-tab-phone">{t("login.tabPhone")}</span>,
              },
              {
                value: "email",
                label: <span data-testid="forget-tab-email">{t("login.tabEmail")}</span>,
              },
            ]}
          />
          {by === "phone" ? (
            <PhoneField
              rule={accountRule}
              label={t("field.phone")}
              countryTestId="forget-country"
              phoneTestId="forget-phone"
              icon
            />
          ) : (
            <EmailField rule={accountRule} label={t("field.email")} testId="forget-email" icon />
          )}
          <Button
            type="primary"
            htmlType="submit"
            block
            loading={confirm.isPending}
            data-testid="forget-next"
          >
            {t("common.next")}
          </Button>
        </Form>
      )}

      {step === 1 && confirmed && (
        <Form
          form={codeFormInstance}
          layout="vertical"
          size="large"
          requiredMark={false}
          onFinish={onVerify}
        >
          <Alert
            type="info"
            showIcon
            icon={<SafetyOutlined />}
            className="kw-mb"
            title={t("forget.verifyHint", { channel: channelText, account: confirmed.masked })}
          />
          <CodeField
            rule={codeRule}
            codeTestId="forget-code"
            sendTestId="forget-send-code"
            countdown={countdown}
            onSend={() => sendCode(confirmed.account, "reset")}
          />
          <Space orientation="vertical" style={{ width: "100%" }}>
            <Button
              type="primary"
              htmlType="submit"
              block
              loading={verify.isPending}
              data-testid="forget-verify"
            >
              {t("forget.verify")}
            </Button>
            <Button block type="text" onClick={() => setStep(0)} data-testid="forget-back">
              {t("common.back")}
            </Button>
          </Space>
        </Form>
      )}

      {step === 2 && confirmed && (
        <Form
          form={resetForm}
          layout="vertical"
          size="large"
          requiredMark={false}
          onFinish={onReset}
        >
          <Alert
            type="warning"
            showIcon
            className="kw-mb"
            title={t("forget.resetHint", { account: confirmed.masked })}
          />
          <PasswordPairFields
            rule={resetRule}
            passwordLabel={t("field.newPassword")}
            passwordTestId="forget-password"
            confirmTestId="forget-confirm"
            icon
          />
          <Button
            type="primary"
            htmlType="submit"
            block
            loading={reset.isPending}
            data-testid="forget-submit"
          >
            {t("forget.submit")}
          </Button>
        </Form>
      )}

      {step === 3 && (
        <Result
          status="success"
          title={t("forget.doneTitle")}
          subTitle={t("forget.doneHint")}
          extra={
            <Button type="primary" size="large" onClick={toLogin} data-testid="forget-login">
              {t("forget.toLogin")}
            </Button>
          }
        />
      )}

      {step < 3 && (
        <div className="kw-auth-alt">
          <Link to={PATHS.login} data-testid="forget-to-login">
            {t("login.backToLogin")}
          </Link>
        </div>
      )}
    </AuthShell>
  );
}
