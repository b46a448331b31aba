import {
  ArrowDownOutlined,
  ArrowUpOutlined,
  DownloadOutlined,
  ReloadOutlined,
} from "@ant-design/icons";
import { VISIT_ACTIVITY_DAYS } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Drawer, Flex, Grid, Table, type TableProps, Tag, Tooltip, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import {
  ACTIVITY_PAGE_SIZE,
  type VisitActivityItem,
  type VisitItem,
  visitsApi,
} from "../../api/visits.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatBytes, formatDateTime, formatDuration } from "../../lib/format.ts";
import { useActivityExport } from "./useActivityExport.ts";

const STATUS_COLORS: [number, string][] = [
  [500, "red"],
  [400, "orange"],
  [300, "blue"],
  [200, "green"],
];
const statusColor = (status: number) =>
  STATUS_COLORS.find(([from]) => status >= from)?.[1] ?? "default";

/**
 * What one visitor did in one visit (GET /device/v1/visits/activity with visitId): each HTTP
 * request (time, method, path without its query, status, bytes) and each screen session
 * (start and end, view only or control, bytes, input passed and dropped), newest first,
 * 20 a page; "Export CSV" downloads the visit's rows.
 */
export function ActivityDrawer({
  machineId,
  visit,
  onClose,
}: {
  machineId: number;
  visit: VisitItem | null;
  onClose: () => void;
}) {
  const { t, lang } = useLang();
  const phone = !Grid.useBreakpoint().md;
  const [page, setPage] = useState(1);
  const visitId = visit?.visit_id ?? "";
  const activity = useQuery({
    queryKey: queryKeys.visitActivity(machineId, visitId, page),
    queryFn: () => visitsApi.activity({ deviceId: machineId, visitId, page }),
    enabled: visit !== null,
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const exportCsv = useActivityExport(machineId, visit?.visit_id);

  const columns: TableProps<VisitActivityItem>["columns"] = [
    {
      title: t("device.activity.time"),
      key: "time",
      width: 170,
      render: (_: unknown, a) => (
        <span className="kw-stack kw-nowrap">
          <span>{formatDateTime(a.at)}</span>
          {(a.kind === "screen" || a.requests > 1) && (
            <Typography.Text type="secondary" className="kw-small">
              {a.ended_at
                ? t("device.activity.until", { time: formatDateTime(a.ended_at) })
                : t("device.activity.open")}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("device.activity.what"),
      key: "what",
      render: (_: unknown, a) =>
        a.kind === "http" ? (
          <Flex gap={6} align="center" className="kw-activity-path">
            <Tag className="kw-code">{a.method}</Tag>
            <Typography.Text className="kw-code kw-small" ellipsis={{ tooltip: a.path }}>
              {a.path}
            </Typography.Text>
            {a.requests > 1 && (
              <Tooltip title={t("device.activity.repeated", { count: a.requests })}>
                <Tag variant="filled" data-testid="activity-requests" data-value={a.requests}>
                  ×{a.requests}
                </Tag>
              </Tooltip>
            )}
          </Flex>
        ) : (
          <Flex gap={6} align="center" wrap>
            <Tag color="purple">{t("device.activity.screenSession")}</Tag>
            <Tag color={a.view_only ? "gold" : "blue"}>
              {a.view_only ? t("device.activity.viewOnly") : t("device.activity.control")}
            </Tag>
          </Flex>
        ),
    },
    {
      title: t("device.activity.status"),
      key: "status",
      width: 130,
      render: (_: unknown, a) => {
        if (a.kind === "screen") {
          const until = a.ended_at ? Date.parse(a.ended_at) : Date.now();
          return (
            <span className="kw-nowrap">{formatDuration(until - Date.parse(a.at), lang)}</span>
          );
        }
        return a.status === 0 ? (
          <Typography.Text type="secondary">{t("device.activity.noAnswer")}</Typography.Text>
        ) : (
          <Tag color={statusColor(a.status)}>{a.status}</Tag>
        );
      },
    },
    {
      title: t("device.activity.bytes"),
      key: "bytes",
      width: 110,
      render: (_: unknown, a) => (
        <span className="kw-stack kw-nowrap">
          <span>
            <ArrowDownOutlined /> {formatBytes(a.bytes_in)}
          </span>
          <Typography.Text type="secondary" className="kw-small">
            <ArrowUpOutlined /> {formatBytes(a.bytes_out)}
          </Typography.Text>
        </span>
      ),
    },
    {
      title: t("device.activity.input"),
      key: "input",
      width: 120,
      render: (_: unknown, a) =>
        a.kind === "screen" ? (
          <span className="kw-stack kw-nowrap">
            <span data-testid="activity-input" data-value={a.input_events}>
              {t("device.activity.inputEvents", { count: a.input_events })}
            </span>
            <Typography.Text
              type={a.dropped_events > 0 ? "danger" : "secondary"}
              className="kw-small"
              data-testid="activity-dropped"
              data-value={a.dropped_events}
            >
              {t("device.activity.dropped", { count: a.dropped_events })}
            </Typography.Text>
          </span>
        ) : (
          <Typography.Text type="secondary">-</Typography.Text>
        ),
    },
  ];

  const kind = visit ? t(`device.visits.kinds.${visit.kind ?? "web"}`) : "";
  return (
    <Drawer
      open={visit !== null}
      onClose={onClose}
      afterOpenChange={(open) => {
        if (!open) setPage(1);
      }}
      size={phone ? "100%" : 860}
      title={
        <span className="kw-stack">
          <span>{t("device.activity.title")}</span>
          {visit && (
            <Typography.Text type="secondary" className="kw-small" data-testid="activity-subtitle">
              {t("device.activity.subtitle", {
                visitor: visit.user_name || visit.account,
                kind,
                start: formatDateTime(visit.started_at),
              })}
            </Typography.Text>
          )}
        </span>
      }
      extra={
        <Flex gap={8}>
          <Button
            icon={<ReloadOutlined />}
            loading={activity.isFetching}
            onClick={() => void activity.refetch()}
            aria-label={t("device.activity.refresh")}
            data-testid="activity-refresh"
          />
          <Button
            icon={<DownloadOutlined />}
            loading={exportCsv.isPending}
            onClick={() => exportCsv.mutate()}
            data-testid="activity-export"
          >
            {t("device.visits.exportCsv")}
          </Button>
        </Flex>
      }
      data-testid="activity-drawer"
    >
      <Typography.Paragraph type="secondary" className="kw-small">
        {t("device.activity.hint", { days: VISIT_ACTIVITY_DAYS })}
      </Typography.Paragraph>
      <Table<VisitActivityItem>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={activity.data?.list ?? []}
        loading={activity.isPending || (activity.isFetching && activity.isPlaceholderData)}
        scroll={{ x: 700 }}
        onRow={(a) =>
          ({
            "data-testid": `activity-row-${a.id}`,
            "data-kind": a.kind,
            "data-method": a.method,
            "data-path": a.path,
            "data-status": a.status,
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: ACTIVITY_PAGE_SIZE,
          total: activity.data?.total ?? 0,
          size: "small",
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("device.activity.total", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: (
            <div data-testid={activity.isError ? "activity-error" : "activity-empty"}>
              <ListEmpty
                error={activity.isError ? activity.error.message : null}
                onRetry={() => activity.refetch()}
                description={t("device.activity.empty")}
              />
            </div>
          ),
        }}
      />
    </Drawer>
  );
}
