import type { MachineMsgConfig } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Card, Flex, Switch, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { alarmPushApi, type DeviceMsgQuery } from "../../api/alarmPush.ts";
import { enterprisesApi } from "../../api/enterprises.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import {
  ALL_GROUPS,
  DeviceFilters,
  useGroupFilterOptions,
} from "../../features/device/machineColumns.tsx";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { errorText, rowsOf } from "./parts.tsx";

/**
 * The per-device SMS switch (GET /v1/devices/msgConfig, machineId descending): blur search,
 * group filter and pagination; the switch calls the personal or the enterprise
 * setMachineSmsFlag.
 */
export function DeviceSmsTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [group, setGroup] = useState<string>(ALL_GROUPS);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(10);
  const blur = useDebounced(search.trim());
  const query: DeviceMsgQuery = {
    eid,
    blur: blur || undefined,
    groupId: group === ALL_GROUPS ? undefined : Number(group),
    page,
    pageSize,
  };

  const personalGroups = useGroups(eid === 0);
  const entGroups = useQuery({
    queryKey: queryKeys.enterpriseGroups(eid),
    queryFn: () => enterprisesApi.groups(eid),
    enabled: eid !== 0,
    meta: { silent: true },
  });
  const groups = eid === 0 ? personalGroups : entGroups;
  const groupOptions = useGroupFilterOptions(groups.data?.list);

  const key = queryKeys.alarmPush(eid, "devices", query);
  const devices = useQuery({
    queryKey: key,
    queryFn: () => alarmPushApi.devices(query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  // Whether this user may switch the enterprise's devices (admins; the server has the last word).
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
    enabled: eid !== 0,
    meta: { silent: true },
  });
  const canSwitch = eid === 0 || entConfig.data?.isAdmin === true;

  const setFlag = useMutation({
    mutationFn: (v: { machineId: number; on: boolean }) =>
      alarmPushApi.setMachineSmsFlag(eid, v.machineId, v.on),
    onSuccess: async (_data, v) => {
      message.success(v.on ? t("alarmPush.devices.on") : t("alarmPush.devices.off"));
      await queryClient.invalidateQueries({ queryKey: queryKeys.alarmPush(eid, "devices") });
    },
  });

  const { list, total } = rowsOf(devices);
  const columns: TableProps<MachineMsgConfig>["columns"] = [
    { title: "ID", dataIndex: "machineId", width: 80 },
    {
      title: t("device.name"),
      dataIndex: "machineName",
      ellipsis: true,
      render: (name: string) => name || "-",
    },
    {
      title: t("device.code"),
      dataIndex: "machineCode",
      width: 190,
      render: (code: string) => <MachineCode code={code} />,
    },
    {
      title: t("alarmPush.devices.today"),
      dataIndex: "todaySmsCount",
      width: 140,
      align: "right",
    },
    {
      title: t("alarmPush.devices.smsSwitch"),
      key: "smsFlag",
      width: 130,
      align: "center",
      render: (_: unknown, m) => (
        <Switch
          checked={m.smsFlag === 1}
          disabled={!canSwitch}
          loading={setFlag.isPending && setFlag.variables?.machineId === m.machineId}
          onChange={(on) => setFlag.mutate({ machineId: m.machineId, on })}
          data-testid={`device-sms-switch-${m.machineId}`}
        />
      ),
    },
  ];

  return (
    <Card className="kw-card" data-testid="device-sms">
      <Typography.Paragraph type="secondary">
        {eid === 0 ? t("alarmPush.devices.hintPersonal") : t("alarmPush.devices.hintEnterprise")}
        {!canSwitch && entConfig.data && <> {t("alarmPush.adminOnly")}</>}
      </Typography.Paragraph>
      <Flex wrap gap={12} align="center" className="kw-toolbar">
        <DeviceFilters
          search={search}
          onSearch={(value) => {
            setSearch(value);
            setPage(1);
          }}
          group={group}
          onGroup={(value) => {
            setGroup(value);
            setPage(1);
          }}
          groupOptions={groupOptions}
          groupsLoading={groups.isPending && groups.fetchStatus !== "idle"}
          testIdPrefix="device-sms"
        />
      </Flex>
      <Table<MachineMsgConfig>
        rowKey="machineId"
        size="middle"
        columns={columns}
        dataSource={list}
        loading={devices.isFetching}
        scroll={{ x: 760 }}
        onRow={(m) =>
          ({ "data-testid": `device-sms-row-${m.machineId}` }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={errorText(devices)}
              onRetry={() => devices.refetch()}
              description={
                blur || group !== ALL_GROUPS ? t("device.noMatch") : t("alarmPush.devices.empty")
              }
            />
          ),
        }}
        pagination={{
          current: page,
          pageSize,
          total,
          showSizeChanger: true,
          pageSizeOptions: [10, 20, 50],
          showTotal: (n) => t("alarmPush.total", { total: n }),
          onChange: (nextPage, nextSize) => {
            setPage(nextSize !== pageSize ? 1 : nextPage);
            setPageSize(nextSize);
          },
        }}
      />
    </Card>
  );
}
