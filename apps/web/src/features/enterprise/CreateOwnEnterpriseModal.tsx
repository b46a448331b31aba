import { FolderAddOutlined, PlusOutlined, ShopOutlined, TeamOutlined } from "@ant-design/icons";
import { HW, userEnterpriseCreateBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Flex, Form, Input, Modal, Result, Switch, Typography } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { type EnterpriseSummary, enterprisesApi } from "../../api/enterprises.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { PATHS } from "../../paths.ts";
import { type EnterpriseInfo, useAppStore } from "../../store/app.ts";
import { useEnterpriseCreation } from "./enterpriseCreation.ts";

/**
 * The dialog in which a user creates an enterprise of their own. On success the enterprise
 * list is refreshed and the new enterprise becomes the current context (no choosing), and the
 * dialog offers the next steps: invite members, create a project, see the devices.
 */
export function CreateOwnEnterpriseModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated?: (enterprise: EnterpriseInfo) => void;
}) {
  const { t } = useLang();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const setEnterprises = useAppStore((s) => s.setEnterprises);
  const selectContext = useAppStore((s) => s.selectContext);
  const [form] = Form.useForm();
  const rule = useZodRule(userEnterpriseCreateBody);
  const { query: creation } = useEnterpriseCreation();
  const create = useMutation({ mutationFn: enterprisesApi.createOwn, meta: { silent: true } });
  const [created, setCreated] = useState<EnterpriseSummary | null>(null);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setCreated(null);
    setError(null);
    onClose();
  };
  const go = (path: string) => {
    close();
    navigate(path);
  };

  const submit = async (values: unknown) => {
    setError(null);
    const body = parseForm(userEnterpriseCreateBody, values);
    let made: EnterpriseSummary;
    try {
      made = await create.mutateAsync(body);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ApiError && e.is(HW.ENTERPRISE_NAME_TAKEN.code)) {
        form.setFields([{ name: "name", errors: [message] }]);
      } else {
        setError(message);
      }
      return;
    }
    // The switch and the pages find the enterprise in the stored list: refresh it first.
    const mine = await queryClient
      .fetchQuery({
        queryKey: queryKeys.userEnterprises,
        queryFn: enterprisesApi.userEnterpriseList,
        staleTime: 0,
      })
      .catch(() => null);
    const list = mine?.list ?? [...useAppStore.getState().enterprisesList, made];
    setEnterprises(list);
    const entry = list.find((e) => e.eid === made.eid) ?? made;
    selectContext(entry);
    void queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseCreation });
    setCreated(made);
    onCreated?.(entry);
  };

  const quota = creation.data;
  return (
    <Modal
      open={open}
      onCancel={close}
      destroyOnHidden
      width={520}
      mask={{ closable: !create.isPending }}
      title={created ? null : t("entCreate.title")}
      footer={
        created
          ? null
          : [
              <Button key="cancel" onClick={close} disabled={create.isPending}>
                {t("common.cancel")}
              </Button>,
              <Button
                key="submit"
                type="primary"
                icon={<PlusOutlined />}
                loading={create.isPending}
                onClick={() => form.submit()}
                data-testid="ent-create-submit"
              >
                {t("entCreate.submit")}
              </Button>,
            ]
      }
    >
      {created ? (
        <Result
          status="success"
          title={
            <span data-testid="ent-created">
              {t("entCreate.createdTitle", { name: created.name })}
            </span>
          }
          subTitle={t("entCreate.createdHint")}
          extra={
            <Flex wrap gap={8} justify="center">
              <Button
                key="invite"
                type="primary"
                icon={<TeamOutlined />}
                onClick={() => go(`${PATHS.administrateCenter}?eid=${created.eid}`)}
                data-testid="ent-created-invite"
              >
                {t("entCreate.inviteMembers")}
              </Button>
              {created.enableProject === 1 ? (
                <Button
                  key="project"
                  icon={<FolderAddOutlined />}
                  onClick={() => go(`${PATHS.project}?type=1`)}
                  data-testid="ent-created-project"
                >
                  {t("entCreate.createProject")}
                </Button>
              ) : null}
              <Button
                key="devices"
                icon={<ShopOutlined />}
                onClick={() => go(`${PATHS.device}?type=1`)}
                data-testid="ent-created-devices"
              >
                {t("entCreate.openDevices")}
              </Button>
            </Flex>
          }
        />
      ) : (
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          preserve={false}
          initialValues={{ enableProject: true }}
          onFinish={submit}
          data-testid="ent-create-form"
        >
          <Typography.Paragraph type="secondary">{t("entCreate.intro")}</Typography.Paragraph>
          <Form.Item name="name" label={t("entCreate.name")} rules={[rule("name")]}>
            <Input
              data-testid="ent-create-name"
              placeholder={t("entCreate.namePlaceholder")}
              maxLength={60}
              autoFocus
            />
          </Form.Item>
          <Form.Item
            name="enableProject"
            label={t("entCreate.enableProject")}
            valuePropName="checked"
            extra={t("entCreate.enableProjectHint")}
          >
            <Switch data-testid="ent-create-project" />
          </Form.Item>
          {quota && (
            <Typography.Text type="secondary" data-testid="ent-create-quota">
              {t("entCreate.quota", { created: quota.created, limit: quota.limit })}
            </Typography.Text>
          )}
          {error && (
            <Alert
              className="kw-mt-sm"
              type="error"
              showIcon
              title={error}
              data-testid="ent-create-error"
            />
          )}
        </Form>
      )}
    </Modal>
  );
}
