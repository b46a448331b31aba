import { type AccessKind, LIMITS } from "@keyway/shared";
import { Button, Form, Input, Selector } from "antd-mobile";
import { useLang } from "../../i18n/index.ts";
import type { useMobileZodRule } from "./zodRule.ts";

/** Visit or bind: the leave message (typing stops at 15), a remark for binds, the password in Akey+password mode. */
export function RequestForm({
  form,
  kind,
  onKind,
  passwordMode,
  rule,
  sending,
  onFinish,
}: {
  form: ReturnType<typeof Form.useForm>[0];
  kind: AccessKind;
  onKind: (kind: AccessKind) => void;
  passwordMode: boolean;
  rule: ReturnType<typeof useMobileZodRule>;
  sending: boolean;
  onFinish: (values: Record<string, unknown>) => void;
}) {
  const { t } = useLang();
  const messageLength = String(Form.useWatch("message", form) ?? "").length;
  return (
    <>
      <Selector
        columns={2}
        value={[kind]}
        onChange={(v) => v[0] && onKind(v[0])}
        options={[
          { label: t("access.requestVisit"), value: "visit" as const },
          { label: t("access.requestBind"), value: "bind" as const },
        ]}
        data-testid="m-request-kind"
      />
      <p className="kwm-hint">
        {passwordMode ? t("access.request.passwordHint") : t("access.request.approvalHint")}
      </p>
      <Form
        form={form}
        key={kind}
        layout="vertical"
        initialValues={{ message: "", remarks: "" }}
        onFinish={onFinish}
        footer={
          <Button
            block
            color="primary"
            type="submit"
            loading={sending}
            data-testid="m-request-submit"
          >
            {passwordMode ? t("access.request.submitPassword") : t("access.request.submit")}
          </Button>
        }
      >
        {kind === "bind" && (
          <Form.Item name="remarks" label={t("device.remark")} rules={[rule("remarks")]}>
            <Input placeholder={t("device.remarkPlaceholder")} data-testid="m-request-remarks" />
          </Form.Item>
        )}
        <Form.Item
          name="message"
          label={t("access.request.message")}
          rules={[rule("message")]}
          extra={
            <span className="kwm-hint" data-testid="m-request-message-count">
              {messageLength} / {LIMITS.visitMessage.max}
            </span>
          }
        >
          <Input
            placeholder={t("access.messagePlaceholder")}
            // Typing stops at the SPEC §5 limit; the shared rule still checks it.
            maxLength={LIMITS.visitMessage.max}
            data-testid="m-request-message"
          />
        </Form.Item>
        {passwordMode && (
          <Form.Item name="password" label={t("device.password")} rules={[rule("password")]}>
            <Input
              type="password"
              placeholder={t("device.passwordPlaceholder")}
              data-testid="m-request-password"
            />
          </Form.Item>
        )}
      </Form>
    </>
  );
}
