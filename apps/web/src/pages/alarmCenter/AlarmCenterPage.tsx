import { ReloadOutlined } from "@ant-design/icons";
import {
  ALARM_LEVEL_KEYS,
  ALARM_STATES,
  type AlarmEntry,
  type AlarmKanban,
  type AlarmLevelKey,
  type AlarmStateFilter,
  type Machine,
  PAGE_SIZE,
} from "@keyway/shared";
import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import {
  Button,
  Card,
  Col,
  DatePicker,
  Empty,
  Flex,
  Row,
  Select,
  Skeleton,
  Statistic,
  Table,
  type TableProps,
  Typography,
} from "antd";
import type { Dayjs } from "dayjs";
import { useMemo, useState } from "react";
import { type AlarmFilters, alarmsApi } from "../../api/alarms.ts";
import { devicesApi } from "../../api/devices.ts";
import { enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { EChart, type EChartOption } from "../../components/EChart.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime, formatInZone } from "../../lib/format.ts";
import { type EnterpriseInfo, selectCurrentContext, useAppStore } from "../../store/app.ts";
import { MachineCode } from "../devices/MachineParts.tsx";
import {
  AlarmContent,
  AlarmLevelTag,
  AlarmStateTags,
  ConfirmAlarmButton,
  ConfirmAllButton,
  LEVEL_CHART_COLORS,
  ResetAlarmsButton,
} from "./alarmParts.tsx";

/** Lists and statistics are read again now and then: a device may clear an alarm. */
const REFRESH_MS = 30_000;

type Range = [Dayjs | null, Dayjs | null] | null;

/** The device lists the viewer sees in the context (the filter's choices). */
function useContextDevices(context: EnterpriseInfo) {
  const eid = context.eid;
  const types: (1 | 2)[] =
    eid === 0
      ? []
      : context.isAdmin
        ? [1, 2]
        : (context.kinds ?? []).map((kind) => (kind === "maintenance" ? 2 : 1));
  const personal = useQuery({
    queryKey: queryKeys.devices({}),
    queryFn: () => devicesApi.select({}),
    enabled: eid === 0,
    meta: { silent: true },
  });
  const enterprise = useQueries({
    queries: types.map((type) => ({
      queryKey: queryKeys.enterpriseDevices({ eid, type }),
      queryFn: () => enterprisesApi.deviceList({ eid, type }),
      meta: { silent: true },
    })),
  });
  const lists: Machine[][] =
    eid === 0 ? [personal.data?.list ?? []] : enterprise.map((q) => q.data?.list ?? []);
  const seen = new Map<string, Machine>();
  for (const list of lists) for (const m of list) seen.set(m.machine_code, m);
  return [...seen.values()];
}

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
  const [deviceCode, setDeviceCode] = useState<string | undefined>();
  const [level, setLevel] = useState<AlarmLevelKey | undefined>();
  const [state, setState] = useState<AlarmStateFilter | undefined>();
  const [range, setRange] = useState<Range>(null);
  const [page, setPage] = useState(1);

  const filters: AlarmFilters = {
    eid,
    deviceCode,
    level,
    state,
    startTime: range?.[0]?.toISOString(),
    endTime: range?.[1]?.toISOString(),
  };
  const filtered = Boolean(deviceCode || level || state || range);
  const changeFilter =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setPage(1);
    };

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

  const columns: TableProps<AlarmEntry>["columns"] = [
    {
      title: t("alarms.time"),
      key: "time",
      width: 170,
      render: (_: unknown, a) => (
        <span className="kw-nowrap" title={a.time_zone}>
          {formatInZone(a.time, a.time_zone)}
        </span>
      ),
    },
    {
      title: t("alarms.device"),
      key: "device",
      width: 190,
      render: (_: unknown, a) => (
        <span className="kw-alarm-device">
          {a.machine_name !== a.machine_code && (
            <span className="kw-ellipsis">{a.machine_name}</span>
          )}
          <MachineCode code={a.machine_code} />
        </span>
      ),
    },
    {
      title: t("alarms.level"),
      dataIndex: "level",
      width: 90,
      render: (value: number) => <AlarmLevelTag level={value} />,
    },
    {
      title: t("alarms.content"),
      key: "content",
      render: (_: unknown, a) => <AlarmContent alarm={a} />,
    },
    {
      title: t("alarms.state"),
      key: "state",
      width: 170,
      render: (_: unknown, a) => <AlarmStateTags alarm={a} />,
    },
    {
      title: t("alarms.action"),
      key: "action",
      width: 100,
      fixed: "right",
      render: (_: unknown, a) => (a.confirmed ? null : <ConfirmAlarmButton alarm={a} eid={eid} />),
    },
  ];

  const deviceOptions = devices.map((m) => ({
    value: m.machine_code,
    label:
      m.machine_name && m.machine_name !== m.machine_code
        ? `${m.machine_name} (${m.machine_code})`
        : m.machine_code,
  }));

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

      <Card className="kw-card kw-mb" styles={{ body: { padding: 16 } }}>
        <Flex wrap gap={12} align="center" className="kw-alarm-toolbar">
          <Select
            className="kw-alarm-filter-device"
            allowClear
            showSearch={{ optionFilterProp: "label" }}
            placeholder={t("alarms.allDevices")}
            value={deviceCode}
            onChange={changeFilter(setDeviceCode)}
            options={deviceOptions}
            popupMatchSelectWidth={320}
            data-testid="alarm-filter-device"
          />
          <Select
            className="kw-alarm-filter"
            allowClear
            placeholder={t("alarms.allLevels")}
            value={level}
            onChange={changeFilter(setLevel)}
            options={ALARM_LEVEL_KEYS.map((key) => ({
              value: key,
              label: t(`device.alarm.levels.${key}`),
            }))}
            data-testid="alarm-filter-level"
          />
          <Select
            className="kw-alarm-filter"
            allowClear
            placeholder={t("alarms.allStates")}
            value={state}
            onChange={changeFilter(setState)}
            options={ALARM_STATES.map((key) => ({
              value: key,
              label: t(`alarms.states.${key}`),
            }))}
            data-testid="alarm-filter-state"
          />
          <DatePicker.RangePicker
            showTime={{ format: "HH:mm" }}
            format="YYYY-MM-DD HH:mm"
            value={range}
            onChange={changeFilter(setRange)}
            placeholder={[t("alarms.rangeStart"), t("alarms.rangeEnd")]}
            data-testid="alarm-filter-range"
          />
          <Button
            onClick={() => {
              setDeviceCode(undefined);
              setLevel(undefined);
              setState(undefined);
              setRange(null);
              setPage(1);
            }}
            disabled={!filtered}
            data-testid="alarm-filter-reset"
          >
            {t("alarms.reset")}
          </Button>
          <Button
            icon={<ReloadOutlined />}
            onClick={() => {
              void alarms.refetch();
              void kanban.refetch();
            }}
            loading={alarms.isFetching || kanban.isFetching}
            data-testid="alarm-refresh"
          >
            {t("alarms.refresh")}
          </Button>
          {deviceCode && alarms.data?.machine_id !== undefined && (
            <Flex gap={8} className="kw-alarm-device-actions">
              {rights?.confirmAll && (
                <ConfirmAllButton
                  machineId={alarms.data.machine_id}
                  deviceCode={deviceCode}
                  disabled={total === 0}
                />
              )}
              {rights?.reset && (
                <ResetAlarmsButton deviceCode={deviceCode} eid={eid} disabled={total === 0} />
              )}
            </Flex>
          )}
        </Flex>
      </Card>

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

/** The statistics card: three figures and the three charts of alarmKanban. */
function AlarmStats({ kanban, loading }: { kanban: AlarmKanban | undefined; loading: boolean }) {
  const { t } = useLang();
  const options = useMemo(() => (kanban ? chartOptions(kanban, t) : null), [kanban, t]);
  const today = kanban?.byDay.at(-1);
  return (
    <Card
      className="kw-card kw-mb"
      title={t("alarms.stats")}
      extra={
        kanban && (
          <Typography.Text type="secondary" className="kw-small" data-testid="alarm-stats-range">
            {t("alarms.statsRange", {
              start: formatDateTime(kanban.startTime),
              end: formatDateTime(kanban.endTime),
            })}
          </Typography.Text>
        )
      }
      data-testid="alarm-stats"
    >
      {loading || !kanban || !options ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : (
        <>
          <Row gutter={[16, 16]} className="kw-mb">
            <Col xs={8}>
              <Statistic
                title={t("alarms.statTotal")}
                value={kanban.total}
                {...({ "data-testid": "alarm-stat-total", "data-value": kanban.total } as object)}
              />
            </Col>
            <Col xs={8}>
              <Statistic
                title={t("alarms.statUnconfirmed")}
                value={kanban.unconfirmed}
                styles={{ content: { color: kanban.unconfirmed ? "#cf1322" : undefined } }}
                {...({
                  "data-testid": "alarm-stat-unconfirmed",
                  "data-value": kanban.unconfirmed,
                } as object)}
              />
            </Col>
            <Col xs={8}>
              <Statistic
                title={t("alarms.statCleared")}
                value={kanban.cleared}
                {...({
                  "data-testid": "alarm-stat-cleared",
                  "data-value": kanban.cleared,
                } as object)}
              />
            </Col>
          </Row>
          <Row gutter={[16, 16]}>
            <Col xs={24} lg={7}>
              <Typography.Text strong>{t("alarms.byLevel")}</Typography.Text>
              {kanban.total === 0 ? (
                <ChartEmpty />
              ) : (
                <EChart
                  option={options.byLevel}
                  data-testid="alarm-chart-level"
                  data-values={kanban.byLevel.map((l) => l.count).join(",")}
                />
              )}
            </Col>
            <Col xs={24} lg={8}>
              <Typography.Text strong>{t("alarms.byDevice")}</Typography.Text>
              {kanban.total === 0 ? (
                <ChartEmpty />
              ) : (
                <EChart
                  option={options.byDevice}
                  data-testid="alarm-chart-device"
                  data-values={kanban.byDevice.map((d) => `${d.machine_code}:${d.count}`).join(",")}
                />
              )}
            </Col>
            <Col xs={24} lg={9}>
              <Typography.Text strong>{t("alarms.byDay")}</Typography.Text>
              <EChart
                option={options.byDay}
                data-testid="alarm-chart-day"
                data-today={today?.count ?? 0}
                data-values={kanban.byDay.map((d) => d.count).join(",")}
              />
            </Col>
          </Row>
        </>
      )}
    </Card>
  );
}

function ChartEmpty() {
  const { t } = useLang();
  return (
    <Flex align="center" justify="center" className="kw-chart-empty">
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("alarms.chartEmpty")} />
    </Flex>
  );
}

function chartOptions(
  kanban: AlarmKanban,
  t: ReturnType<typeof useLang>["t"],
): { byLevel: EChartOption; byDevice: EChartOption; byDay: EChartOption } {
  const count = t("alarms.count");
  const devices = [...kanban.byDevice].reverse();
  return {
    byLevel: {
      tooltip: { trigger: "item" },
      legend: {
        bottom: 0,
        icon: "circle",
        itemWidth: 8,
        itemHeight: 8,
      },
      series: [
        {
          type: "pie",
          name: count,
          radius: ["42%", "70%"],
          center: ["50%", "44%"],
          label: { formatter: "{c}" },
          // Empty bands draw no slice (nor a "0" label).
          data: kanban.byLevel
            .filter((l) => l.count > 0)
            .map((l) => ({
              name: t(`device.alarm.levels.${l.level}`),
              value: l.count,
              itemStyle: { color: LEVEL_CHART_COLORS[l.level] },
            })),
        },
      ],
    },
    byDevice: {
      tooltip: { trigger: "axis", axisPointer: { type: "shadow" } },
      grid: { left: 8, right: 24, top: 8, bottom: 8, containLabel: true },
      xAxis: { type: "value", minInterval: 1 },
      yAxis: {
        type: "category",
        data: devices.map((d) => d.machine_name),
        axisLabel: { width: 90, overflow: "truncate" },
      },
      series: [
        {
          type: "bar",
          name: count,
          data: devices.map((d) => d.count),
          itemStyle: { color: "#1677ff", borderRadius: [0, 3, 3, 0] },
          barMaxWidth: 18,
          label: { show: true, position: "right" },
        },
      ],
    },
    byDay: {
      tooltip: { trigger: "axis" },
      grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
      xAxis: {
        type: "category",
        data: kanban.byDay.map((d) => d.day.slice(5)),
        axisTick: { alignWithLabel: true },
      },
      yAxis: { type: "value", minInterval: 1 },
      series: [
        {
          type: "bar",
          name: count,
          data: kanban.byDay.map((d) => d.count),
          itemStyle: { color: "#fa8c16", borderRadius: [3, 3, 0, 0] },
          barMaxWidth: 22,
        },
      ],
    },
  };
}
