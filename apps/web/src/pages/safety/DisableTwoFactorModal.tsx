import { secondFactorField, validationMessage } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Form, Input, Segmented, Typography } from "antd";
import { useState } from "react";
import { TWO_FACTOR_STATUS_KEY, twoFactorApi } from "../../api/twoFactor.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { fieldRule } from "./twoFactorParts.tsx";

/** Turn off, confirmed with the password or a code. */
export function DisableTwoFactorModal(props: { open: boolean; onClose: () => void }) {
  const { t, lang } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ password?: string; code?: string }>();
  const [by, setBy] = useState<"password" | "code">("password");
  const disable = useMutation({ mutationFn: twoFactorApi.disable, meta: { silent: true } });

  return (
    <FormModal
      title={t("twoFactor.offTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={disable.isPending}
      submitTestId="twofactor-off-submit"
      submitText={t("twoFactor.turnOff")}
      danger
    >
      <Typography.Paragraph type="secondary">{t("twoFactor.offHint")}</Typography.Paragraph>
      <Segmented
        block
        value={by}
        onChange={(value) => {
          setBy(value as "password" | "code");
          disable.reset();
        }}
        options={[
          { value: "password", label: t("twoFactor.offByPassword") },
          { value: "code", label: t("twoFactor.offByCode") },
        ]}
        className="kw-mb"
      />
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        onValuesChange={() => disable.isError && disable.reset()}
        onFinish={async (values) => {
          try {
            await disable.mutateAsync(
              by === "password"
                ? { password: values.password }
                : { code: secondFactorField.parse(values.code) },
            );
          } catch {
            return;
          }
          message.success(t("twoFactor.turnedOff"));
          await queryClient.invalidateQueries({ queryKey: TWO_FACTOR_STATUS_KEY });
          props.onClose();
        }}
      >
        {by === "password" ? (
          <Form.Item
            name="password"
            label={t("twoFactor.offByPassword")}
            rules={[{ required: true, message: validationMessage("v.required", lang) }]}
          >
            <Input.Password autoComplete="current-password" data-testid="twofactor-off-password" />
          </Form.Item>
        ) : (
          <Form.Item
            name="code"
            label={t("twoFactor.offByCode")}
            rules={[fieldRule(secondFactorField, t("twoFactor.codeFormat"))]}
          >
            <Input autoComplete="one-time-code" data-testid="twofactor-off-code" />
          </Form.Item>
        )}
      </Form>
      {disable.isError && (
        <Alert
          type="error"
          showIcon
          title={disable.error.message}
          data-testid="twofactor-off-error"
        />
      )}
    </FormModal>
  );
}
