import type { Machine } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Card, Empty, Flex, Result, Typography } from "antd";
import { useEffect, useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { devicesApi } from "../../api/devices.ts";
import { useGroups, useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { useConnect } from "../../features/device/ConnectButton.tsx";
import { ListPager } from "../../features/device/ListPager.tsx";
import { toIds, withLiveStates } from "../../features/device/machine.ts";
import { ALL_GROUPS, useGroupFilterOptions } from "../../features/device/machineColumns.tsx";
import { useLang } from "../../i18n/index.ts";
import { safeStorage } from "../../lib/storage.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { enterpriseDevicePath, PATHS } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { AddDeviceModal } from "./AddDeviceModal.tsx";
import { DeviceCards } from "./DeviceCards.tsx";
import { type DetailTab, DeviceDetailDrawer } from "./DeviceDetailDrawer.tsx";
import { DeviceTable } from "./DeviceTable.tsx";
import { DeviceToolbar, type View } from "./DeviceToolbar.tsx";
import { useDeviceColumns } from "./deviceColumns.tsx";
import { EditDeviceModal } from "./EditDeviceModal.tsx";
import { GroupsModal } from "./GroupsModal.tsx";
import { MoveGroupModal } from "./MoveGroupModal.tsx";
import { NoDevices } from "./NoDevices.tsx";
import { type AccessTarget, RequestAccessModal } from "./RequestAccessModal.tsx";
import { RequestByCodeModal } from "./RequestByCodeModal.tsx";
import { useDeleteDevice } from "./useDeleteDevice.tsx";
import { useDetailJump } from "./useDetailJump.ts";

const VIEW_KEY = "keyway.deviceView";

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

  const term = useDebounced(search.trim());
  const groupId = group === ALL_GROUPS ? undefined : Number(group);
  // The server's page; a new filter starts again at the first.
  const [paged, setPaged] = useState({ page: 1, term, group });
  const page = paged.term === term && paged.group === group ? paged.page : 1;
  const query = { groupId, search: term || undefined, page };
  const devices = useQuery({
    queryKey: queryKeys.devices(query),
    queryFn: () => devicesApi.select(query),
    placeholderData: keepPreviousData,
  });
  const groups = useGroups();

  // SPEC §2 live online state: the badges follow machineStates (every 10 s, tab visible).
  const states = useLiveStates({ queryKey: queryKeys.deviceStates, enabled: devices.isSuccess });
  const list = useMemo(
    () => withLiveStates(devices.data?.list ?? [], states.data),
    [devices.data, states.data],
  );
  const filtered = term !== "" || groupId !== undefined;
  const firstLoad = devices.isPending;
  const noDevices = !firstLoad && !devices.isError && list.length === 0 && !filtered;

  useDetailJump(devices.data?.list, devices.isSuccess, setDetail, setDetailTab);

  const openDetail = (machine: Machine) => {
    setDetailTab("info");
    setDetail(machine);
  };

  // Keep the selection to rows that are still listed.
  const visibleIds = useMemo(() => new Set(list.map((m) => m.machine_id)), [list]);
  const selection = selected.filter((k) => visibleIds.has(Number(k)));

  const { connect, isPending: connecting } = useConnect();
  const onConnect = (machine: Machine) => void connect(machine);

  const confirmDelete = useDeleteDevice((machine) => {
    if (detail?.machine_id === machine.machine_id) setDetail(null);
  });

  const openMove = (machine: Machine) =>
    setMoving({ ids: [machine.machine_id], groupId: machine.groups ?? 0 });

  const groupOptions = useGroupFilterOptions(groups.data?.list);
  const columns = useDeviceColumns({
    onConnect,
    connecting,
    onDetail: openDetail,
    onEdit: setEditing,
    onMove: openMove,
    onDelete: confirmDelete,
  });

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
    body = <NoDevices onAdd={() => setAdding(true)} onRequest={() => setRequestingByCode(true)} />;
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
      <DeviceTable
        columns={columns}
        list={list}
        loading={devices.isFetching}
        selection={selection}
        onSelect={setSelected}
      />
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
        <DeviceToolbar
          search={search}
          onSearch={setSearch}
          group={group}
          onGroup={setGroup}
          groupOptions={groupOptions}
          groupsLoading={groups.isPending}
          view={view}
          onView={(next) => {
            setView(next);
            safeStorage.set(VIEW_KEY, next);
          }}
          selected={view === "table" ? selection.length : 0}
          onMoveSelected={() => setMoving({ ids: toIds(selection), groupId: 0 })}
          onManageGroups={() => setGroupsOpen(true)}
          onRequestByCode={() => setRequestingByCode(true)}
          onAdd={() => setAdding(true)}
        />
        {body}
        {devices.data && !noDevices && (
          <ListPager
            page={page}
            total={devices.data.total}
            onChange={(next) => setPaged({ page: next, term, group })}
            testId="device-pager"
          />
        )}
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
