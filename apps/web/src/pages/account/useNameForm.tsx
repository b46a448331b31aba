import { changeNameForm } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Input } from "antd";
import { queryKeys } from "../../api/keys.ts";
import { userApi } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";
import type { AccountForm } from "./types.ts";

/** Change name (PUT /user/v1/userName): the security centre's modal and /userInfo use it. */
export function useNameForm(props: { current: string; onDone: () => void }): AccountForm {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(changeNameForm);
  const change = useMutation({ mutationFn: userApi.changeName });

  const element = (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={{ name: props.current }}
      onFinish={async (values) => {
        const { name } = parseForm(changeNameForm, values);
        try {
          await change.mutateAsync({ name });
        } catch {
          return;
        }
        useAppStore.getState().setUserState(USER_STATE.nameChanged);
        useAppStore.getState().flashSuccess(t("safety.nameChanged"));
        message.success(t("safety.nameChanged"));
        await queryClient.invalidateQueries({ queryKey: queryKeys.userInfo });
        props.onDone();
      }}
    >
      <Form.Item name="name" label={t("field.name")} rules={[rule("name")]}>
        <Input data-testid="change-name-input" placeholder={t("placeholder.name")} autoFocus />
      </Form.Item>
    </Form>
  );
  return { form, element, submitting: change.isPending, submitDisabled: false, reset: () => {} };
}
