import { KeyOutlined, SaveOutlined } from "@ant-design/icons";
import { projectEditBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Button, Divider, Flex, Form, Popconfirm, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectView, projectsApi } from "../../api/projects.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { KeyModal } from "./KeyModal.tsx";
import { ProjectFields } from "./ProjectFields.tsx";
import { isOwner } from "./parts.tsx";

const editForm = projectEditBody.omit({ id: true }).required();

const testId = (id: string) => ({ "data-testid": id }) as object;

/** Name, description and report settings: a form for the owner, read-only for others; the key. */
export function SettingsTab({ project }: { project: ProjectView }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const owner = isOwner(project.limit_authority);
  const [form] = Form.useForm();
  const rule = useZodRule(editForm);
  const [newKey, setNewKey] = useState<string | null>(null);
  const save = useMutation({ mutationFn: projectsApi.edit });
  const reset = useMutation({ mutationFn: projectsApi.resetKey });

  return (
    <div data-testid="project-settings">
      {!owner && <Alert type="info" showIcon title={t("project.readOnly")} className="kw-mb" />}
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        disabled={!owner}
        initialValues={{
          name: project.name,
          description: project.description,
          server: project.server,
          report_state: project.report_state === 1,
          interval: project.interval,
          enable_get_visit_url: project.enable_get_visit_url === 1,
        }}
        onFinish={async (values) => {
          const body = parseForm(editForm, values);
          try {
            await save.mutateAsync({ id: project.id, ...body });
          } catch {
            return;
          }
          message.success(t("project.settingsSaved"));
          await queryClient.invalidateQueries({ queryKey: queryKeys.projectsAll });
        }}
      >
        <ProjectFields rule={rule} prefix="project-settings" disabled={!owner} />
        {owner && (
          <Button
            type="primary"
            htmlType="submit"
            icon={<SaveOutlined />}
            loading={save.isPending}
            data-testid="project-settings-submit"
          >
            {t("common.save")}
          </Button>
        )}
      </Form>
      <Divider />
      <Flex align="center" gap={12} wrap>
        <KeyOutlined />
        <Typography.Text strong>{t("project.secretKey")}</Typography.Text>
        <Typography.Text code data-testid="project-key-masked">
          {project.secret_key}
        </Typography.Text>
        <span className="kw-grow" />
        {owner && (
          <Popconfirm
            title={t("project.resetKeyConfirm")}
            description={<span className="kw-popconfirm-text">{t("project.resetKeyHint")}</span>}
            okText={t("project.resetKey")}
            cancelText={t("common.cancel")}
            okButtonProps={{ danger: true, ...testId("project-key-reset-confirm") }}
            onConfirm={async () => {
              let key: string;
              try {
                key = (await reset.mutateAsync(project.id)).secret_key;
              } catch {
                return;
              }
              message.success(t("project.keyReset"));
              setNewKey(key);
            }}
          >
            <Button danger loading={reset.isPending} data-testid="project-key-reset">
              {t("project.resetKey")}
            </Button>
          </Popconfirm>
        )}
      </Flex>
      <Typography.Paragraph type="secondary" className="kw-mt-sm">
        {t("project.keyHint")}
      </Typography.Paragraph>
      <KeyModal secretKey={newKey} onClose={() => setNewKey(null)} />
    </div>
  );
}
