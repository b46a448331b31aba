import { UserOutlined } from "@ant-design/icons";
import { DEFAULT_COUNTRY_CODE, registerByEmailForm, registerByPhoneForm } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { App, Button, Form, Input, Steps, Typography } from "antd";
import { useEffect, useState } from "react";
import { Link, useNavigate } from "react-router";
import { type AccountRef, type RegisterPayload, userApi } from "../../api/user.ts";
import { brand, useBrand } from "../../brand/brand.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PasswordPairFields } from "../../components/form/PasswordPairFields.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { REGISTER_STATE, useAppStore } from "../../store/app.ts";
import type { LoginPrefill } from "../login/LoginPage.tsx";
import { performLogin } from "../login/performLogin.ts";
import { ActivateStep } from "./ActivateStep.tsx";

interface RegisterValues {
  countryCode?: string;
  phone?: string;
  email?: string;
  name?: string;
  password?: string;
  confirmPassword?: string;
}

interface Registered {
  account: AccountRef;
  password: string;
}

/** /register (by phone) and /registerByEmail: account form, then the activation code. */
export function RegisterPage({ by }: { by: "phone" | "email" }) {
  const { t } = useLang();
  const { wording } = useBrand();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<RegisterValues>();
  const schema = by === "phone" ? registerByPhoneForm : registerByEmailForm;
  const rule = useZodRule(schema);
  const registerState = useAppStore((s) => s.registerState);
  const setRegisterState = useAppStore((s) => s.setRegisterState);
  const [registered, setRegistered] = useState<Registered | null>(null);

  // Each visit starts at the form.
  useEffect(() => {
    setRegisterState(REGISTER_STATE.form);
    setRegistered(null);
    form.resetFields();
  }, [setRegisterState, form]);

  const register = useMutation({
    mutationFn: (payload: RegisterPayload) => userApi.register(payload),
  });

  const onFinish = async (values: RegisterValues) => {
    let payload: RegisterPayload;
    let account: AccountRef;
    if (by === "phone") {
      const v = parseForm(registerByPhoneForm, values);
      account = { phone: v.phone, countryCode: v.countryCode };
      payload = { phone: v.phone, countryCode: v.countryCode, name: v.name, password: v.password };
    } else {
      const v = parseForm(registerByEmailForm, values);
      account = { email: v.email };
      payload = { email: v.email, name: v.name, password: v.password };
    }
    try {
      await register.mutateAsync({ ...payload, oemid: brand.id, hideMap: false });
    } catch {
      return; // shown by the query client
    }
    setRegistered({ account, password: payload.password });
    setRegisterState(REGISTER_STATE.activate);
  };

  const afterActivation = async () => {
    if (!registered) return;
    message.success(t("register.activated"));
    const { account, password } = registered;
    const prefill: LoginPrefill =
      "email" in account
        ? { tab: "email", loginName: account.email }
        : { tab: "phone", loginName: account.phone, countryCode: account.countryCode };
    try {
      await performLogin(
        "email" in account
          ? { loginName: account.email, loginPwd: password }
          : { loginName: account.phone, loginPwd: password, countryCode: account.countryCode },
        false,
      );
      setRegisterState(REGISTER_STATE.form);
      navigate(LANDING_ROUTE, { replace: true });
    } catch {
      navigate(PATHS.login, { replace: true, state: { prefill } });
    }
  };

  const step = registerState === REGISTER_STATE.activate && registered ? 1 : 0;

  return (
    <AuthShell title={by === "phone" ? t("register.titlePhone") : t("register.titleEmail")}>
      <Steps
        size="small"
        current={step}
        className="kw-mb"
        items={[{ title: t("register.stepAccount") }, { title: t("register.stepActivate") }]}
      />
      {step === 1 && registered ? (
        <ActivateStep
          account={registered.account}
          codeJustSent
          onActivated={afterActivation}
          onBack={() => setRegisterState(REGISTER_STATE.form)}
        />
      ) : (
        <Form
          form={form}
          layout="vertical"
          size="large"
          requiredMark={false}
          initialValues={{ countryCode: DEFAULT_COUNTRY_CODE }}
          onFinish={onFinish}
        >
          {by === "phone" ? (
            <PhoneField
              rule={rule}
              label={t("field.phone")}
              countryTestId="register-country"
              phoneTestId="register-phone"
              icon
              autoComplete="tel-national"
            />
          ) : (
            <EmailField
              rule={rule}
              label={t("field.email")}
              testId="register-email"
              icon
              autoComplete="email"
            />
          )}
          <Form.Item name="name" label={t("field.name")} rules={[rule("name")]}>
            <Input
              data-testid="register-name"
              prefix={<UserOutlined />}
              placeholder={t("placeholder.name")}
              autoComplete="name"
            />
          </Form.Item>
          <PasswordPairFields
            rule={rule}
            passwordLabel={t("field.password")}
            passwordTestId="register-password"
            confirmTestId="register-confirm"
            icon
          />
          <Button
            type="primary"
            htmlType="submit"
            block
            loading={register.isPending}
            data-testid="register-submit"
          >
            {t("register.submit")}
          </Button>
          <Typography.Paragraph type="secondary" className="kw-agreement">
            {t("register.agreement", { brand: wording.name })}
          </Typography.Paragraph>
        </Form>
      )}
      <div className="kw-auth-alt">
        {by === "phone" ? (
          <Link to={PATHS.registerByEmail} data-testid="register-switch">
            {t("register.byEmail")}
          </Link>
        ) : (
          <Link to={PATHS.register} data-testid="register-switch">
            {t("register.byPhone")}
          </Link>
        )}
        <span className="kw-dot">·</span>
        <span>{t("register.haveAccount")}</span>
        <Link to={PATHS.login} data-testid="register-login">
          {t("register.toLogin")}
        </Link>
      </div>
    </AuthShell>
  );
}
