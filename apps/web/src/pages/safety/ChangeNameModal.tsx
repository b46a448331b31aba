import { changeNameForm } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Input } from "antd";
import { queryKeys } from "../../api/keys.ts";
import { userApi } from "../../api/user.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";

export function ChangeNameModal(props: { open: boolean; current: string; onClose: () => void }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(changeNameForm);
  const change = useMutation({ mutationFn: userApi.changeName });

  return (
    <FormModal
      title={t("safety.changeName")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={change.isPending}
      submitTestId="change-name-submit"
    >
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
          props.onClose();
        }}
      >
        <Form.Item name="name" label={t("field.name")} rules={[rule("name")]}>
          <Input data-testid="change-name-input" placeholder={t("placeholder.name")} autoFocus />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
