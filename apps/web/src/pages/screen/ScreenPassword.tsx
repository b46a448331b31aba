import { LockOutlined } from "@ant-design/icons";
import { Form, Input, Modal, Typography } from "antd";
import { z } from "zod";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

const testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * The VNC server's credentials. VNC passwords are the device's own (VncAuth reads 8
 * characters; other schemes more), so the only rules are "given" and a sane length.
 */
const credentialsForm = z.object({
  username: z.string().trim().max(256, { error: "v.text" }).optional(),
  password: z
    .string({ error: "v.required" })
    .min(1, { error: "v.required" })
    .max(256, { error: "v.text" }),
});
const passwordOnly = credentialsForm.omit({ username: true });
const withUser = credentialsForm.extend({
  username: z.string({ error: "v.required" }).trim().min(1, { error: "v.required" }).max(256, {
    error: "v.text",
  }),
});

/**
 * Asks the device's VNC password in Keyway's page (noVNC's credentialsrequired). It goes to
 * noVNC at once and from there to the VNC server through the relay: the form is emptied on
 * send and nothing keeps it — no storage, no URL, no autofill entry.
 */
export function ScreenPassword(props: {
  open: boolean;
  name: string;
  credentials: string[];
  onSubmit: (credentials: { username?: string; password: string }) => void;
  onCancel: () => void;
}) {
  const { t } = useLang();
  const [form] = Form.useForm();
  const needsUser = props.credentials.includes("username");
  const schema = needsUser ? withUser : passwordOnly;
  const rule = useZodRule(schema);
  return (
    <Modal
      open={props.open}
      title={
        <span>
          <LockOutlined /> {t("screen.password.title")}
        </span>
      }
      okText={t("screen.password.submit")}
      onOk={() => form.submit()}
      onCancel={() => {
        form.resetFields();
        props.onCancel();
      }}
      maskClosable={false}
      destroyOnHidden
      okButtonProps={{ ...testId("screen-password-submit") }}
      cancelButtonProps={{ ...testId("screen-password-cancel") }}
      data-testid="screen-password"
    >
      <Typography.Paragraph type="secondary">
        {t("screen.password.hint", { name: props.name })}
      </Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        autoComplete="off"
        onFinish={(values) => {
          const parsed = parseForm(schema, values) as { username?: string; password: string };
          form.resetFields();
          props.onSubmit(parsed);
        }}
      >
        {needsUser && (
          <Form.Item
            name="username"
            label={t("screen.password.username")}
            rules={[rule("username")]}
          >
            <Input autoComplete="off" data-testid="screen-password-username" />
          </Form.Item>
        )}
        <Form.Item name="password" label={t("screen.password.password")} rules={[rule("password")]}>
          <Input.Password
            autoFocus
            autoComplete="new-password"
            onPressEnter={() => form.submit()}
            data-testid="screen-password-input"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
