import { PlusOutlined } from "@ant-design/icons";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { List, PullToRefresh, SearchBar } from "antd-mobile";
import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { devicesApi } from "../../api/devices.ts";
import { useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { MOBILE } from "../../paths.ts";
import { withLiveStates } from "../devices/machine.ts";
import { ListState, MobileHeader, StateTag } from "./parts.tsx";
import { RequestSheet } from "./RequestSheet.tsx";

/**
 * The personal device list on the phone (POST /machine/select, the desktop's call): name,
 * machine code, identity and the live online state (machineStates, polled like the desktop
 * list), search by name, alias or code; a tap opens the device. "+" asks for a visit or a
 * bind of someone else's device by its machine code.
 */
export function MobileDevicesPage() {
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
      <div className="kwm-search">
        <SearchBar
          value={search}
          onChange={setSearch}
          placeholder={t("device.searchPlaceholder")}
          data-testid="m-device-search"
        />
      </div>
      <PullToRefresh onRefresh={async () => void (await devices.refetch())}>
        <ListState
          loading={devices.isPending}
          error={devices.error}
          empty={devices.isSuccess && list.length === 0}
          emptyText={debounced ? t("m.devices.noMatch") : t("m.devices.empty")}
          testId="m-devices"
        />
        {list.length > 0 && (
          <List header={t("device.total", { total: devices.data?.total ?? list.length })}>
            {list.map((m) => (
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
            ))}
          </List>
        )}
      </PullToRefresh>
      <RequestSheet visible={requesting} onClose={() => setRequesting(false)} />
    </div>
  );
}
