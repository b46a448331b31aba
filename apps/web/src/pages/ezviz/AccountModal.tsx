import { CheckCircleOutlined, SafetyCertificateOutlined } from "@ant-design/icons";
import {
  CAMERA_ACCOUNT,
  type CameraAccountView,
  cameraAccountAddBody,
  cameraAccountEditForm,
  cameraAppKeyCheckBody,
  HW,
  LIMITS,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Button, Form, Input, Switch } from "antd";
import { useState } from "react";
import { cameraKeys, camerasApi } from "../../api/cameras.ts";
import { ApiError } from "../../api/errors.ts";
import { showError } from "../../api/queryClient.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

/** Refusals that belong to one field: shown on it instead of a toast. */
const FIELD_CODES: Record<string, "appKey" | "secret"> = {
  [String(HW.EZVIZ_APPKEY_NOT_FOUND.code)]: "appKey",
  [String(HW.EZVIZ_APPKEY_FROZEN.code)]: "appKey",
  [String(HW.CAMERA_ACCOUNT_EXISTS.code)]: "appKey",
  [String(HW.EZVIZ_SECRET_MISMATCH.code)]: "secret",
};

type CheckState = { kind: "ok"; cameras: number } | { kind: "failed"; message: string } | null;

/**
 * Add or edit a camera account. "Check" asks EZVIZ about the typed AppKey and Secret before
 * saving (saving checks again on the server). When editing, the Secret field starts empty:
 * the stored Secret never reaches the browser, and a blank field keeps it.
 */
export function AccountModal({
  open,
  account,
  onClose,
}: {
  open: boolean;
  /** null: a new account. */
  account: CameraAccountView | null;
  onClose: () => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const editing = account !== null;
  const schema = editing ? cameraAccountEditForm : cameraAccountAddBody;
  const rule = useZodRule(schema);
  const [checked, setChecked] = useState<CheckState>(null);
  const save = useMutation({
    mutationFn: async (values: unknown) => {
      if (account) {
        const body = parseForm(cameraAccountEditForm, values);
        return camerasApi.update({ ...body, id: account.id });
      }
      return camerasApi.add(parseForm(cameraAccountAddBody, values));
    },
    meta: { silent: true },
  });
  const check = useMutation({ mutationFn: camerasApi.checkAppKey, meta: { silent: true } });

  /** Puts a field's refusal on the field; anything else is a toast. */
  function place(error: unknown): string | null {
    const field = error instanceof ApiError ? FIELD_CODES[String(error.hwcode)] : undefined;
    if (field && error instanceof Error) {
      form.setFields([{ name: field, errors: [error.message] }]);
      return error.message;
    }
    return null;
  }

  async function runCheck() {
    setChecked(null);
    try {
      await form.validateFields(["appKey", "secret"]);
    } catch {
      return;
    }
    const values = form.getFieldsValue(["appKey", "secret"]);
    const body = cameraAppKeyCheckBody.safeParse(values);
    if (!body.success) {
      // Editing with a blank Secret: the stored one never reaches the browser to be checked.
      form.setFields([{ name: "secret", errors: [t("ezviz.checkNeedsSecret")] }]);
      return;
    }
    try {
      const result = await check.mutateAsync(body.data);
      setChecked({ kind: "ok", cameras: result.camera_count });
    } catch (error) {
      // A refusal of one field shows on it; anything else (EZVIZ unreachable) below the button.
      if (
        !place(error) &&
        error instanceof Error &&
        !(error instanceof ApiError && error.kind === "session")
      )
        setChecked({ kind: "failed", message: error.message });
    }
  }

  const initialValues = account
    ? {
        name: account.name,
        appKey: account.app_key,
        secret: "",
        remark: account.remark,
        isDefault: account.is_default === 1,
      }
    : { name: "", appKey: "", secret: "", remark: "", isDefault: false };

  return (
    <FormModal
      title={editing ? t("ezviz.editTitle") : t("ezviz.addTitle")}
      open={open}
      onClose={onClose}
      form={form}
      submitting={save.isPending}
      submitTestId="ezviz-account-submit"
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={initialValues}
        preserve={false}
        onValuesChange={(changed) => {
          if ("appKey" in changed || "secret" in changed) setChecked(null);
        }}
        onFinish={async (values) => {
          try {
            await save.mutateAsync(values);
          } catch (error) {
            if (!place(error)) showError(error);
            return;
          }
          message.success(editing ? t("ezviz.saved") : t("ezviz.added"));
          await queryClient.invalidateQueries({ queryKey: cameraKeys.all });
          onClose();
        }}
        data-testid="ezviz-account-form"
      >
        <Form.Item name="name" label={t("ezviz.name")} rules={[rule("name")]}>
          <Input
            maxLength={CAMERA_ACCOUNT.nameMax}
            placeholder={t("ezviz.namePlaceholder")}
            data-testid="ezviz-name"
          />
        </Form.Item>
        <Form.Item
          name="appKey"
          label="AppKey"
          rules={[rule("appKey")]}
          extra={t("ezviz.appKeyHint")}
        >
          <Input
            maxLength={CAMERA_ACCOUNT.appKeyMax}
            autoComplete="off"
            spellCheck={false}
            data-testid="ezviz-appkey"
          />
        </Form.Item>
        <Form.Item
          name="secret"
          label="Secret"
          // Editing: blank keeps the stored Secret, so only the add form requires it.
          rules={[rule("secret")]}
          extra={editing ? t("ezviz.secretKeep", { masked: account?.secret ?? "" }) : undefined}
        >
          <Input.Password
            maxLength={CAMERA_ACCOUNT.secretMax}
            autoComplete="new-password"
            placeholder={editing ? t("ezviz.secretKeepPlaceholder") : undefined}
            data-testid="ezviz-secret"
          />
        </Form.Item>
        <Form.Item>
          <Button
            icon={<SafetyCertificateOutlined />}
            loading={check.isPending}
            onClick={() => void runCheck()}
            data-testid="ezviz-check"
          >
            {t("ezviz.check")}
          </Button>
          {checked?.kind === "ok" && (
            <Alert
              className="kw-mt-sm"
              type="success"
              showIcon
              icon={<CheckCircleOutlined />}
              title={t("ezviz.checkOk", { count: checked.cameras })}
              data-testid="ezviz-check-ok"
            />
          )}
          {checked?.kind === "failed" && (
            <Alert
              className="kw-mt-sm"
              type="error"
              showIcon
              title={checked.message}
              data-testid="ezviz-check-failed"
            />
          )}
        </Form.Item>
        <Form.Item name="remark" label={t("ezviz.remark")} rules={[rule("remark")]}>
          <Input.TextArea
            maxLength={LIMITS.remark.max}
            showCount
            autoSize={{ minRows: 2, maxRows: 4 }}
            data-testid="ezviz-remark"
          />
        </Form.Item>
        <Form.Item
          name="isDefault"
          label={t("ezviz.default")}
          valuePropName="checked"
          extra={t("ezviz.defaultHint")}
        >
          <Switch data-testid="ezviz-default" />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
