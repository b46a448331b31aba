import { KeyOutlined, SafetyOutlined } from "@ant-design/icons";
import { HW, secondFactorField } from "@keyway/shared";
import { Alert, Button, Flex, Form, type FormRule, Input, Typography } from "antd";
import { useState } from "react";
import { ApiError } from "../../api/errors.ts";
import { useLang } from "../../i18n/index.ts";

interface Props {
  onSubmit: (code: string) => Promise<void>;
  onBack: () => void;
}

/**
 * The login's second step: the authenticator's 6 digits (or a recovery code). The shared
 * field schema judges the input here and on the server; its message is ours, in both
 * languages.
 */
export function TwoFactorStep({ onSubmit, onBack }: Props) {
  const { t } = useLang();
  const [form] = Form.useForm<{ code: string }>();
  const [recovery, setRecovery] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [expired, setExpired] = useState(false);

  const codeRule: FormRule = {
    validator: async (_rule, value: string | undefined) => {
      if (!secondFactorField.safeParse(value ?? "").success) throw t("twoFactor.codeFormat");
    },
  };

  const submit = async ({ code }: { code: string }) => {
    setSubmitting(true);
    setError(null);
    try {
      await onSubmit(secondFactorField.parse(code));
    } catch (e) {
      if (e instanceof ApiError && e.is(HW.TWO_FACTOR_CHALLENGE_EXPIRED.code)) setExpired(true);
      else if (!(e instanceof ApiError && e.kind === "session")) {
        setError(e instanceof Error ? e.message : String(e));
        form.setFieldValue("code", "");
      }
    } finally {
      setSubmitting(false);
    }
  };

  if (expired) {
    return (
      <Flex vertical gap={16} data-testid="twofactor-step">
        <Alert
          type="warning"
          showIcon
          title={t("twoFactor.expired")}
          data-testid="twofactor-expired"
        />
        <Button type="primary" block size="large" onClick={onBack} data-testid="twofactor-back">
          {t("login.backToLogin")}
        </Button>
      </Flex>
    );
  }

  return (
    <Form
      form={form}
      size="large"
      onFinish={submit}
      onValuesChange={() => error && setError(null)}
      requiredMark={false}
      data-testid="twofactor-step"
    >
      <Typography.Paragraph type="secondary">
        {recovery ? t("twoFactor.stepRecoveryHint") : t("twoFactor.stepHint")}
      </Typography.Paragraph>
      <Form.Item name="code" rules={[codeRule]} validateTrigger="onSubmit">
        {recovery ? (
          <Input
            autoFocus
            prefix={<KeyOutlined />}
            placeholder={t("twoFactor.recoveryPlaceholder")}
            autoComplete="off"
            data-testid="twofactor-recovery"
          />
        ) : (
          <Input.OTP
            length={6}
            autoFocus
            inputMode="numeric"
            formatter={(v) => v.replace(/\D/g, "")}
            data-testid="twofactor-code"
            onChange={(value) => {
              // Six digits typed (or pasted): no need to look for the button.
              if (/^\d{6}$/.test(value)) form.submit();
            }}
          />
        )}
      </Form.Item>
      {error && (
        <Alert
          type="error"
          showIcon
          title={error}
          className="kw-mb"
          data-testid="twofactor-error"
        />
      )}
      <Button
        type="primary"
        htmlType="submit"
        block
        icon={<SafetyOutlined />}
        loading={submitting}
        data-testid="twofactor-submit"
      >
        {t("twoFactor.verify")}
      </Button>
      <Flex justify="space-between" className="kw-mt">
        <Button type="link" onClick={onBack} style={{ paddingInline: 0 }}>
          {t("login.backToLogin")}
        </Button>
        <Button
          type="link"
          style={{ paddingInline: 0 }}
          data-testid="twofactor-toggle"
          onClick={() => {
            setRecovery(!recovery);
            setError(null);
            form.resetFields();
          }}
        >
          {recovery ? t("twoFactor.useApp") : t("twoFactor.useRecovery")}
        </Button>
      </Flex>
    </Form>
  );
}
