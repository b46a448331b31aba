import { CheckCircleOutlined } from "@ant-design/icons";
import { type AlarmEntry, PAGE_SIZE } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Empty,
  Flex,
  Popconfirm,
  Table,
  type TableProps,
  Tag,
  Typography,
} from "antd";
import { useState } from "react";
import { authorityApi } from "../../api/access.ts";
import { devicesApi } from "../../api/devices.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { formatInZone } from "../../lib/format.ts";
import { ALARM_LEVEL_COLORS, alarmLevelKey } from "./machine.ts";

/**
 * A device's alarms (GET /v1/devices/alarms), newest first, server paging of 6 (SPEC §9).
 * The Akey confirms them all at once (POST /machine/confirmMacAlarm, SPEC §6).
 */
export function DeviceAlarms({
  machineCode,
  machineId,
  canConfirmAll = false,
}: {
  machineCode: string;
  machineId?: number;
  canConfirmAll?: boolean;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const confirmAll = useMutation({
    mutationFn: () => authorityApi.confirmAlarms(machineId ?? 0),
    onSuccess: async () => {
      message.success(t("device.alarm.confirmedAll"));
      await queryClient.invalidateQueries({ queryKey: queryKeys.deviceAlarmsAll(machineCode) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
    },
  });
  const alarms = useQuery({
    queryKey: queryKeys.deviceAlarms(machineCode, page),
    queryFn: () => devicesApi.alarms(machineCode, page, PAGE_SIZE.alarms),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });

  const columns: TableProps<AlarmEntry>["columns"] = [
    {
      title: t("device.alarm.time"),
      key: "time",
      width: 150,
      render: (_: unknown, a) => (
        <span className="kw-alarm-time">
          <span className="kw-nowrap">{formatInZone(a.time, a.time_zone)}</span>
          {a.time_zone && (
            <Typography.Text type="secondary" className="kw-small">
              {a.time_zone}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("device.alarm.level"),
      dataIndex: "level",
      width: 76,
      render: (level: number) => {
        const key = alarmLevelKey(level);
        return (
          <Tag color={ALARM_LEVEL_COLORS[key]} className="kw-tag-tight" data-level={level}>
            {t(`device.alarm.levels.${key}`)}
          </Tag>
        );
      },
    },
    {
      title: t("device.alarm.type"),
      dataIndex: "type",
      width: 80,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("device.alarm.variable"),
      dataIndex: "variable",
      width: 80,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("device.alarm.content"),
      dataIndex: "content",
      render: (v: string) => <span className="kw-break">{v || "-"}</span>,
    },
  ];

  const total = alarms.data?.total ?? 0;
  return (
    <div data-testid="device-alarm-table">
      {canConfirmAll && machineId !== undefined && (
        <Flex justify="flex-end" className="kw-mb-xs">
          <Popconfirm
            title={t("device.alarm.confirmAllTitle")}
            description={
              <span className="kw-popconfirm-text">{t("device.alarm.confirmAllHint")}</span>
            }
            okText={t("device.alarm.confirmAll")}
            cancelText={t("common.cancel")}
            okButtonProps={{ ...({ "data-testid": "device-alarm-confirm-all-ok" } as object) }}
            onConfirm={() => confirmAll.mutate()}
            disabled={total === 0}
          >
            <Button
              size="small"
              icon={<CheckCircleOutlined />}
              loading={confirmAll.isPending}
              disabled={total === 0}
              data-testid="device-alarm-confirm-all"
            >
              {t("device.alarm.confirmAll")}
            </Button>
          </Popconfirm>
        </Flex>
      )}
      <Table<AlarmEntry>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={alarms.data?.list ?? []}
        loading={alarms.isFetching}
        scroll={{ x: 520 }}
        onRow={(a) =>
          ({ "data-testid": `device-alarm-row-${a.id}` }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: PAGE_SIZE.alarms,
          total,
          size: "small",
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("device.alarm.total", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: alarms.isError ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={alarms.error.message}>
              <Button size="small" onClick={() => alarms.refetch()}>
                {t("common.retry")}
              </Button>
            </Empty>
          ) : (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={t("device.alarm.empty")}
              data-testid="device-alarm-empty"
            />
          ),
        }}
      />
    </div>
  );
}
