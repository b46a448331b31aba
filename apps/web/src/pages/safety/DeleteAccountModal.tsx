import { deleteAccountForm } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { Alert, App, Checkbox, Form, Input } from "antd";
import { useState } from "react";
import { userApi } from "../../api/user.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { signOutLocally } from "../../lib/session.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";

/** Danger zone: DELETE /v1/users/account with the password and an explicit confirmation. */
export function DeleteAccountModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(deleteAccountForm);
  const [understood, setUnderstood] = useState(false);
  const remove = useMutation({ mutationFn: userApi.deleteAccount });

  const close = () => {
    setUnderstood(false);
    props.onClose();
  };

  return (
    <FormModal
      title={t("safety.deleteAccountTitle")}
      open={props.open}
      onClose={close}
      form={form}
      danger
      submitting={remove.isPending}
      submitDisabled={!understood}
      submitText={t("safety.deleteAccountSubmit")}
      submitTestId="delete-account-submit"
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={async (values) => {
          const { password } = parseForm(deleteAccountForm, values);
          try {
            await remove.mutateAsync({ password });
          } catch {
            return;
          }
          useAppStore.getState().setUserState(USER_STATE.accountDeleted);
          message.success(t("safety.accountDeleted"));
          signOutLocally("/login");
        }}
      >
        <Alert type="error" showIcon className="kw-mb" title={t("safety.deleteAccountWarning")} />
        <Form.Item name="password" label={t("field.password")} rules={[rule("password")]}>
          <Input.Password
            data-testid="delete-account-password"
            placeholder={t("placeholder.password")}
            autoComplete="current-password"
          />
        </Form.Item>
        <Checkbox
          checked={understood}
          onChange={(e) => setUnderstood(e.target.checked)}
          data-testid="delete-account-confirm"
        >
          {t("safety.deleteAccountCheck")}
        </Checkbox>
      </Form>
    </FormModal>
  );
}
