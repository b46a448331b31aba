import { changePasswordForm } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { App, Form, Input } from "antd";
import { userApi } from "../../api/user.ts";
import { PasswordPairFields } from "../../components/form/PasswordPairFields.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";
import type { AccountForm } from "./types.ts";

/** Change password (POST /user/changeLoginPwd): the security centre's modal and /recoverPwd. */
export function usePasswordForm(props: { onDone: () => void }): AccountForm {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(changePasswordForm);
  const change = useMutation({ mutationFn: userApi.changePassword });

  const element = (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      onFinish={async (values) => {
        const v = parseForm(changePasswordForm, values);
        try {
          await change.mutateAsync({ oldPwd: v.oldPwd, newPwd: v.password });
        } catch {
          return;
        }
        useAppStore.getState().setUserState(USER_STATE.passwordChanged);
        message.success(t("safety.passwordChanged"));
        props.onDone();
      }}
    >
      <Form.Item name="oldPwd" label={t("field.oldPassword")} rules={[rule("oldPwd")]}>
        <Input.Password
          data-testid="change-password-old"
          placeholder={t("placeholder.oldPassword")}
          autoComplete="current-password"
        />
      </Form.Item>
      <PasswordPairFields
        rule={rule}
        passwordLabel={t("field.newPassword")}
        passwordTestId="change-password-new"
        confirmTestId="change-password-confirm"
      />
    </Form>
  );
  return { form, element, submitting: change.isPending, submitDisabled: false, reset: () => {} };
}
