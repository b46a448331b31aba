import { totpCodeField } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Form, Input, Modal, Typography } from "antd";
import { useState } from "react";
import { TWO_FACTOR_STATUS_KEY, twoFactorApi } from "../../api/twoFactor.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { fieldRule, RecoveryCodes } from "./twoFactorParts.tsx";

/** Ten new recovery codes against the app's current code. */
export function NewRecoveryCodesModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ code: string }>();
  const [codes, setCodes] = useState<string[] | null>(null);
  const regenerate = useMutation({
    mutationFn: twoFactorApi.regenerateRecoveryCodes,
    meta: { silent: true },
  });
  const close = () => {
    setCodes(null);
    regenerate.reset();
    void queryClient.invalidateQueries({ queryKey: TWO_FACTOR_STATUS_KEY });
    props.onClose();
  };

  if (codes) {
    return (
      <Modal
        title={t("twoFactor.newCodesDone")}
        open={props.open}
        onCancel={close}
        mask={{ closable: false }}
        destroyOnHidden
        footer={[
          <Button key="done" type="primary" onClick={close} data-testid="twofactor-saved">
            {t("twoFactor.savedCodes")}
          </Button>,
        ]}
      >
        <RecoveryCodes codes={codes} />
      </Modal>
    );
  }
  return (
    <FormModal
      title={t("twoFactor.newCodesTitle")}
      open={props.open}
      onClose={close}
      form={form}
      submitting={regenerate.isPending}
      submitTestId="twofactor-codes-submit"
      submitText={t("twoFactor.newCodes")}
    >
      <Typography.Paragraph type="secondary">{t("twoFactor.newCodesHint")}</Typography.Paragraph>
      <Form
        form={form}
        requiredMark={false}
        onValuesChange={() => regenerate.isError && regenerate.reset()}
        onFinish={async ({ code }) => {
          try {
            const result = await regenerate.mutateAsync(totpCodeField.parse(code));
            setCodes(result.recoveryCodes);
          } catch {
            form.setFieldValue("code", "");
          }
        }}
      >
        <Form.Item
          name="code"
          rules={[fieldRule(totpCodeField, t("twoFactor.codeFormat"))]}
          validateTrigger="onSubmit"
        >
          <Input.OTP length={6} inputMode="numeric" data-testid="twofactor-codes-code" />
        </Form.Item>
      </Form>
      {regenerate.isError && <Alert type="error" showIcon title={regenerate.error.message} />}
    </FormModal>
  );
}
