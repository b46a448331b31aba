import { type AlarmEntry, PAGE_SIZE } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Empty, Flex, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { formatInZone } from "../../lib/format.ts";
import {
  AlarmContent,
  AlarmLevelTag,
  AlarmStateTags,
  ConfirmAlarmButton,
  ConfirmAllButton,
  ResetAlarmsButton,
} from "../alarm/alarmParts.tsx";

/**
 * A device's alarms (GET /v1/devices/alarms), newest first, server paging of 6 (SPEC §9),
 * with each alarm's state (confirmed, cleared). What the caller may do comes with the list:
 * confirm one, confirm all (POST /machine/confirmMacAlarm: the Akey or a maintainer, SPEC §6)
 * and reset the device's alarms (PUT /v1/devices/imageReset), each after a confirmation.
 */
export function DeviceAlarms({ machineCode, eid = 0 }: { machineCode: string; eid?: number }) {
  const { t } = useLang();
  const [page, setPage] = useState(1);
  const alarms = useQuery({
    queryKey: queryKeys.deviceAlarms(machineCode, page, eid),
    queryFn: () => alarmsApi.deviceAlarms({ deviceCode: machineCode, eid }, page),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const rights = alarms.data?.rights;
  const machineId = alarms.data?.machine_id;

  const columns: TableProps<AlarmEntry>["columns"] = [
    {
      title: t("device.alarm.time"),
      key: "time",
      width: 130,
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
      width: 72,
      render: (level: number) => <AlarmLevelTag level={level} />,
    },
    {
      title: t("device.alarm.content"),
      key: "content",
      render: (_: unknown, a) => <AlarmContent alarm={a} />,
    },
    {
      // The state and, while unconfirmed, the confirm link: the drawer is narrow.
      title: t("alarms.state"),
      key: "state",
      width: 130,
      render: (_: unknown, a) => (
        <>
          <AlarmStateTags alarm={a} />
          {rights?.confirm && !a.confirmed && <ConfirmAlarmButton alarm={a} eid={eid} compact />}
        </>
      ),
    },
  ];

  const total = alarms.data?.total ?? 0;
  return (
    <div data-testid="device-alarm-table">
      {(rights?.confirmAll || rights?.reset) && machineId !== undefined && (
        <Flex justify="flex-end" gap={8} className="kw-mb-xs">
          {rights.confirmAll && (
            <ConfirmAllButton
              machineId={machineId}
              deviceCode={machineCode}
              disabled={total === 0}
              testIdPrefix="device-alarm"
            />
          )}
          {rights.reset && (
            <ResetAlarmsButton deviceCode={machineCode} eid={eid} disabled={total === 0} />
          )}
        </Flex>
      )}
      <Table<AlarmEntry>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={alarms.data?.list ?? []}
        loading={alarms.isFetching}
        scroll={{ x: 480 }}
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
