import { PlusOutlined } from "@ant-design/icons";
import type { EnterpriseDeviceType } from "@keyway/shared";
import { keepPreviousData, type UseQueryResult, useQuery } from "@tanstack/react-query";
import { Button, CapsuleTabs, List, PullToRefresh, SearchBar } from "antd-mobile";
import { type ReactNode, useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { devicesApi } from "../../api/devices.ts";
import { type EnterpriseDeviceQuery, enterprisesApi } from "../../api/enterprises.ts";
import { useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { useConnect } from "../../features/device/ConnectButton.tsx";
import { isOnline, withLiveStates } from "../../features/device/machine.ts";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { MOBILE, screenPath } from "../../paths.ts";
import { ContextPicker, useMobileContext } from "./ContextPicker.tsx";
import { ListState, MobileHeader, StateTag } from "./parts.tsx";
import { RequestSheet } from "./RequestSheet.tsx";

/**
 * The device list of the phone's context: the personal list, or an enterprise's enterprise
 * and maintenance devices (the desktop's /device?type=1|2 calls) with Connect on each.
 */
export function MobileDevicesPage() {
  const { current } = useMobileContext();
  if (current.eid === 0) return <PersonalDevices />;
  // The lists of the user's kinds of membership (an admin, or unknown kinds: both).
  const both = current.isAdmin === 1 || !current.kinds || current.kinds.length === 0;
  const types: EnterpriseDeviceType[] = [];
  if (both || current.kinds?.includes("member")) types.push(1);
  if (both || current.kinds?.includes("maintenance")) types.push(2);
  return <EnterpriseDevices key={current.eid} eid={current.eid} types={types} />;
}

/**
 * The personal device list on the phone (POST /machine/select, the desktop's call): name,
 * machine code, identity and the live online state (machineStates, polled like the desktop
 * list), search by name, alias or code; a tap opens the device. "+" (and, on an empty list,
 * a "Request access" button) asks for a visit or a bind of someone else's device by its
 * machine code alone, without the device password.
 */
function PersonalDevices() {
  const { t } = useLang();
  const navigate = useNavigate();
  const [search, setSearch] = useState("");
  const [requesting, setRequesting] = useState(false);
  const debounced = useDebounced(search.trim());
  const query = useMemo(() => (debounced ? { search: debounced } : {}), [debounced]);
  const devices = useQuery({
    queryKey: queryKeys.devices(query),
    queryFn: () => devicesApi.select(query),
    placeholderData: keepPreviousData,
  });
  const states = useLiveStates({ queryKey: queryKeys.deviceStates, enabled: devices.isSuccess });
  const list = useMemo(
    () => withLiveStates(devices.data?.list ?? [], states.data),
    [devices.data, states.data],
  );

  return (
    <div data-testid="m-devices">
      <MobileHeader
        title={<ContextPicker />}
        right={
          <button
            type="button"
            className="kwm-icon-button"
            aria-label={t("m.request.title")}
            onClick={() => setRequesting(true)}
            data-testid="m-request-open"
          >
            <PlusOutlined />
          </button>
        }
      />
      <DeviceListBody
        search={search}
        onSearch={setSearch}
        devices={devices}
        list={list}
        emptyText={debounced ? t("m.devices.noMatch") : t("m.devices.empty")}
        emptyAction={
          debounced ? undefined : (
            <Button
              block
              color="primary"
              fill="outline"
              onClick={() => setRequesting(true)}
              data-testid="m-devices-empty-request"
            >
              {t("access.byCode.button")}
            </Button>
          )
        }
        renderItem={(m) => (
          <List.Item
            key={m.machine_id}
            onClick={() => navigate(`${MOBILE.device}/${m.machine_id}`)}
            description={
              <span>
                {m.machine_code} · {t(`device.identity.${m.role}`)}
              </span>
            }
            extra={<StateTag machine={m} />}
            data-testid={`m-device-${m.machine_code}`}
          >
            {m.machine_name || m.machine_code}
          </List.Item>
        )}
      />
      <RequestSheet visible={requesting} onClose={() => setRequesting(false)} />
    </div>
  );
}

function EnterpriseDevices({ eid, types }: { eid: number; types: EnterpriseDeviceType[] }) {
  const { t } = useLang();
  const navigate = useNavigate();
  const [type, setType] = useState<EnterpriseDeviceType>(types[0] ?? 1);
  const [search, setSearch] = useState("");
  const debounced = useDebounced(search.trim());
  const query: EnterpriseDeviceQuery = { eid, type, search: debounced || undefined };
  const devices = useQuery({
    queryKey: queryKeys.enterpriseDevices(query),
    queryFn: () => enterprisesApi.deviceList(query),
    placeholderData: keepPreviousData,
  });
  const rows = devices.data?.list;
  const ids = useMemo(() => (rows ?? []).map((m) => m.machine_id), [rows]);
  const states = useLiveStates({
    queryKey: queryKeys.enterpriseStates(query),
    machineIds: ids,
    enabled: ids.length > 0,
  });
  const list = useMemo(() => withLiveStates(rows ?? [], states.data), [rows, states.data]);
  const { connect, isPending } = useConnect();

  return (
    <div data-testid="m-devices" data-eid={eid}>
      <MobileHeader title={<ContextPicker />} />
      <CapsuleTabs activeKey={String(type)} onChange={(key) => setType(key === "2" ? 2 : 1)}>
        {types.map((key) => (
          <CapsuleTabs.Tab
            key={String(key)}
            title={
              <span data-testid={`m-devices-type-${key}`}>
                {key === 1 ? t("m.context.enterpriseDevices") : t("m.context.maintenanceDevices")}
              </span>
            }
          />
        ))}
      </CapsuleTabs>
      <DeviceListBody
        search={search}
        onSearch={setSearch}
        devices={devices}
        list={list}
        emptyText={debounced ? t("m.devices.noMatch") : t("tv.empty")}
        listTestId={`m-devices-list-${type}`}
        renderItem={(m) => (
          <List.Item
            key={m.machine_id}
            description={
              <span>
                {m.machine_code} · <StateTag machine={m} />
              </span>
            }
            extra={
              <span className="kwm-row-actions">
                {m.screen === true && (
                  <Button
                    size="small"
                    fill="outline"
                    disabled={!isOnline(m)}
                    onClick={() => navigate(screenPath(m.machine_id, { eid }))}
                    data-testid="m-device-screen"
                  >
                    {t("device.screen.button")}
                  </Button>
                )}
                <Button
                  size="small"
                  color="primary"
                  fill="outline"
                  disabled={!isOnline(m)}
                  loading={isPending(m.machine_id)}
                  onClick={() => void connect(m, eid)}
                  data-testid="m-device-connect"
                >
                  {t("m.context.connect")}
                </Button>
              </span>
            }
            data-testid={`m-device-${m.machine_code}`}
          >
            {m.machine_name || m.machine_code}
          </List.Item>
        )}
      />
    </div>
  );
}

/** Search, pull to refresh, the loading / empty / error state and the list of either context. */
function DeviceListBody<M>({
  search,
  onSearch,
  devices,
  list,
  emptyText,
  emptyAction,
  listTestId,
  renderItem,
}: {
  search: string;
  onSearch: (value: string) => void;
  devices: UseQueryResult<{ total?: number }>;
  list: readonly M[];
  emptyText: string;
  /** Under the empty state of an unfiltered list: what to do first. */
  emptyAction?: ReactNode;
  listTestId?: string;
  renderItem: (machine: M) => ReactNode;
}) {
  const { t } = useLang();
  return (
    <>
      <div className="kwm-search">
        <SearchBar
          value={search}
          onChange={onSearch}
          placeholder={t("device.searchPlaceholder")}
          data-testid="m-device-search"
        />
      </div>
      <PullToRefresh onRefresh={async () => void (await devices.refetch())}>
        <ListState
          loading={devices.isPending}
          error={devices.error}
          empty={devices.isSuccess && list.length === 0}
          emptyText={emptyText}
          testId="m-devices"
        />
        {emptyAction && devices.isSuccess && list.length === 0 && (
          <div className="kwm-actions">{emptyAction}</div>
        )}
        {list.length > 0 && (
          <List
            header={t("device.total", { total: devices.data?.total ?? list.length })}
            data-testid={listTestId}
          >
            {list.map(renderItem)}
          </List>
        )}
      </PullToRefresh>
    </>
  );
}
