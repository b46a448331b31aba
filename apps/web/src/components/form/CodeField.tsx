import { Form, Input, Space } from "antd";
import { useLang } from "../../i18n/index.ts";
import type { useCountdown } from "../../lib/useCountdown.ts";
import { SendCodeButton } from "../SendCodeButton.tsx";
import type { FieldRule } from "./types.ts";

interface Props {
  rule: FieldRule;
  codeTestId: string;
  sendTestId: string;
  countdown: ReturnType<typeof useCountdown>;
  /** Validates what is needed and sends the code (see SendCodeButton). */
  onSend: () => Promise<unknown>;
  size?: "small" | "middle" | "large";
}

/** Verification code + "get code" button on one row (form field `code`). */
export function CodeField({ rule, codeTestId, sendTestId, countdown, onSend, size }: Props) {
  const { t } = useLang();
  return (
    <Form.Item label={t("field.code")} required>
      <Space.Compact block size={size}>
        <Form.Item name="code" noStyle rules={[rule("code")]}>
          <Input
            data-testid={codeTestId}
            placeholder={t("placeholder.code")}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
          />
        </Form.Item>
        <SendCodeButton testId={sendTestId} countdown={countdown} onSend={onSend} />
      </Space.Compact>
    </Form.Item>
  );
}
