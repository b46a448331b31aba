import { MailOutlined } from "@ant-design/icons";
import { Form, Input } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../../i18n/index.ts";
import type { FieldRule } from "./types.ts";

interface Props {
  rule: FieldRule;
  testId: string;
  label?: ReactNode;
  /** Show the mail icon in the input. */
  icon?: boolean;
  autoComplete?: string;
}

/** The e-mail input (form field `email`). */
export function EmailField({ rule, testId, label, icon, autoComplete }: Props) {
  const { t } = useLang();
  return (
    <Form.Item name="email" label={label} rules={[rule("email")]}>
      <Input
        data-testid={testId}
        prefix={icon ? <MailOutlined /> : undefined}
        placeholder={t("placeholder.email")}
        autoComplete={autoComplete}
        inputMode="email"
      />
    </Form.Item>
  );
}
