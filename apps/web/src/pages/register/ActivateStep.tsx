import { MailOutlined, MessageOutlined } from "@ant-design/icons";
import { codeForm, VERIFICATION } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { Alert, Button, Form } from "antd";
import { useEffect } from "react";
import { sendCode } from "../../api/common.ts";
import { type AccountRef, userApi } from "../../api/user.ts";
import { CodeField } from "../../components/form/CodeField.tsx";
import { useLang } from "../../i18n/index.ts";
import { useCountdown } from "../../lib/useCountdown.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

interface Props {
  account: AccountRef;
  /** True when the server has just sent a code (after register): the countdown starts. */
  codeJustSent: boolean;
  onActivated: () => void | Promise<void>;
  onBack?: () => void;
  backLabel?: string;
}

export function accountLabel(account: AccountRef): string {
  return "email" in account ? account.email : `+${account.countryCode} ${account.phone}`;
}

/** Second step of registration (and of logging in to a non-activated account). */
export function ActivateStep({ account, codeJustSent, onActivated, onBack, backLabel }: Props) {
  const { t } = useLang();
  const [form] = Form.useForm();
  const rule = useZodRule(codeForm);
  const countdown = useCountdown();
  const isEmail = "email" in account;

  useEffect(() => {
    if (codeJustSent) countdown.start();
  }, [codeJustSent, countdown.start]);

  const activate = useMutation({
    mutationFn: (code: string) =>
      userApi.activate({
        activeAccount: isEmail ? account.email : account.phone,
        SMSVerificationCode: code,
        countryCode: isEmail ? undefined : account.countryCode,
      }),
  });

  return (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      onFinish={async (values) => {
        const { code } = parseForm(codeForm, values);
        try {
          await activate.mutateAsync(code);
        } catch {
          return; // the message is shown by the query client
        }
        await onActivated();
      }}
    >
      <Alert
        type="info"
        showIcon
        icon={isEmail ? <MailOutlined /> : <MessageOutlined />}
        className="kw-mb"
        title={t("register.activateTitle")}
        description={t("register.activateHint", {
          channel: isEmail ? t("register.channelEmail") : t("register.channelSms"),
          account: accountLabel(account),
          minutes: VERIFICATION.ttlMinutes,
        })}
      />
      <CodeField
        rule={rule}
        size="large"
        codeTestId="activate-code"
        sendTestId="activate-resend"
        countdown={countdown}
        onSend={() => sendCode(account, "register")}
      />
      <Button
        type="primary"
        htmlType="submit"
        block
        size="large"
        loading={activate.isPending}
        data-testid="activate-submit"
      >
        {t("register.activateSubmit")}
      </Button>
      {onBack && (
        <Button type="link" block onClick={onBack} className="kw-mt-sm">
          {backLabel ?? t("common.back")}
        </Button>
      )}
    </Form>
  );
}
