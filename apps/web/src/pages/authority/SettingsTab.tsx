import { SwapOutlined } from "@ant-design/icons";
import {
  checkMachinePwdBody,
  DEFAULT_COUNTRY_CODE,
  HW,
  hwMessage,
  type Machine,
  transferBody,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Button, Card, Form, Input, Radio, Result, Typography } from "antd";
import { useState } from "react";
import { authorityApi } from "../../api/access.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { CountryCodeSelect } from "../../components/CountryCodeSelect.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule, zodValueRule } from "../../lib/zodRule.tsx";

const testId = (id: string) => ({ "data-testid": id }) as object;
const transferForm = transferBody.pick({ account: true, countryCode: true });
const passwordRule = zodValueRule<string | undefined>(
  checkMachinePwdBody.shape.machinePwd,
  (value) => value ?? "",
);
/** Wrong device password answers (the device's own code, or the visit flow's 505). */
const PASSWORD_CODES = [HW.DEVICE_PASSWORD_ERROR.code, HW.VISIT_PASSWORD_ERROR.code];
const TRANSFER_ACCOUNT_CODES = [
  HW.BKEY_ACCOUNT_NOT_FOUND.code,
  HW.ACCOUNT_NOT_FOUND.code,
  HW.TRANSFER_TARGET_INVALID.code,
];

/** What a Bkey sees instead of the Akey's settings: the SPEC's "User has no permission". */
export function NoPermission() {
  const { t, lang } = useLang();
  return (
    <Result
      status="403"
      title={hwMessage("NO_PERMISSION", lang)}
      subTitle={t("authority.akeyOnlyHint")}
      data-testid="authority-no-permission"
    />
  );
}

/**
 * The Akey's device settings (SPEC §4 "Authority changes", §6): the audit mode (Akey+Bkey
 * messages, or Akey+password — switching to it needs the device password) and the transfer
 * of the device to another account (the Akey stays as a Bkey).
 */
export function SettingsTab({ machine }: { machine: Machine }) {
  const { t } = useLang();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const [askPassword, setAskPassword] = useState(false);
  const [transferFormInstance] = Form.useForm();
  const transferRule = useZodRule(transferForm);
  const account = Form.useWatch("account", transferFormInstance) as string | undefined;
  const isEmail = (account ?? "").includes("@");

  const refreshDevice = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll }),
      queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(machine.machine_id) }),
    ]);

  const mode = useMutation({
    mutationFn: (input: { checkType: 0 | 1; password?: string }) =>
      authorityApi.updateMachineInfo({
        machineCode: machine.machine_code,
        checkType: input.checkType,
        password: input.password,
      }),
    meta: { silent: true },
  });
  const setMode = async (checkType: 0 | 1, password?: string): Promise<boolean> => {
    try {
      await mode.mutateAsync({ checkType, password });
    } catch (error) {
      if (error instanceof ApiError && PASSWORD_CODES.some((code) => error.is(code))) throw error;
      showError(error);
      return false;
    }
    message.success(
      checkType === 1 ? t("authority.modeSetPassword") : t("authority.modeSetApproval"),
    );
    await refreshDevice();
    return true;
  };

  const transfer = useMutation({ mutationFn: authorityApi.transfer, meta: { silent: true } });
  const confirmTransfer = (values: Record<string, unknown>) => {
    const body = parseForm(transferForm, values);
    modal.confirm({
      title: t("authority.transferConfirm", { account: body.account }),
      content: (
        <Typography.Paragraph className="kw-mb0">
          {t("authority.transferWarning")}
        </Typography.Paragraph>
      ),
      okText: t("authority.transfer"),
      cancelText: t("common.cancel"),
      okButtonProps: { danger: true, ...testId("auth-transfer-confirm") },
      onOk: async () => {
        try {
          await transfer.mutateAsync({
            machineID: machine.machine_id,
            account: body.account,
            countryCode: body.account.includes("@") ? undefined : body.countryCode,
          });
        } catch (error) {
          if (error instanceof ApiError && TRANSFER_ACCOUNT_CODES.some((code) => error.is(code))) {
            transferFormInstance.setFields([{ name: "account", errors: [error.message] }]);
          } else showError(error);
          return;
        }
        message.success(t("authority.transferred"));
        transferFormInstance.resetFields(["account"]);
        await refreshDevice();
      },
    });
  };

  return (
    <div className="kw-authority-settings" data-testid="auth-settings">
      <Card size="small" title={t("authority.modeTitle")} className="kw-mb">
        <Radio.Group
          value={machine.check_type}
          disabled={mode.isPending}
          onChange={(event) => {
            const next = event.target.value as 0 | 1;
            if (next === 1) setAskPassword(true);
            else void setMode(0);
          }}
          data-testid="auth-check-type"
        >
          <Radio value={0} data-testid="auth-check-type-0">
            {t("authority.modeApproval")}
          </Radio>
          <Radio value={1} data-testid="auth-check-type-1">
            {t("authority.modePassword")}
          </Radio>
        </Radio.Group>
        <Typography.Paragraph type="secondary" className="kw-mt-sm kw-mb0">
          {machine.check_type === 1
            ? t("authority.modePasswordHint")
            : t("authority.modeApprovalHint")}
        </Typography.Paragraph>
      </Card>

      <Card size="small" title={t("authority.transferTitle")}>
        <Typography.Paragraph type="secondary">{t("authority.transferHint")}</Typography.Paragraph>
        <Form
          form={transferFormInstance}
          layout="inline"
          requiredMark={false}
          className="kw-inline-form"
          initialValues={{ countryCode: DEFAULT_COUNTRY_CODE }}
          onFinish={confirmTransfer}
        >
          {!isEmail && (
            <Form.Item name="countryCode">
              <CountryCodeSelect data-testid="auth-transfer-country" />
            </Form.Item>
          )}
          <Form.Item name="account" rules={[transferRule("account")]}>
            <Input
              placeholder={t("enterprise.accountPlaceholder")}
              className="kw-w-220"
              autoComplete="off"
              data-testid="auth-transfer-account"
            />
          </Form.Item>
          <Form.Item>
            <Button
              danger
              htmlType="submit"
              icon={<SwapOutlined />}
              loading={transfer.isPending}
              data-testid="auth-transfer-submit"
            >
              {t("authority.transfer")}
            </Button>
          </Form.Item>
        </Form>
      </Card>

      <PasswordModeModal
        open={askPassword}
        onClose={() => setAskPassword(false)}
        submitting={mode.isPending}
        onSubmit={(password) => setMode(1, password)}
      />
    </div>
  );
}

function PasswordModeModal(props: {
  open: boolean;
  onClose: () => void;
  submitting: boolean;
  /** Resolves true when switched; rejects with the wrong-password error. */
  onSubmit: (password: string) => Promise<boolean>;
}) {
  const { t } = useLang();
  const [form] = Form.useForm<{ password: string }>();
  return (
    <FormModal
      title={t("authority.modePasswordTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={props.submitting}
      submitTestId="auth-mode-submit"
      submitText={t("common.confirm")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        onFinish={async (values) => {
          try {
            if (await props.onSubmit(values.password)) props.onClose();
          } catch (error) {
            form.setFields([{ name: "password", errors: [(error as Error).message] }]);
          }
        }}
      >
        <Typography.Paragraph type="secondary">
          {t("authority.modePasswordHint")}
        </Typography.Paragraph>
        <Form.Item name="password" label={t("device.password")} rules={[passwordRule]}>
          <Input.Password
            autoFocus
            autoComplete="new-password"
            placeholder={t("device.passwordPlaceholder")}
            data-testid="auth-mode-password"
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
