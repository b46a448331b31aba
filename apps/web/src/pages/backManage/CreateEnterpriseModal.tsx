import { enterpriseCreateBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Input, Switch } from "antd";
import type { EnterpriseSummary } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

/** POST /operator/v1/enterprises. */
export function CreateEnterpriseModal(props: {
  open: boolean;
  onClose: () => void;
  onCreated?: (enterprise: EnterpriseSummary) => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(enterpriseCreateBody);
  const create = useMutation({ mutationFn: operatorApi.createEnterprise });

  return (
    <FormModal
      title={t("bo.createEnterprise")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={create.isPending}
      submitTestId="bo-enterprise-submit"
      submitText={t("bo.create")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ enableProject: false }}
        onFinish={async (values) => {
          const body = parseForm(enterpriseCreateBody, values);
          let created: EnterpriseSummary;
          try {
            created = await create.mutateAsync(body);
          } catch {
            return;
          }
          message.success(t("bo.enterpriseCreated", { name: body.name }));
          await Promise.all([
            queryClient.invalidateQueries({ queryKey: queryKeys.operatorEnterprisesAll }),
            queryClient.invalidateQueries({ queryKey: queryKeys.userEnterprises }),
          ]);
          props.onClose();
          props.onCreated?.(created);
        }}
      >
        <Form.Item name="name" label={t("bo.enterpriseName")} rules={[rule("name")]}>
          <Input
            data-testid="bo-enterprise-name"
            placeholder={t("bo.enterpriseNamePlaceholder")}
            autoFocus
          />
        </Form.Item>
        <Form.Item
          name="platformName"
          label={t("bo.platformName")}
          rules={[rule("platformName")]}
          extra={t("bo.platformNameHint")}
        >
          <Input data-testid="bo-enterprise-platform" />
        </Form.Item>
        <Form.Item name="applyLogoUrl" label={t("bo.logoUrl")} rules={[rule("applyLogoUrl")]}>
          <Input data-testid="bo-enterprise-logo" placeholder="https://…" />
        </Form.Item>
        <Form.Item
          name="enableProject"
          label={t("bo.enableProject")}
          valuePropName="checked"
          rules={[rule("enableProject")]}
        >
          <Switch data-testid="bo-enterprise-project" />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
