import { MobileOutlined } from "@ant-design/icons";
import { Form, Input, Space } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../../i18n/index.ts";
import { CountryCodeSelect } from "../CountryCodeSelect.tsx";
import type { FieldRule } from "./types.ts";

interface Props {
  rule: FieldRule;
  countryTestId: string;
  phoneTestId: string;
  label?: ReactNode;
  required?: boolean;
  /** Show the phone icon in the input. */
  icon?: boolean;
  autoComplete?: string;
  /** Default "Enter your phone number"; another person's number says so. */
  placeholder?: string;
}

/** Country code + phone number on one row (form fields `countryCode` and `phone`). */
export function PhoneField({
  rule,
  countryTestId,
  phoneTestId,
  label,
  required,
  icon,
  autoComplete,
  placeholder,
}: Props) {
  const { t } = useLang();
  return (
    <Form.Item label={label} required={required}>
      <Space.Compact block>
        <Form.Item name="countryCode" noStyle>
          <CountryCodeSelect data-testid={countryTestId} />
        </Form.Item>
        <Form.Item name="phone" noStyle dependencies={["countryCode"]} rules={[rule("phone")]}>
          <Input
            data-testid={phoneTestId}
            prefix={icon ? <MobileOutlined /> : undefined}
            placeholder={placeholder ?? t("placeholder.phone")}
            autoComplete={autoComplete}
            inputMode="tel"
          />
        </Form.Item>
      </Space.Compact>
    </Form.Item>
  );
}
