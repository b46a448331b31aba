import { ShopOutlined } from "@ant-design/icons";
import { HW, type Machine } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import {
  Avatar,
  Button,
  Card,
  Empty,
  Flex,
  Result,
  Space,
  Table,
  type TableProps,
  Typography,
} from "antd";
import { useMemo, useState } from "react";
import {
  type EnterpriseDeviceQuery,
  type EnterpriseDeviceType,
  enterprisesApi,
} from "../../api/enterprises.ts";
import { ApiError } from "../../api/errors.ts";
import { useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { EnterpriseListPage } from "../../components/EnterpriseListPage.tsx";
import { ConnectButton, useConnect } from "../../features/device/ConnectButton.tsx";
import { ListPager } from "../../features/device/ListPager.tsx";
import { withLiveStates } from "../../features/device/machine.ts";
import {
  ALL_GROUPS,
  DeviceFilters,
  useGroupColumn,
  useGroupFilterOptions,
  useMachineColumns,
} from "../../features/device/machineColumns.tsx";
import { ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { useViewportHeight } from "../../lib/useViewportHeight.ts";
import { EnterpriseDeviceDrawer } from "./EnterpriseDeviceDrawer.tsx";

/** /device?type=1|2: enterprise or maintenance devices of the current enterprise context. */
export function EnterpriseDevicePage() {
  // A new enterprise or type starts with fresh filters.
  return (
    <EnterpriseListPage testId="enterprise-no-context">
      {({ eid, type, name }) => (
        <EnterpriseDevices key={`${eid}-${type}`} eid={eid} type={type} name={name} />
      )}
    </EnterpriseListPage>
  );
}

function EnterpriseDevices({
  eid,
  type,
  name,
}: {
  eid: number;
  type: EnterpriseDeviceType;
  name: string;
}) {
  const { t } = useLang();
  const [search, setSearch] = useState("");
  const [group, setGroup] = useState<string>(ALL_GROUPS);
  const [detail, setDetail] = useState<Machine | null>(null);
  const term = useDebounced(search.trim());
  const groupId = group === ALL_GROUPS ? undefined : Number(group);
  // The server's page; a new filter starts again at the first.
  const [paged, setPaged] = useState({ page: 1, term, group });
  const page = paged.term === term && paged.group === group ? paged.page : 1;
  const query: EnterpriseDeviceQuery = { eid, type, groupId, search: term || undefined, page };

  const devices = useQuery({
    queryKey: queryKeys.enterpriseDevices(query),
    queryFn: () => enterprisesApi.deviceList(query),
    // Keep the rows on screen while a new filter loads (same enterprise and type only).
    placeholderData: (previous) => previous,
    meta: { silent: true },
  });
  const groups = useQuery({
    queryKey: queryKeys.enterpriseGroups(eid),
    queryFn: () => enterprisesApi.groups(eid),
    meta: { silent: true },
  });
  const logo = useQuery({
    queryKey: queryKeys.enterpriseLogo(eid),
    queryFn: () => enterprisesApi.logo(eid),
    staleTime: 5 * 60_000,
    meta: { silent: true },
  });
  const tableHeight = useViewportHeight(330);
  const rows = devices.data?.list;
  const ids = useMemo(() => (rows ?? []).map((m) => m.machine_id), [rows]);
  // SPEC §2 live online state of the listed devices (every 10 s while the tab is visible).
  const states = useLiveStates({
    queryKey: queryKeys.enterpriseStates(query),
    machineIds: ids,
    enabled: ids.length > 0,
  });
  const list = useMemo(() => withLiveStates(rows ?? [], states.data), [rows, states.data]);
  const filtered = term !== "" || groupId !== undefined;
  const { connect, isPending: connecting } = useConnect();
  const onConnect = (machine: Machine) => void connect(machine, eid);
  // The open drawer follows the row's live state (its Connect button).
  const detailRow = detail && (list.find((m) => m.machine_id === detail.machine_id) ?? detail);

  const baseColumns = useMachineColumns({ name: 240, code: 180, state: 90 });
  const groupColumn = useGroupColumn(130);
  const groupOptions = useGroupFilterOptions(groups.data?.list);
  const columns: TableProps<Machine>["columns"] = [
    ...baseColumns,
    groupColumn,
    {
      title: type === 2 ? t("enterprise.maintenanceRemark") : t("device.remark"),
      key: "remark",
      width: 170,
      ellipsis: true,
      render: (_: unknown, m) => (type === 2 ? m.maintenance_remark : m.machine_remark) || "-",
    },
    {
      title: t("device.model"),
      dataIndex: "model",
      width: 120,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("device.version"),
      dataIndex: "version",
      width: 100,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("common.action"),
      key: "action",
      width: 150,
      fixed: "right",
      render: (_: unknown, m) => (
        // A click here is not a click on the row (which opens the drawer).
        <Space size={0} onClick={(e) => e.stopPropagation()}>
          <ConnectButton
            machine={m}
            onConnect={onConnect}
            loading={connecting(m.machine_id)}
            testId={`enterprise-device-connect-${m.machine_id}`}
          />
          <ScreenButton
            machine={m}
            scope={{ eid }}
            testId={`enterprise-device-screen-${m.machine_id}`}
          />
        </Space>
      ),
    },
  ];

  const title = type === 2 ? t("nav.maintenanceDevices") : t("nav.enterpriseDevices");
  const brandName = logo.data?.platformName || logo.data?.name || name;

  let body: React.ReactNode;
  if (devices.isError && !devices.data) {
    // 403 "User has no permission": not a member of the kind this list needs.
    const refused = devices.error instanceof ApiError && devices.error.is(HW.NO_PERMISSION.code);
    body = refused ? (
      <Result
        status="403"
        title={devices.error.message}
        subTitle={type === 2 ? t("enterprise.refusedMaintenance") : t("enterprise.refusedDevices")}
        data-testid="enterprise-device-error"
      />
    ) : (
      <Result
        status="warning"
        title={t("device.loadFailed")}
        subTitle={devices.error.message}
        extra={<Button onClick={() => devices.refetch()}>{t("common.retry")}</Button>}
        data-testid="enterprise-device-error"
      />
    );
  } else {
    body = (
      <div data-testid="enterprise-device-table">
        <Table<Machine>
          rowKey="machine_id"
          size="middle"
          virtual
          columns={columns}
          dataSource={list}
          loading={devices.isFetching}
          pagination={false}
          scroll={{ x: 1126, y: tableHeight }}
          rowClassName="kw-clickable"
          onRow={(m) =>
            ({
              "data-testid": `enterprise-device-row-${m.machine_code}`,
              onClick: () => setDetail(m),
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={
                  filtered
                    ? t("device.noMatch")
                    : type === 2
                      ? t("enterprise.emptyMaintenance")
                      : t("enterprise.emptyDevices")
                }
                data-testid="enterprise-device-empty"
              />
            ),
          }}
        />
      </div>
    );
  }

  return (
    <div className="kw-page kw-page-wide" data-testid={`enterprise-device-page-${type}`}>
      <Flex align="center" gap={12} className="kw-page-head">
        <Avatar
          shape="square"
          size={32}
          src={logo.data?.applyLogoUrl || undefined}
          icon={<ShopOutlined />}
          className="kw-enterprise-logo"
        />
        <Typography.Title level={4} className="kw-page-title">
          {title}
        </Typography.Title>
        <Typography.Text type="secondary" data-testid="enterprise-device-context">
          {brandName}
        </Typography.Text>
        {devices.data && (
          <Typography.Text type="secondary" data-testid="enterprise-device-total">
            · {t("device.total", { total: devices.data.total ?? list.length })}
          </Typography.Text>
        )}
      </Flex>
      <Card className="kw-card" styles={{ body: { padding: 16 } }}>
        <Flex wrap gap={12} align="center" className="kw-toolbar">
          <DeviceFilters
            search={search}
            onSearch={setSearch}
            group={group}
            onGroup={setGroup}
            groupOptions={groupOptions}
            groupsLoading={groups.isPending}
            testIdPrefix="enterprise-device"
          />
        </Flex>
        {body}
        {devices.data && (
          <ListPager
            page={page}
            total={devices.data.total}
            onChange={(next) => setPaged({ page: next, term, group })}
            testId="enterprise-device-pager"
          />
        )}
      </Card>
      <EnterpriseDeviceDrawer
        eid={eid}
        type={type}
        machine={detailRow}
        onClose={() => setDetail(null)}
        onConnect={onConnect}
        connecting={detail ? connecting(detail.machine_id) : false}
      />
    </div>
  );
}
