import { DownloadOutlined } from "@ant-design/icons";
import {
  enableTwoFactorForm,
  secondFactorField,
  type TwoFactorSetup,
  totpCodeField,
  validationMessage,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  Alert,
  App,
  Button,
  Flex,
  Form,
  type FormRule,
  Input,
  Modal,
  Segmented,
  Spin,
  Steps,
  Typography,
} from "antd";
import { useEffect, useState } from "react";
import { TWO_FACTOR_STATUS_KEY, twoFactorApi } from "../../api/twoFactor.ts";
import { useBrand } from "../../brand/brand.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { type TextKey, useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";

/** A rule from a shared field schema, with our own localized message. */
function fieldRule(schema: { safeParse: (v: unknown) => { success: boolean } }, text: string) {
  return {
    validator: async (_rule: unknown, value: unknown) => {
      if (!schema.safeParse(value ?? "").success) throw text;
    },
  } satisfies FormRule;
}

/** The recovery codes, shown once: copy, download, and "I have saved them". */
function RecoveryCodes({ codes }: { codes: string[] }) {
  const { t } = useLang();
  const { wording } = useBrand();
  const text = codes.join("\n");
  const download = () => {
    const blob = new Blob([`${wording.name}\n\n${text}\n`], { type: "text/plain" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = "recovery-codes.txt";
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Flex vertical gap={12}>
      <Alert type="warning" showIcon title={t("twoFactor.setupCodesHint")} />
      <div
        data-testid="twofactor-recovery-codes"
        style={{ display: "grid", gridTemplateColumns: "repeat(2, max-content)", gap: "8px 24px" }}
      >
        {codes.map((code) => (
          <Typography.Text key={code} code className="kw-code">
            {code}
          </Typography.Text>
        ))}
      </div>
      <Flex gap={8}>
        <Typography.Text
          copyable={{ text, tooltips: [t("twoFactor.copyCodes"), t("twoFactor.copied")] }}
        >
          {t("twoFactor.copyCodes")}
        </Typography.Text>
        <Button size="small" icon={<DownloadOutlined />} onClick={download}>
          {t("twoFactor.downloadCodes")}
        </Button>
      </Flex>
    </Flex>
  );
}

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
