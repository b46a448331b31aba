import {
  AndroidOutlined,
  AppleOutlined,
  DesktopOutlined,
  GlobalOutlined,
  QuestionCircleOutlined,
} from "@ant-design/icons";
import { PAGE_SIZE, type TerminalEntry } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Empty, Popconfirm, Space, Table, type TableProps, Tag } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { safetyApi } from "../../api/safety.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { signOutLocally } from "../../lib/session.ts";
import { USER_STATE, useAppStore } from "../../store/app.ts";

const TYPE_ICONS: Record<string, React.ReactNode> = {
  web: <GlobalOutlined />,
  android: <AndroidOutlined />,
  ios: <AppleOutlined />,
  tv: <DesktopOutlined />,
  pc: <DesktopOutlined />,
};
const KNOWN_TYPES = ["web", "mobile", "android", "ios", "tv", "pc"] as const;
type KnownType = (typeof KNOWN_TYPES)[number];

/** Logged-in terminals: 15 a page, server-side pagination, delete with confirmation. */
export function TerminalTable() {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);

  const terminals = useQuery({
    queryKey: queryKeys.terminals(page),
    queryFn: () => safetyApi.terminals(page),
    placeholderData: keepPreviousData,
  });

  const remove = useMutation({
    mutationFn: (entry: TerminalEntry) => safetyApi.removeTerminal(entry.id),
    onSuccess: async (_data, entry) => {
      useAppStore.getState().setUserState(USER_STATE.terminalRemoved);
      if (entry.current) {
        // Deleting this browser's own terminal is a logout.
        signOutLocally("/login");
        return;
      }
      message.success(t("safety.terminalRemoved"));
      const remaining = (terminals.data?.list.length ?? 1) - 1;
      if (remaining === 0 && page > 1) setPage(page - 1);
      await queryClient.invalidateQueries({ queryKey: queryKeys.terminalsAll });
    },
  });

  const typeLabel = (type: string) => {
    const key = type.toLowerCase();
    return (KNOWN_TYPES as readonly string[]).includes(key)
      ? t(`safety.terminalTypes.${key as KnownType}`)
      : type || t("safety.terminalTypes.other");
  };

  const columns: TableProps<TerminalEntry>["columns"] = [
    {
      title: t("safety.colType"),
      dataIndex: "type",
      width: 130,
      render: (type: string) => (
        <Space size={6}>
          {TYPE_ICONS[type.toLowerCase()] ?? <QuestionCircleOutlined />}
          {typeLabel(type)}
        </Space>
      ),
    },
    {
      title: t("safety.colName"),
      dataIndex: "name",
      ellipsis: true,
      render: (name: string, entry) => (
        <Space size={8}>
          <span>{name || "-"}</span>
          {entry.current && (
            <Tag color="green" data-testid="terminal-current">
              {t("safety.thisDevice")}
            </Tag>
          )}
        </Space>
      ),
    },
    {
      title: t("safety.colLoginTime"),
      dataIndex: "loginTime",
      width: 190,
      render: (value: string) => formatDateTime(value),
    },
    {
      title: t("safety.colExpiry"),
      dataIndex: "expiredTime",
      width: 190,
      render: (value: string) => formatDateTime(value),
    },
    {
      title: t("safety.colAction"),
      key: "action",
      width: 110,
      align: "center",
      render: (_: unknown, entry) => (
        <Popconfirm
          title={entry.current ? t("safety.removeCurrentConfirm") : t("safety.removeConfirm")}
          okText={t("common.confirm")}
          cancelText={t("common.cancel")}
          okButtonProps={{ danger: true }}
          onConfirm={() => remove.mutateAsync(entry).catch(() => undefined)}
        >
          <Button
            type="link"
            danger
            size="small"
            loading={remove.isPending && remove.variables?.id === entry.id}
            data-testid={`terminal-delete-${entry.id}`}
          >
            {t("safety.removeTerminal")}
          </Button>
        </Popconfirm>
      ),
    },
  ];

  return (
    <div data-testid="terminal-table">
      <Table<TerminalEntry>
        rowKey="id"
        size="middle"
        columns={columns}
        onRow={(entry) =>
          ({
            "data-testid": "terminal-row",
            "data-current": entry.current ? "true" : "false",
          }) as React.HTMLAttributes<HTMLElement>
        }
        dataSource={terminals.data?.list ?? []}
        loading={terminals.isFetching}
        scroll={{ x: 720 }}
        locale={{
          emptyText: terminals.isError ? (
            <Empty description={t("common.empty")}>
              <Button onClick={() => terminals.refetch()}>{t("common.retry")}</Button>
            </Empty>
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("safety.noTerminals")} />
          ),
        }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE.tokenList,
          total: terminals.data?.total ?? 0,
          showSizeChanger: false,
          hideOnSinglePage: false,
          showTotal: (total) => t("safety.totalTerminals", { total }),
          onChange: setPage,
        }}
      />
    </div>
  );
}
