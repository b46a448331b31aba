import { Button } from "antd";
import { useState } from "react";
import { useLang } from "../i18n/index.ts";
import type { useCountdown } from "../lib/useCountdown.ts";

interface Props {
  /** Validates what is needed and sends the code; resolves when sent (rejects on failure). */
  onSend: () => Promise<unknown>;
  countdown: ReturnType<typeof useCountdown>;
  testId?: string;
  block?: boolean;
}

/** "Get code" → "Resend in 59s" button. The countdown starts once the code was sent. */
export function SendCodeButton({ onSend, countdown, testId, block }: Props) {
  const { t } = useLang();
  const [sending, setSending] = useState(false);
  return (
    <Button
      data-testid={testId}
      block={block}
      loading={sending}
      disabled={countdown.running}
      className="kw-send-code"
      onClick={async () => {
        setSending(true);
        try {
          await onSend();
          countdown.start();
        } catch {
          // validation or API errors are already shown
        } finally {
          setSending(false);
        }
      }}
    >
      {countdown.running
        ? t("common.resendIn", { seconds: countdown.remaining })
        : t("common.sendCode")}
    </Button>
  );
}
