import {
  AppstoreOutlined,
  FolderOpenOutlined,
  FolderOutlined,
  KeyOutlined,
  PlusOutlined,
  UnorderedListOutlined,
} from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Card,
  Empty,
  Flex,
  Result,
  Segmented,
  Space,
  Table,
  type TableProps,
  Typography,
} from "antd";
import { useEffect, useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { devicesApi } from "../../api/devices.ts";
import { useGroups, useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { useLang } from "../../i18n/index.ts";
import { safeStorage } from "../../lib/storage.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { useViewportHeight } from "../../lib/useViewportHeight.ts";
import { enterpriseDevicePath, PATHS } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { AddDeviceModal } from "./AddDeviceModal.tsx";
import { ConnectButton, useConnect } from "./ConnectButton.tsx";
import { DeviceCards } from "./DeviceCards.tsx";
import { type DetailTab, DeviceDetailDrawer } from "./DeviceDetailDrawer.tsx";
import { EditDeviceModal } from "./EditDeviceModal.tsx";
import { GroupsModal } from "./GroupsModal.tsx";
import { IdentityTag } from "./MachineParts.tsx";
import { MoveGroupModal } from "./MoveGroupModal.tsx";
import { toIds, withLiveStates } from "./machine.ts";
import {
  ALL_GROUPS,
  DeviceFilters,
  useGroupColumn,
  useGroupFilterOptions,
  useMachineColumns,
} from "./machineColumns.tsx";
import { type AccessTarget, RequestAccessModal } from "./RequestAccessModal.tsx";
import { RequestByCodeModal } from "./RequestByCodeModal.tsx";

type View = "table" | "card";
const VIEW_KEY = "keyway.deviceView";
const testId = (id: string) => ({ "data-testid": id }) as object;

/** /index?listType=list: the personal device list (SPEC §2). */
export function DeviceListPage() {
  const context = useAppStore(selectCurrentContext);
  const setDeviceType = useAppStore((s) => s.setDeviceType);
  const deviceType = useAppStore((s) => s.deviceType);
  const navigate = useNavigate();
  useEffect(() => {
    if (context.eid === 0) {
      setDeviceType(0);
      return;
    }
    // The personal list belongs to the personal context; an enterprise context lands on the
    // list its stored device type names (SPEC §2: 2 maintenance, otherwise enterprise). Only
    // while the browser is still here: an entry the user chose meanwhile wins (a <Navigate>
    // rendered here could fire after that choice and take the user back).
    if (window.location.pathname !== PATHS.index) return;
    navigate(enterpriseDevicePath(deviceType === 2 ? 2 : 1), { replace: true });
  }, [context.eid, deviceType, navigate, setDeviceType]);
  if (context.eid !== 0) return null;
  return <PersonalDevices />;
}

function PersonalDevices() {
  const { t } = useLang();
  const { modal, message } = App.useApp();
  const queryClient = useQueryClient();

  const [search, setSearch] = useState("");
  const [group, setGroup] = useState<string>(ALL_GROUPS);
  const [view, setView] = useState<View>(() =>
    safeStorage.get(VIEW_KEY) === "card" ? "card" : "table",
  );
  const [selected, setSelected] = useState<React.Key[]>([]);
  const [adding, setAdding] = useState(false);
  /** The add dialog opened from "Request access" for a device nobody owns: its code. */
  const [addCode, setAddCode] = useState<string | undefined>();
  const [requestingByCode, setRequestingByCode] = useState(false);
  const [editing, setEditing] = useState<Machine | null>(null);
  const [moving, setMoving] = useState<{ ids: number[]; groupId: number } | null>(null);
  const [detail, setDetail] = useState<Machine | null>(null);
  const [detailTab, setDetailTab] = useState<DetailTab>("info");
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [requesting, setRequesting] = useState<AccessTarget | null>(null);
  const [params, setParams] = useSearchParams();

  const term = useDebounced(search.trim());
  const groupId = group === ALL_GROUPS ? undefined : Number(group);
  const query = { groupId, search: term || undefined };
  const devices = useQuery({
    queryKey: queryKeys.devices(query),
    queryFn: () => devicesApi.select(query),
    placeholderData: keepPreviousData,
  });
  const groups = useGroups();
  const tableHeight = useViewportHeight(330);

  // SPEC §2 live online state: the badges follow machineStates (every 10 s, tab visible).
  const states = useLiveStates({ queryKey: queryKeys.deviceStates, enabled: devices.isSuccess });
  const list = useMemo(
    () => withLiveStates(devices.data?.list ?? [], states.data),
    [devices.data, states.data],
  );
  const filtered = term !== "" || groupId !== undefined;
  const firstLoad = devices.isPending;
  const noDevices = !firstLoad && !devices.isError && list.length === 0 && !filtered;

  // ?device=<id>&tab=alarms (the new-alarm pop-up): open that device's detail on the tab.
  const jumpId = Number(params.get("device")) || 0;
  const jumpTab: DetailTab = params.get("tab") === "alarms" ? "alarms" : "info";
  const loaded = devices.isSuccess;
  useEffect(() => {
    if (!jumpId || !loaded) return;
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        copy.delete("device");
        copy.delete("tab");
        return copy;
      },
      { replace: true },
    );
    const listed = devices.data?.list.find((m) => m.machine_id === jumpId);
    setDetailTab(jumpTab);
    if (listed) setDetail(listed);
    else devicesApi.detail(jumpId).then(setDetail, showError);
  }, [jumpId, jumpTab, loaded, devices.data, setParams]);

  const openDetail = (machine: Machine) => {
    setDetailTab("info");
    setDetail(machine);
  };

  // Keep the selection to rows that are still listed.
  const visibleIds = useMemo(() => new Set(list.map((m) => m.machine_id)), [list]);
  const selection = selected.filter((k) => visibleIds.has(Number(k)));

  const remove = useMutation({ mutationFn: devicesApi.remove });
  const { connect, isPending: connecting } = useConnect();
  const onConnect = (machine: Machine) => void connect(machine);

  const confirmDelete = (machine: Machine) => {
    const akey = machine.limit_authority === 3;
    modal.confirm({
      title: t("device.deleteTitle", { name: machine.machine_name || machine.machine_code }),
      content: (
        <Typography.Paragraph className="kw-mb0" data-testid="device-delete-warning">
          {akey ? t("device.deleteAkeyWarning") : t("device.deleteWarning")}
        </Typography.Paragraph>
      ),
      okText: t("common.delete"),
      cancelText: t("common.cancel"),
      okButtonProps: { danger: true, ...testId("device-delete-confirm") },
      onOk: async () => {
        try {
          await remove.mutateAsync(machine);
        } catch {
          return;
        }
        message.success(t("device.deleted"));
        if (detail?.machine_id === machine.machine_id) setDetail(null);
        await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
      },
    });
  };

  const openMove = (machine: Machine) =>
    setMoving({ ids: [machine.machine_id], groupId: machine.groups ?? 0 });

  const baseColumns = useMachineColumns({ name: 190, code: 170, state: 90 });
  const groupColumn = useGroupColumn(100);
  const groupOptions = useGroupFilterOptions(groups.data?.list);
  const columns: TableProps<Machine>["columns"] = [
    ...baseColumns,
    groupColumn,
    {
      title: t("device.remark"),
      dataIndex: "machine_remark",
      width: 110,
      ellipsis: true,
      render: (remark: string) => remark || "-",
    },
    {
      title: t("device.identityLabel"),
      dataIndex: "limit_authority",
      width: 100,
      render: (_: unknown, m: Machine) => <IdentityTag identity={m.role} />,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 300,
      fixed: "right",
      render: (_: unknown, m) => (
        <Space size={0} onClick={(e) => e.stopPropagation()}>
          <ConnectButton
            machine={m}
            onConnect={onConnect}
            loading={connecting(m.machine_id)}
            testId={`device-connect-${m.machine_id}`}
          />
          <Button
            type="link"
            size="small"
            onClick={() => openDetail(m)}
            data-testid={`device-detail-${m.machine_id}`}
          >
            {t("device.detail")}
          </Button>
          <Button
            type="link"
            size="small"
            onClick={() => setEditing(m)}
            data-testid={`device-edit-${m.machine_id}`}
          >
            {t("common.edit")}
          </Button>
          <Button
            type="link"
            size="small"
            onClick={() => openMove(m)}
            data-testid={`device-move-${m.machine_id}`}
          >
            {t("group.moveShort")}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            onClick={() => confirmDelete(m)}
            data-testid={`device-delete-${m.machine_id}`}
          >
            {t("common.delete")}
          </Button>
        </Space>
      ),
    },
  ];

  let body: React.ReactNode;
  if (devices.isError && !devices.data) {
    body = (
      <Result
        status="warning"
        title={t("device.loadFailed")}
        subTitle={devices.error.message}
        extra={<Button onClick={() => devices.refetch()}>{t("common.retry")}</Button>}
        data-testid="device-error"
      />
    );
  } else if (noDevices) {
    body = (
      <Empty
        className="kw-empty-block"
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t("device.emptyAll")}
        data-testid="device-empty"
      >
        <Space wrap>
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setAdding(true)}
            data-testid="device-empty-add"
          >
            {t("device.add")}
          </Button>
          <Button
            icon={<KeyOutlined />}
            onClick={() => setRequestingByCode(true)}
            data-testid="device-empty-request-access"
          >
            {t("access.byCode.button")}
          </Button>
        </Space>
      </Empty>
    );
  } else if (view === "card") {
    body =
      list.length === 0 && !firstLoad ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("device.noMatch")} />
      ) : (
        <DeviceCards
          machines={list}
          loading={firstLoad}
          onDetail={openDetail}
          onConnect={onConnect}
          isConnecting={connecting}
          onEdit={setEditing}
          onMove={openMove}
          onDelete={confirmDelete}
        />
      );
  } else {
    body = (
      <div data-testid="device-table">
        <Table<Machine>
          rowKey="machine_id"
          size="middle"
          virtual
          columns={columns}
          dataSource={list}
          loading={devices.isFetching}
          pagination={false}
          scroll={{ x: 1108, y: tableHeight }}
          rowSelection={{
            selectedRowKeys: selection,
            onChange: (keys) => setSelected(keys),
            columnWidth: 48,
          }}
          onRow={(m) =>
            ({ "data-testid": `device-row-${m.machine_code}` }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("device.noMatch")} />
            ),
          }}
        />
      </div>
    );
  }

  return (
    <div className="kw-page kw-page-wide" data-testid="device-page">
      <Flex align="baseline" gap={12} className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          {t("device.title")}
        </Typography.Title>
        {devices.data && (
          <Typography.Text type="secondary" data-testid="device-total">
            {t("device.total", { total: devices.data.total ?? list.length })}
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
            testIdPrefix="device"
          />
          <Segmented<View>
            value={view}
            onChange={(next) => {
              setView(next);
              safeStorage.set(VIEW_KEY, next);
            }}
            options={[
              {
                value: "table",
                icon: <UnorderedListOutlined />,
                label: <span data-testid="device-view-table">{t("device.viewTable")}</span>,
              },
              {
                value: "card",
                icon: <AppstoreOutlined />,
                label: <span data-testid="device-view-card">{t("device.viewCard")}</span>,
              },
            ]}
            data-testid="device-view-toggle"
          />
          <div className="kw-grow" />
          {selection.length > 0 && view === "table" && (
            <Button
              icon={<FolderOutlined />}
              onClick={() => setMoving({ ids: toIds(selection), groupId: 0 })}
              data-testid="device-move-selected"
            >
              {t("group.moveSelected", { count: selection.length })}
            </Button>
          )}
          <Button
            icon={<FolderOpenOutlined />}
            onClick={() => setGroupsOpen(true)}
            data-testid="groups-open"
          >
            {t("group.manage")}
          </Button>
          <Button
            icon={<KeyOutlined />}
            onClick={() => setRequestingByCode(true)}
            data-testid="device-request-access"
          >
            {t("access.byCode.button")}
          </Button>
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setAdding(true)}
            data-testid="device-add"
          >
            {t("device.add")}
          </Button>
        </Flex>
        {body}
      </Card>

      <AddDeviceModal
        open={adding}
        onClose={() => {
          setAdding(false);
          setAddCode(undefined);
        }}
        groupId={groupId}
        initialCode={addCode}
        onRequest={(device, kind) => {
          setAdding(false);
          setAddCode(undefined);
          setRequesting({ device, kind });
        }}
      />
      <RequestByCodeModal
        open={requestingByCode}
        onClose={() => setRequestingByCode(false)}
        onRequest={(device, kind) => {
          setRequestingByCode(false);
          setRequesting({ device, kind });
        }}
        onAdd={(code) => {
          setRequestingByCode(false);
          setAddCode(code);
          setAdding(true);
        }}
      />
      <RequestAccessModal target={requesting} onClose={() => setRequesting(null)} />
      <EditDeviceModal machine={editing} onClose={() => setEditing(null)} />
      <MoveGroupModal
        deviceIds={moving?.ids ?? null}
        initialGroupId={moving?.groupId}
        onClose={() => setMoving(null)}
        onMoved={() => setSelected([])}
      />
      <GroupsModal open={groupsOpen} onClose={() => setGroupsOpen(false)} />
      <DeviceDetailDrawer
        machine={detail}
        initialTab={detailTab}
        onClose={() => setDetail(null)}
        onEdit={(m) => {
          setDetail(null);
          setEditing(m);
        }}
      />
    </div>
  );
}
