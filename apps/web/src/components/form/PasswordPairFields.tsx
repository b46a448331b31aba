import { LockOutlined } from "@ant-design/icons";
import { Form, Input } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../../i18n/index.ts";
import type { FieldRule } from "./types.ts";

interface Props {
  rule: FieldRule;
  passwordTestId: string;
  confirmTestId: string;
  passwordLabel: ReactNode;
  /** Show the lock icon in the inputs. */
  icon?: boolean;
}

/** New password + its confirmation (form fields `password` and `confirmPassword`). */
export function PasswordPairFields({
  rule,
  passwordTestId,
  confirmTestId,
  passwordLabel,
  icon,
}: Props) {
  const { t } = useLang();
  const prefix = icon ? <LockOutlined /> : undefined;
  return (
    <>
      <Form.Item name="password" label={passwordLabel} rules={[rule("password")]}>
        <Input.Password
          data-testid={passwordTestId}
          prefix={prefix}
          placeholder={t("placeholder.newPassword")}
          autoComplete="new-password"
        />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={t("field.confirmPassword")}
        dependencies={["password"]}
        rules={[rule("confirmPassword")]}
      >
        <Input.Password
          data-testid={confirmTestId}
          prefix={prefix}
          placeholder={t("placeholder.confirmPassword")}
          autoComplete="new-password"
        />
      </Form.Item>
    </>
  );
}
