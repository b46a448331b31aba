import { type AlarmEntry, PAGE_SIZE } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Card, Flex, Table, Typography } from "antd";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { AlarmStats } from "./AlarmStats.tsx";
import { AlarmToolbar } from "./AlarmToolbar.tsx";
import { useAlarmColumns } from "./alarmColumns.tsx";
import { useAlarmFilters } from "./useAlarmFilters.ts";
import { useContextDevices } from "./useContextDevices.ts";

/** Lists and statistics are read again now and then: a device may clear an alarm. */
const REFRESH_MS = 30_000;

/**
 * /alarmCenter (SPEC §2 alarm center, both contexts): the alarms of every device the user
 * sees in the current context, filtered by device, level, time and state, 6 a page; confirm
 * one (asked first); with a device chosen, confirm all (the Akey or a maintainer) and reset;
 * statistics drawn with echarts (by level, by device, by day) from alarmKanban over the same
 * filters (default the last 7 days). New alarms arrive by push (the layout refreshes these).
 */
export function AlarmCenterPage() {
  const { t } = useLang();
  const context = useAppStore(selectCurrentContext);
  const eid = context.eid;
  const filter = useAlarmFilters(eid);
  const { filters, filtered, page, setPage } = filter;

  const devices = useContextDevices(context);
  const alarms = useQuery({
    queryKey: queryKeys.alarmList(filters, page),
    queryFn: () => alarmsApi.list(filters, page),
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });
  const kanban = useQuery({
    queryKey: queryKeys.alarmKanban(filters),
    queryFn: () => alarmsApi.kanban(filters),
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });
  const rights = alarms.data?.rights;
  const total = alarms.data?.total ?? 0;

  const columns = useAlarmColumns(eid);

  return (
    <div className="kw-page kw-page-wide" data-testid="alarm-center-page">
      <Flex align="baseline" gap={12} wrap className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          {t("alarms.title")}
        </Typography.Title>
        <Typography.Text type="secondary" data-testid="alarm-context">
          {eid === 0 ? t("alarms.contextPersonal") : context.name}
        </Typography.Text>
      </Flex>

      <AlarmToolbar
        filter={filter}
        devices={devices}
        eid={eid}
        machineId={alarms.data?.machine_id}
        rights={rights}
        total={total}
        refreshing={alarms.isFetching || kanban.isFetching}
        onRefresh={() => {
          void alarms.refetch();
          void kanban.refetch();
        }}
      />

      <AlarmStats kanban={kanban.data} loading={kanban.isPending} />

      <Card className="kw-card" styles={{ body: { padding: "4px 16px 16px" } }}>
        <Flex align="baseline" gap={12} className="kw-card-head">
          <Typography.Text strong>{t("alarms.listTitle")}</Typography.Text>
          {alarms.data && (
            <Typography.Text type="secondary" data-testid="alarm-total" data-total={total}>
              {t("alarms.total", { total })}
            </Typography.Text>
          )}
        </Flex>
        <div data-testid="alarm-list">
          <Table<AlarmEntry>
            rowKey="id"
            size="middle"
            columns={columns}
            dataSource={alarms.data?.list ?? []}
            loading={alarms.isFetching && !alarms.isRefetching}
            scroll={{ x: 900 }}
            onRow={(a) =>
              ({ "data-testid": `alarm-row-${a.id}` }) as React.HTMLAttributes<HTMLElement>
            }
            pagination={{
              current: page,
              pageSize: PAGE_SIZE.alarms,
              total,
              showSizeChanger: false,
              hideOnSinglePage: true,
              showTotal: (n) => t("alarms.total", { total: n }),
              onChange: setPage,
            }}
            locale={{
              emptyText: (
                <div data-testid="alarm-empty">
                  <ListEmpty
                    error={alarms.isError ? alarms.error.message : null}
                    onRetry={() => alarms.refetch()}
                    description={filtered ? t("alarms.empty") : t("alarms.emptyAll")}
                  />
                </div>
              ),
            }}
          />
        </div>
      </Card>
    </div>
  );
}
