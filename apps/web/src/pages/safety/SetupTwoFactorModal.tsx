import { enableTwoFactorForm, type TwoFactorSetup, totpCodeField } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Button, Flex, Form, Input, Modal, Spin, Steps, Typography } from "antd";
import { useEffect, useState } from "react";
import { TWO_FACTOR_STATUS_KEY, twoFactorApi } from "../../api/twoFactor.ts";
import { useBrand } from "../../brand/brand.ts";
import { type TextKey, useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { fieldRule, RecoveryCodes } from "./twoFactorParts.tsx";

/** Turn on: scan the QR (or type the key), answer with a code, save the recovery codes. */
export function SetupTwoFactorModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const { wording } = useBrand();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ code: string }>();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const begin = useMutation({ mutationFn: twoFactorApi.beginSetup, meta: { silent: true } });
  const confirm = useMutation({ mutationFn: twoFactorApi.confirmSetup, meta: { silent: true } });
  const { open } = props;
  const { mutate: start, reset } = begin;

  useEffect(() => {
    if (!open) return;
    setSetup(null);
    setCodes(null);
    reset();
    start(undefined, { onSuccess: setSetup });
  }, [open, start, reset]);

  const close = () => {
    if (codes) void queryClient.invalidateQueries({ queryKey: TWO_FACTOR_STATUS_KEY });
    props.onClose();
  };

  const step = codes ? 2 : 0;
  const steps: { title: TextKey }[] = [
    { title: "twoFactor.setupScan" },
    { title: "twoFactor.setupVerify" },
    { title: "twoFactor.setupCodes" },
  ];

  return (
    <Modal
      title={t("twoFactor.setupTitle")}
      open={props.open}
      onCancel={close}
      destroyOnHidden
      width={560}
      mask={{ closable: false }}
      footer={
        codes
          ? [
              <Button key="done" type="primary" onClick={close} data-testid="twofactor-saved">
                {t("twoFactor.savedCodes")}
              </Button>,
            ]
          : [
              <Button key="cancel" onClick={close}>
                {t("common.cancel")}
              </Button>,
              <Button
                key="ok"
                type="primary"
                disabled={!setup}
                loading={confirm.isPending}
                onClick={() => form.submit()}
                data-testid="twofactor-setup-submit"
              >
                {t("twoFactor.turnOn")}
              </Button>,
            ]
      }
    >
      <Steps
        size="small"
        current={step === 2 ? 2 : setup ? 1 : 0}
        items={steps.map((s) => ({ title: t(s.title) }))}
        className="kw-mb-lg"
      />
      {codes ? (
        <RecoveryCodes codes={codes} />
      ) : begin.isError ? (
        <Alert
          type="error"
          showIcon
          title={begin.error.message}
          action={
            <Button size="small" onClick={() => start(undefined, { onSuccess: setSetup })}>
              {t("common.retry")}
            </Button>
          }
        />
      ) : !setup ? (
        <Flex justify="center" className="kw-mt">
          <Spin />
        </Flex>
      ) : (
        <Flex gap={24} wrap align="flex-start" data-testid="twofactor-setup">
          <img
            src={setup.qrImage}
            width={180}
            height={180}
            alt="otpauth QR"
            data-testid="twofactor-qr"
          />
          <Flex vertical gap={8} style={{ flex: 1, minWidth: 220 }}>
            <Typography.Text type="secondary">{t("twoFactor.setupScanHint")}</Typography.Text>
            <Typography.Text strong>{t("twoFactor.setupKey")}</Typography.Text>
            <Typography.Text code copyable className="kw-code" data-testid="twofactor-secret">
              {setup.secret}
            </Typography.Text>
            <Typography.Text type="secondary">
              {t("twoFactor.setupVerifyHint", { brand: wording.name })}
            </Typography.Text>
            <Form
              form={form}
              requiredMark={false}
              onFinish={async ({ code }) => {
                try {
                  const { recoveryCodes } = await confirm.mutateAsync(
                    enableTwoFactorForm.parse({ code }).code,
                  );
                  message.success(t("twoFactor.turnedOn"));
                  setCodes(recoveryCodes);
                } catch {
                  form.setFieldValue("code", "");
                }
              }}
              onValuesChange={() => confirm.isError && confirm.reset()}
            >
              <Form.Item
                name="code"
                rules={[fieldRule(totpCodeField, t("twoFactor.codeFormat"))]}
                validateTrigger="onSubmit"
                style={{ marginBottom: 8 }}
              >
                <Input.OTP length={6} inputMode="numeric" data-testid="twofactor-setup-code" />
              </Form.Item>
            </Form>
            {confirm.isError && (
              <Alert
                type="error"
                showIcon
                title={confirm.error.message}
                data-testid="twofactor-setup-error"
              />
            )}
            <Typography.Text type="secondary">
              {t("twoFactor.setupExpires", { time: formatDateTime(setup.expiredTime) })}
            </Typography.Text>
          </Flex>
        </Flex>
      )}
    </Modal>
  );
}
