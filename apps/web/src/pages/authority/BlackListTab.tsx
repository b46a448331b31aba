import type { BlackListEntry } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Table, type TableProps } from "antd";
import { authorityApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { accountOf, personColumns } from "./parts.tsx";

/** The black list (POST /admin/select infoType -1): who may not apply; remove to let them. */
export function BlackListTab({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: queryKeys.authority(machineId, "black"),
    queryFn: () => authorityApi.blackList(machineId),
    meta: { silent: true },
  });
  const remove = useMutation({
    mutationFn: (userId: number) => authorityApi.blackListRemove({ machineID: machineId, userId }),
  });

  const columns: TableProps<BlackListEntry>["columns"] = [
    ...personColumns<BlackListEntry>(t),
    {
      title: t("authority.blockedAt"),
      dataIndex: "created_at",
      width: 170,
      render: (v: string) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 110,
      render: (_: unknown, e) => (
        <ConfirmActionLink
          title={t("authority.unblockConfirm", { name: e.name || accountOf(e) })}
          okText={t("authority.unblock")}
          label={t("authority.unblock")}
          testId={`auth-unblock-${e.user_id}`}
          confirmTestId="auth-unblock-confirm"
          action={() => remove.mutateAsync(e.user_id)}
          successText={t("authority.unblocked")}
          onDone={() =>
            queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(machineId) })
          }
        />
      ),
    },
  ];

  return (
    <div data-testid="auth-black">
      <Table<BlackListEntry>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isFetching}
        pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
        onRow={(e) =>
          ({ "data-testid": `auth-black-row-${e.user_id}` }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={list.isError ? list.error.message : null}
              onRetry={() => list.refetch()}
              description={t("authority.noBlack")}
            />
          ),
        }}
      />
    </div>
  );
}
