import {
  CameraOutlined,
  DeleteOutlined,
  EditOutlined,
  PlusOutlined,
  ReloadOutlined,
} from "@ant-design/icons";
import { CAMERA_ACCOUNT_STATE, type CameraAccountView, hwKeyOf, hwMessage } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Card,
  Flex,
  Result,
  Space,
  Table,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { cameraKeys, camerasApi } from "../../api/cameras.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { PERSONAL_DEVICES_ROUTE } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { AccountModal } from "./AccountModal.tsx";

/** /ezviz: the personal context's camera cloud accounts (SPEC §2, §3 "Camera account"). */
export function EzvizPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const context = useAppStore(selectCurrentContext);
  if (context.eid !== 0) {
    // Camera accounts are personal (the side navigation offers them in the personal context).
    return (
      <div className="kw-page">
        <Result
          status="info"
          icon={<CameraOutlined />}
          title={t("ezviz.personalOnly")}
          extra={
            <Button type="primary" onClick={() => navigate(PERSONAL_DEVICES_ROUTE)}>
              {t("nav.deviceList")}
            </Button>
          }
          data-testid="ezviz-personal-only"
        />
      </div>
    );
  }
  return <Accounts />;
}

function Accounts() {
  const { t, lang } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  /** undefined: closed; null: a new account. */
  const [editing, setEditing] = useState<CameraAccountView | null | undefined>(undefined);
  const accounts = useQuery({
    queryKey: cameraKeys.list,
    queryFn: camerasApi.list,
    meta: { silent: true },
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: cameraKeys.all });
  const recheck = useMutation({
    mutationFn: camerasApi.checkAccount,
    onSuccess: (account) =>
      message.success(t("ezviz.recheckOk", { count: account.camera_count ?? 0 })),
    // A refusal also changed the stored state: show it in the list.
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: camerasApi.remove });

  const stateTag = (a: CameraAccountView) => {
    if (a.state === CAMERA_ACCOUNT_STATE.valid)
      return <Tag color="success">{t("ezviz.stateValid")}</Tag>;
    if (a.state === CAMERA_ACCOUNT_STATE.invalid) {
      const key = hwKeyOf(a.check_code);
      return (
        <Tooltip title={key ? hwMessage(key, lang) : a.check_code}>
          <Tag color="error">{t("ezviz.stateInvalid")}</Tag>
        </Tooltip>
      );
    }
    return <Tag>{t("ezviz.stateUnchecked")}</Tag>;
  };

  const columns: TableProps<CameraAccountView>["columns"] = [
    {
      title: t("ezviz.name"),
      dataIndex: "name",
      width: 230,
      render: (v: string, a) => (
        <Space size={6}>
          <Typography.Text strong>{v}</Typography.Text>
          {a.is_default === 1 && (
            <Tag color="blue" data-testid={`ezviz-default-${a.id}`}>
              {t("ezviz.default")}
            </Tag>
          )}
        </Space>
      ),
    },
    {
      title: "AppKey / Secret",
      key: "credentials",
      width: 300,
      render: (_: unknown, a) => (
        <Flex vertical gap={2} align="start">
          <Typography.Text code copyable={{ text: a.app_key }} className="kw-nowrap">
            {a.app_key}
          </Typography.Text>
          <Typography.Text type="secondary" className="kw-nowrap" data-testid="ezviz-secret-cell">
            {a.secret}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: t("ezviz.state"),
      key: "state",
      width: 190,
      render: (_: unknown, a) => (
        <Flex vertical gap={2}>
          <span>
            {stateTag(a)}
            {a.camera_count !== null && (
              <Typography.Text type="secondary">
                {t("ezviz.cameras", { count: a.camera_count })}
              </Typography.Text>
            )}
          </span>
          {a.checked_at && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t("ezviz.checkedAt", { time: formatDateTime(a.checked_at) })}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      title: t("ezviz.machines"),
      dataIndex: "machine_count",
      width: 80,
      align: "right",
    },
    {
      title: t("ezviz.remark"),
      dataIndex: "remark",
      width: 160,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("common.action"),
      key: "action",
      width: 250,
      fixed: "right",
      render: (_: unknown, a) => (
        <Space size={0} wrap={false}>
          <Tooltip title={t("ezviz.recheckHint", { left: a.checks_left })}>
            <Button
              type="link"
              size="small"
              icon={<ReloadOutlined />}
              disabled={a.checks_left === 0}
              loading={recheck.isPending && recheck.variables === a.id}
              onClick={() => recheck.mutate(a.id)}
              data-testid={`ezviz-recheck-${a.id}`}
            >
              {t("ezviz.recheck")}
            </Button>
          </Tooltip>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            onClick={() => setEditing(a)}
            data-testid={`ezviz-edit-${a.id}`}
          >
            {t("common.edit")}
          </Button>
          <ConfirmActionLink
            title={t("ezviz.deleteTitle", { name: a.name })}
            description={
              a.machine_count > 0
                ? t("ezviz.deleteBound", { count: a.machine_count })
                : t("ezviz.deleteConfirm")
            }
            okText={t("common.delete")}
            label={t("common.delete")}
            icon={<DeleteOutlined />}
            loading={remove.isPending && remove.variables === a.id}
            testId={`ezviz-delete-${a.id}`}
            confirmTestId="ezviz-delete-confirm"
            action={() => remove.mutateAsync(a.id)}
            successText={t("ezviz.deleted")}
            onDone={refresh}
          />
        </Space>
      ),
    },
  ];

  const list = accounts.data?.list ?? [];
  return (
    <div className="kw-page" data-testid="ezviz-page">
      <Card
        title={
          <Space>
            <CameraOutlined />
            {t("nav.ezviz")}
            {accounts.data && (
              <Typography.Text type="secondary">
                {t("ezviz.total", { count: accounts.data.total })}
              </Typography.Text>
            )}
          </Space>
        }
        extra={
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setEditing(null)}
            data-testid="ezviz-add"
          >
            {t("ezviz.add")}
          </Button>
        }
      >
        <Typography.Paragraph type="secondary">{t("ezviz.intro")}</Typography.Paragraph>
        <Table<CameraAccountView>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={list}
          loading={accounts.isFetching}
          pagination={false}
          scroll={{ x: 1210 }}
          locale={{
            emptyText: accounts.isPending ? (
              " "
            ) : (
              <ListEmpty
                error={accounts.isError ? accounts.error.message : null}
                onRetry={() => accounts.refetch()}
                description={
                  <Flex vertical gap={4} align="center">
                    <span>{t("ezviz.empty")}</span>
                    <Button size="small" type="link" onClick={() => setEditing(null)}>
                      {t("ezviz.add")}
                    </Button>
                  </Flex>
                }
              />
            ),
          }}
          data-testid="ezviz-table"
        />
      </Card>
      <AccountModal
        // A fresh form per account (initial values are read once).
        key={editing === undefined ? "closed" : (editing?.id ?? "new")}
        open={editing !== undefined}
        account={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
    </div>
  );
}
