import {
  ArrowDownOutlined,
  ArrowUpOutlined,
  DownloadOutlined,
  ReloadOutlined,
} from "@ant-design/icons";
import { VISIT_ACTIVITY_DAYS } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Badge, Button, Flex, Space, Table, type TableProps, Tag, Tooltip, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { VISIT_PAGE_SIZE, type VisitItem, visitsApi } from "../../api/visits.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatBytes, formatDateTime, formatDuration } from "../../lib/format.ts";
import { useNow } from "../../lib/useNow.ts";
import { ActivityDrawer } from "./ActivityDrawer.tsx";
import { useActivityExport } from "./useActivityExport.ts";

const KIND_COLORS = { web: "blue", screen: "purple", tcp: "cyan" } as const;

/** While a visit on the page runs, the log is read again this often (bytes and state). */
const RUNNING_POLL_MS = 10_000;

/**
 * A device's visit log (GET /device/v1/visits, its Akey and Bkeys): who visited from which
 * terminal, what they reached, when, how long and how many bytes each way, newest first,
 * 6 a page; a running visit can be ended (POST /device/v1/visits/end), which cuts its
 * connections at once. Each visit says what it opened (web page, screen, TCP) and whether
 * the visitor was view only; "Activity" shows its requests and screen sessions, and the
 * device's whole activity downloads as CSV.
 */
export function DeviceVisits({ machineId }: { machineId: number }) {
  const { t, lang } = useLang();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const visits = useQuery({
    queryKey: queryKeys.deviceVisits(machineId, page),
    queryFn: () => visitsApi.list(machineId, page),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.list.some((v) => v.state === "running") ? RUNNING_POLL_MS : false,
    meta: { silent: true },
  });
  const now = useNow(5_000);
  const end = useMutation({ mutationFn: visitsApi.end });
  const [activityOf, setActivityOf] = useState<VisitItem | null>(null);
  const exportCsv = useActivityExport(machineId);
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.deviceVisitsAll(machineId) });

  const columns: TableProps<VisitItem>["columns"] = [
    {
      title: t("device.visits.visitor"),
      key: "visitor",
      width: 140,
      render: (_: unknown, v) => (
        <span className="kw-stack">
          <Typography.Text ellipsis={{ tooltip: v.user_name }}>
            {v.user_name || "-"}
          </Typography.Text>
          <Typography.Text type="secondary" className="kw-small" ellipsis>
            {v.account || "-"}
          </Typography.Text>
        </span>
      ),
    },
    {
      title: t("device.visits.kind"),
      key: "kind",
      width: 90,
      render: (_: unknown, v) => {
        const kind = v.kind ?? "web";
        return (
          <span
            className="kw-stack"
            data-testid="device-visit-kind"
            data-kind={kind}
            data-view-only={v.view_only ? 1 : 0}
          >
            <Tag color={KIND_COLORS[kind]} className="kw-tag-fit">
              {t(`device.visits.kinds.${kind}`)}
            </Tag>
            {v.view_only && (
              <Tag color="gold" className="kw-tag-fit" data-testid="device-visit-view-only">
                {t("device.visits.viewOnly")}
              </Tag>
            )}
          </span>
        );
      },
    },
    {
      title: t("device.visits.terminal"),
      key: "terminal",
      width: 140,
      render: (_: unknown, v) => (
        <span className="kw-stack">
          <Typography.Text ellipsis={{ tooltip: v.terminal_name }}>
            {v.terminal_name || "-"}
          </Typography.Text>
          <Typography.Text type="secondary" className="kw-small kw-code" ellipsis>
            {v.target || "-"}
          </Typography.Text>
        </span>
      ),
    },
    {
      title: t("device.visits.time"),
      key: "time",
      width: 160,
      render: (_: unknown, v) => (
        <span className="kw-stack kw-nowrap">
          <span>{formatDateTime(v.started_at)}</span>
          <Typography.Text type="secondary" className="kw-small">
            {v.ended_at ? formatDateTime(v.ended_at) : "-"}
          </Typography.Text>
        </span>
      ),
    },
    {
      title: t("device.visits.duration"),
      key: "duration",
      width: 90,
      render: (_: unknown, v) => {
        const until = v.ended_at ? Date.parse(v.ended_at) : now;
        return (
          <span className="kw-nowrap" data-testid="device-visit-duration">
            {formatDuration(until - Date.parse(v.started_at), lang)}
          </span>
        );
      },
    },
    {
      title: t("device.visits.traffic"),
      key: "traffic",
      width: 110,
      render: (_: unknown, v) => (
        <span className="kw-stack kw-nowrap">
          <Tooltip title={t("device.visits.trafficIn", { value: formatBytes(v.bytes_in) })}>
            <span data-testid="device-visit-in" data-value={v.bytes_in}>
              <ArrowDownOutlined /> {formatBytes(v.bytes_in)}
            </span>
          </Tooltip>
          <Tooltip title={t("device.visits.trafficOut", { value: formatBytes(v.bytes_out) })}>
            <Typography.Text
              type="secondary"
              className="kw-small"
              data-testid="device-visit-out"
              data-value={v.bytes_out}
            >
              <ArrowUpOutlined /> {formatBytes(v.bytes_out)}
            </Typography.Text>
          </Tooltip>
        </span>
      ),
    },
    {
      title: t("device.visits.state"),
      key: "state",
      width: 120,
      render: (_: unknown, v) => (
        <span className="kw-stack" data-testid="device-visit-state" data-state={v.state}>
          <Badge
            status={v.state === "running" ? "processing" : "default"}
            text={v.state === "running" ? t("device.visits.running") : t("device.visits.ended")}
          />
          {v.end_reason && (
            <Typography.Text
              type="secondary"
              className="kw-small"
              data-testid="device-visit-reason"
              data-reason={v.end_reason}
            >
              {t(`device.visits.reasons.${v.end_reason}`)}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("common.action"),
      key: "action",
      width: 150,
      fixed: "right",
      render: (_: unknown, v) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setActivityOf(v)}
            data-testid={`device-visit-activity-${v.visit_id}`}
          >
            {t("device.visits.activity")}
          </Button>
          {v.state === "running" && (
            <ConfirmActionLink
              title={t("device.visits.endConfirm", { name: v.user_name || v.account })}
              description={<span className="kw-popconfirm-text">{t("device.visits.endHint")}</span>}
              okText={t("device.visits.end")}
              label={t("device.visits.end")}
              testId={`device-visit-end-${v.visit_id}`}
              confirmTestId="device-visit-end-confirm"
              action={() => end.mutateAsync(v.visit_id)}
              successText={t("device.visits.endedOk")}
              onDone={refresh}
            />
          )}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="device-visits">
      <Flex justify="space-between" align="center" gap={12} className="kw-mb-xs">
        <Typography.Text type="secondary" className="kw-small">
          {t("device.visits.hint")}
        </Typography.Text>
        <Flex gap={8}>
          <Tooltip title={t("device.visits.exportHint", { days: VISIT_ACTIVITY_DAYS })}>
            <Button
              size="small"
              icon={<DownloadOutlined />}
              loading={exportCsv.isPending}
              onClick={() => exportCsv.mutate()}
              data-testid="device-visits-export"
            >
              {t("device.visits.exportCsv")}
            </Button>
          </Tooltip>
          <Button
            size="small"
            icon={<ReloadOutlined />}
            loading={visits.isFetching}
            onClick={() => refresh()}
            data-testid="device-visits-refresh"
          >
            {t("device.visits.refresh")}
          </Button>
        </Flex>
      </Flex>
      <Table<VisitItem>
        rowKey="visit_id"
        size="small"
        columns={columns}
        dataSource={visits.data?.list ?? []}
        loading={visits.isPending || (visits.isFetching && visits.isPlaceholderData)}
        scroll={{ x: 1000 }}
        onRow={(v) =>
          ({
            "data-testid": `device-visit-row-${v.visit_id}`,
            "data-state": v.state,
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: VISIT_PAGE_SIZE,
          total: visits.data?.total ?? 0,
          size: "small",
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("device.visits.total", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: (
            <div data-testid={visits.isError ? "device-visits-error" : "device-visits-empty"}>
              <ListEmpty
                error={visits.isError ? visits.error.message : null}
                onRetry={() => visits.refetch()}
                description={t("device.visits.empty")}
              />
            </div>
          ),
        }}
      />
      <ActivityDrawer
        machineId={machineId}
        visit={activityOf}
        onClose={() => setActivityOf(null)}
      />
    </div>
  );
}
