import { changeEmailForm, changePhoneForm, DEFAULT_COUNTRY_CODE } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Form } from "antd";
import { sendCode } from "../../api/common.ts";
import { queryKeys } from "../../api/keys.ts";
import { userApi } from "../../api/user.ts";
import { CodeField } from "../../components/form/CodeField.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { useLang } from "../../i18n/index.ts";
import { useCountdown } from "../../lib/useCountdown.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { USER_STATE, type UserState, useAppStore } from "../../store/app.ts";
import type { AccountForm } from "./types.ts";

/**
 * Change the account phone or e-mail: the code goes to the NEW address (purpose "change"),
 * then PUT /user/v1/account with it. The security centre's modal, /modifyPhone and /modifyEmail.
 */
export function useContactForm(props: {
  kind: "phone" | "email";
  currentCountryCode?: string;
  onDone: () => void;
}): AccountForm {
  const { kind } = props;
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const schema = kind === "phone" ? changePhoneForm : changeEmailForm;
  const rule = useZodRule(schema);
  const countdown = useCountdown();
  const change = useMutation({ mutationFn: userApi.changeAccount });

  const send = async () => {
    const fields = kind === "phone" ? ["countryCode", "phone"] : ["email"];
    const values = await form.validateFields(fields);
    if (kind === "phone") {
      const phone = String(values.phone).trim();
      await sendCode({ phone, countryCode: values.countryCode }, "change");
    } else {
      await sendCode({ email: String(values.email).trim() }, "change");
    }
    message.success(t("common.codeSent"));
  };

  const element = (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={{ countryCode: props.currentCountryCode || DEFAULT_COUNTRY_CODE }}
      onFinish={async (values) => {
        let done: UserState;
        try {
          if (kind === "phone") {
            const v = parseForm(changePhoneForm, values);
            await change.mutateAsync({ phone: v.phone, countryCode: v.countryCode, code: v.code });
            done = USER_STATE.phoneChanged;
          } else {
            const v = parseForm(changeEmailForm, values);
            await change.mutateAsync({ email: v.email, code: v.code });
            done = USER_STATE.emailChanged;
          }
        } catch {
          return;
        }
        useAppStore.getState().setUserState(done);
        message.success(kind === "phone" ? t("safety.phoneChanged") : t("safety.emailChanged"));
        await queryClient.invalidateQueries({ queryKey: queryKeys.userInfo });
        countdown.reset();
        props.onDone();
      }}
    >
      <Alert
        type="info"
        showIcon
        className="kw-mb"
        title={kind === "phone" ? t("safety.codeToNewPhone") : t("safety.codeToNewEmail")}
      />
      {kind === "phone" ? (
        <PhoneField
          rule={rule}
          label={t("safety.newPhone")}
          required
          countryTestId="change-phone-country"
          phoneTestId="change-phone-input"
        />
      ) : (
        <EmailField rule={rule} label={t("safety.newEmail")} testId="change-email-input" />
      )}
      <CodeField
        rule={rule}
        codeTestId={`change-${kind}-code`}
        sendTestId={`change-${kind}-send-code`}
        countdown={countdown}
        onSend={send}
      />
    </Form>
  );
  return {
    form,
    element,
    submitting: change.isPending,
    submitDisabled: false,
    reset: countdown.reset,
  };
}
