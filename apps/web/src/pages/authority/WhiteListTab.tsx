import { LEVEL, PAGE_SIZE, type WhiteListEntry } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Space, Table, type TableProps } from "antd";
import { useState } from "react";
import { authorityApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { accountOf, ConfirmLink, personColumns, terminalColumn, VisitTimeCell } from "./parts.tsx";

/**
 * The white list: every visit grant of the device, newest first, 6 a page (POST
 * /device/v1/admin/visit/detail/page). A visitor can be made a Bkey, black-listed, or the
 * grant deleted.
 */
export function WhiteListTab({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: queryKeys.whiteList(machineId, page),
    queryFn: () => authorityApi.whiteList(machineId, page),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(machineId) });
  const upgrade = useMutation({
    mutationFn: (entry: WhiteListEntry) =>
      authorityApi.updateLevel({ id: entry.visitTimeId, machineID: machineId, limit: LEVEL.bkey }),
    onSuccess: async () => {
      message.success(t("authority.upgraded"));
      await refresh();
    },
  });
  const block = useMutation({
    mutationFn: (userId: number) => authorityApi.blackListAdd({ machineID: machineId, userId }),
  });
  const remove = useMutation({
    mutationFn: (visitTimeId: number) =>
      authorityApi.deleteVisitTime({ visitTimeId, machineID: machineId }),
  });

  const columns: TableProps<WhiteListEntry>["columns"] = [
    ...personColumns<WhiteListEntry>(t, 100),
    terminalColumn(t),
    {
      title: t("authority.visitTime"),
      dataIndex: "visitTime",
      width: 110,
      render: (minutes: number) => <VisitTimeCell minutes={minutes} />,
    },
    {
      title: t("authority.grantedAt"),
      dataIndex: "created_at",
      width: 160,
      render: (v: string) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
    },
    {
      title: t("common.action"),
      key: "action",
      fixed: "right",
      width: 250,
      render: (_: unknown, e) => (
        <Space size={0} wrap>
          <ConfirmLink
            title={t("authority.upgradeConfirm", { name: e.name || accountOf(e) })}
            okText={t("authority.upgrade")}
            label={t("authority.upgrade")}
            testId={`auth-white-upgrade-${e.visitTimeId}`}
            confirmTestId="auth-level-confirm"
            onConfirm={() => upgrade.mutate(e)}
          />
          <ConfirmActionLink
            title={t("authority.blockConfirm", { name: e.name || accountOf(e) })}
            description={<span className="kw-popconfirm-text">{t("authority.blockHint")}</span>}
            okText={t("authority.block")}
            label={t("authority.block")}
            testId={`auth-white-block-${e.visitTimeId}`}
            confirmTestId="auth-block-confirm"
            action={() => block.mutateAsync(e.user_id)}
            successText={t("authority.blocked")}
            onDone={refresh}
          />
          <ConfirmActionLink
            title={t("authority.deleteGrantConfirm", { name: e.name || accountOf(e) })}
            okText={t("common.delete")}
            label={t("common.delete")}
            testId={`auth-white-delete-${e.visitTimeId}`}
            confirmTestId="auth-white-delete-confirm"
            action={() => remove.mutateAsync(e.visitTimeId)}
            successText={t("authority.grantDeleted")}
            onDone={refresh}
          />
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="auth-white">
      <Table<WhiteListEntry>
        rowKey="visitTimeId"
        size="small"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isFetching}
        scroll={{ x: 860 }}
        onRow={(e) =>
          ({
            "data-testid": `auth-white-row-${e.visitTimeId}`,
            "data-user": e.user_id,
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: PAGE_SIZE.whiteList,
          total: list.data?.total ?? 0,
          size: "small",
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("authority.totalGrants", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: (
            <ListEmpty
              error={list.isError ? list.error.message : null}
              onRetry={() => list.refetch()}
              description={t("authority.noWhite")}
            />
          ),
        }}
      />
    </div>
  );
}
