import { deleteAccountForm } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { Alert, App, Checkbox, Form, Input } from "antd";
import { useState } from "react";
import { userApi } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { signOutLocally } from "../../lib/session.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";
import type { AccountForm } from "./types.ts";

/**
 * Delete the account (DELETE /v1/users/account) with the password and an explicit "I
 * understand" confirmation; the submit stays disabled until it is ticked. Ends in /login.
 */
export function useDeleteAccountForm(): AccountForm {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(deleteAccountForm);
  const [understood, setUnderstood] = useState(false);
  const remove = useMutation({ mutationFn: userApi.deleteAccount });

  const element = (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      onFinish={async (values) => {
        // The button is disabled until then; Enter in the password field must not bypass it.
        if (!understood) return;
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
  );
  return {
    form,
    element,
    submitting: remove.isPending,
    submitDisabled: !understood,
    reset: () => setUnderstood(false),
  };
}
