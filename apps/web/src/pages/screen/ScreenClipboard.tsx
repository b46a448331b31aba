import { CopyOutlined, SendOutlined } from "@ant-design/icons";
import { Alert, App, Button, Drawer, Flex, Form, Input, Typography } from "antd";
import { z } from "zod";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

/** Clipboard text sent to the device: something, and not a flood (RFB cut text). */
const CLIPBOARD_MAX = 10_000;
const sendForm = z.object({
  text: z
    .string({ error: "v.required" })
    .min(1, { error: "v.required" })
    .max(CLIPBOARD_MAX, { error: "v.text" }),
});

/**
 * The clipboard between this browser and the device: what the device copied last (to copy
 * here), and text to put on the device's clipboard — not for a read-only visitor (the relay
 * would drop it anyway).
 */
export function ScreenClipboard(props: {
  open: boolean;
  compact: boolean;
  fromDevice: string | null;
  viewOnly: boolean;
  online: boolean;
  onSend: (text: string) => void;
  onClose: () => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(sendForm);
  const canSend = props.online && !props.viewOnly;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.fromDevice ?? "");
      message.success(t("screen.clip.copied"));
    } catch {
      message.warning(t("screen.clip.copyFailed"));
    }
  };
  return (
    <Drawer
      open={props.open}
      onClose={props.onClose}
      title={t("screen.clip.title")}
      placement={props.compact ? "bottom" : "right"}
      size={props.compact ? 460 : 420}
      data-testid="screen-clipboard-drawer"
    >
      <Flex vertical gap={20}>
        <div>
          <Flex justify="space-between" align="center" className="kw-mb-xs">
            <Typography.Text strong>{t("screen.clip.fromDevice")}</Typography.Text>
            <Button
              size="small"
              icon={<CopyOutlined />}
              disabled={!props.fromDevice}
              onClick={() => void copy()}
              data-testid="screen-clip-copy"
            >
              {t("screen.clip.copy")}
            </Button>
          </Flex>
          <Input.TextArea
            readOnly
            value={props.fromDevice ?? ""}
            placeholder={t("screen.clip.fromEmpty")}
            autoSize={{ minRows: 3, maxRows: 8 }}
            data-testid="screen-clip-from"
          />
        </div>
        <div>
          <Typography.Text strong>{t("screen.clip.toDevice")}</Typography.Text>
          {props.viewOnly && (
            <Alert
              type="info"
              showIcon
              className="kw-mt-sm"
              title={t("screen.clip.viewOnly")}
              data-testid="screen-clip-view-only"
            />
          )}
          <Form
            form={form}
            layout="vertical"
            requiredMark={false}
            className="kw-mt-sm"
            disabled={!canSend}
            onFinish={(values) => {
              const { text } = parseForm(sendForm, values);
              props.onSend(text);
              form.resetFields();
              message.success(t("screen.clip.sent"));
            }}
          >
            <Form.Item name="text" rules={[rule("text")]} extra={t("screen.clip.toHint")}>
              <Input.TextArea
                autoSize={{ minRows: 3, maxRows: 8 }}
                maxLength={CLIPBOARD_MAX}
                placeholder={t("screen.clip.placeholder")}
                data-testid="screen-clip-to"
              />
            </Form.Item>
            <Button
              type="primary"
              htmlType="submit"
              icon={<SendOutlined />}
              data-testid="screen-clip-send"
            >
              {t("screen.send")}
            </Button>
          </Form>
        </div>
      </Flex>
    </Drawer>
  );
}
