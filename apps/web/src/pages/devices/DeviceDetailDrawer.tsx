import { SafetyOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Drawer, Flex, Grid, Skeleton, Space, Tabs, Typography } from "antd";
import { useEffect, useState } from "react";
import { devicesApi } from "../../api/devices.ts";
import { useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConnectButton, useConnect } from "../../features/device/ConnectButton.tsx";
import { DeviceAlarms } from "../../features/device/DeviceAlarms.tsx";
import {
  DetailRetryAlert,
  MachineDescriptions,
  MachineDrawerTitle,
} from "../../features/device/MachineDescriptions.tsx";
import { IdentityTag, LastSeen, StateBadge } from "../../features/device/MachineParts.tsx";
import { withLiveState } from "../../features/device/machine.ts";
import { ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { AuthorityDrawer } from "../authority/AuthorityDrawer.tsx";
import { DeviceCameraAccount } from "../ezviz/DeviceCameraAccount.tsx";
import { DeviceIotCard } from "../iotCards/DeviceIotCard.tsx";
import { CloudSwitch } from "./CloudSwitch.tsx";
import { DeviceLocation } from "./DeviceLocation.tsx";
import { DeviceVisits } from "./DeviceVisits.tsx";
import { RemoteSettingsTab } from "./RemoteSettingsTab.tsx";

export type DetailTab = "info" | "alarms" | "location" | "visits" | "remote";

/**
 * Device detail (SPEC §2 "device detail with alarms, location and cloud switch"): live state
 * with "last seen" and the cloud switch on top, "Connect" in the header, then the tabs Info
 * (GET /device/v1/detail + /device/v1/user/role/info), Alarms, Location and — for the Akey and
 * Bkeys — Visits (the visit log) and Remote access (on-site consent, read-only WebSockets).
 * "Screen" beside "Connect" where the device's agent offers VNC. The list row is shown at once; the fresh detail replaces it
 * when it arrives.
 */
export function DeviceDetailDrawer(props: {
  machine: Machine | null;
  onClose: () => void;
  onEdit?: (machine: Machine) => void;
  /** The tab to open on (the new-alarm pop-up opens "alarms"). */
  initialTab?: DetailTab;
}) {
  const { t } = useLang();
  const id = props.machine?.machine_id ?? 0;
  const open = props.machine !== null;
  const [tab, setTab] = useState<DetailTab>(props.initialTab ?? "info");
  const [authorityOpen, setAuthorityOpen] = useState(false);
  // Under 768 px the actions would cover the device's name in the header: they wrap above
  // the body instead. Unknown (the first render, before the media queries answer) counts as
  // wide, so that a desktop never mounts the actions twice.
  const narrow = Grid.useBreakpoint().md === false;
  const initialTab = props.initialTab ?? "info";
  useEffect(() => {
    if (open && id > 0) setTab(initialTab);
  }, [open, id, initialTab]);
  const detail = useQuery({
    queryKey: queryKeys.deviceDetail(id),
    queryFn: () => devicesApi.detail(id),
    enabled: open && id > 0,
    meta: { silent: true },
  });
  const role = useQuery({
    queryKey: queryKeys.deviceRole(id),
    queryFn: () => devicesApi.roleInfo(id),
    enabled: open && id > 0,
    meta: { silent: true },
  });
  // The same polled query as the list (shared cache): state and last_seen.
  const states = useLiveStates({ queryKey: queryKeys.deviceStates, enabled: open && id > 0 });
  const live = states.data?.get(id);
  const fresh = detail.data ?? props.machine;
  const machine = fresh && withLiveState(fresh, states.data);
  const identity = role.data?.role ?? machine?.role;
  const isAkey = identity === "akey";
  const canWrite = identity === "akey" || identity === "bkey";
  // The authority centre is the Akey's and the Bkeys' (SPEC §6).
  const manages = role.data?.role === "akey" || role.data?.role === "bkey";
  const { connect, isPending } = useConnect();

  const actions = machine && (
    <Space wrap>
      <ConnectButton
        machine={machine}
        onConnect={(m) => void connect(m)}
        loading={isPending(machine.machine_id)}
        variant="button"
        testId="device-detail-connect"
      />
      <ScreenButton
        // The list row says it too, should the detail not carry it.
        machine={{ ...machine, screen: machine.screen ?? props.machine?.screen }}
        variant="button"
        testId="device-detail-screen"
      />
      {manages && (
        <Button
          icon={<SafetyOutlined />}
          onClick={() => setAuthorityOpen(true)}
          data-testid="device-authority-open"
        >
          {t("authority.open")}
        </Button>
      )}
      {props.onEdit && (
        <Button onClick={() => props.onEdit?.(machine)} data-testid="device-detail-edit">
          {t("common.edit")}
        </Button>
      )}
    </Space>
  );
  return (
    <Drawer
      open={open}
      onClose={props.onClose}
      afterOpenChange={(visible) => {
        if (!visible) {
          setTab("info");
          setAuthorityOpen(false);
        }
      }}
      // The visit log has more columns than the other tabs; "Screen" widens the header.
      size={tab === "visits" ? 900 : props.machine?.screen ? 680 : 600}
      destroyOnHidden
      title={machine && <MachineDrawerTitle machine={machine} />}
      extra={!narrow && actions}
      data-testid="device-detail-drawer"
    >
      {machine && (
        <Flex vertical gap={12}>
          {narrow && actions}
          {detail.isError && (
            <DetailRetryAlert message={detail.error.message} onRetry={() => detail.refetch()} />
          )}
          <Flex
            wrap
            gap={12}
            align="center"
            justify="space-between"
            className="kw-detail-status"
            data-testid="device-detail-status"
          >
            <Flex gap={12} align="center" wrap>
              <StateBadge machine={machine} testId="device-state-badge" />
              <LastSeen value={live?.last_seen} />
            </Flex>
            <Flex gap={8} align="center">
              <Typography.Text type="secondary">{t("device.cloud.label")}</Typography.Text>
              {detail.isPending && !detail.data ? (
                <Skeleton.Button size="small" active />
              ) : (
                <CloudSwitch machine={machine} isAkey={isAkey} />
              )}
            </Flex>
          </Flex>
          <Flex gap={8} align="center" wrap data-testid="device-detail-ezviz">
            <Typography.Text type="secondary">{t("ezviz.deviceLabel")}</Typography.Text>
            <DeviceCameraAccount machineId={machine.machine_id} isAkey={isAkey} />
          </Flex>
          {machine.iccid_num && (
            <Flex gap={8} align="center" wrap data-testid="device-detail-iot-card">
              <Typography.Text type="secondary">{t("iotCard.deviceCard")}</Typography.Text>
              <DeviceIotCard iccid={machine.iccid_num} />
            </Flex>
          )}
          <Tabs
            activeKey={tab}
            onChange={(key) => setTab(key as DetailTab)}
            items={[
              {
                key: "info",
                label: <span data-testid="device-detail-tab-info">{t("device.tabInfo")}</span>,
                children: (
                  <MachineDescriptions
                    machine={machine}
                    personal
                    identity={
                      role.isPending ? (
                        <Skeleton.Input size="small" active />
                      ) : role.data ? (
                        <span data-testid="device-detail-identity">
                          <IdentityTag identity={role.data.role} />
                        </span>
                      ) : (
                        "-"
                      )
                    }
                  />
                ),
              },
              {
                key: "alarms",
                label: <span data-testid="device-detail-tab-alarms">{t("device.tabAlarms")}</span>,
                children: <DeviceAlarms machineCode={machine.machine_code} />,
              },
              {
                key: "location",
                label: (
                  <span data-testid="device-detail-tab-location">{t("device.tabLocation")}</span>
                ),
                children: <DeviceLocation machineId={machine.machine_id} canWrite={canWrite} />,
              },
              ...(manages
                ? [
                    {
                      key: "visits",
                      label: (
                        <span data-testid="device-detail-tab-visits">{t("device.visits.tab")}</span>
                      ),
                      children: <DeviceVisits machineId={machine.machine_id} />,
                    },
                    {
                      key: "remote",
                      label: (
                        <span data-testid="device-detail-tab-remote">{t("device.remote.tab")}</span>
                      ),
                      children: <RemoteSettingsTab machineId={machine.machine_id} />,
                    },
                  ]
                : []),
            ]}
          />
        </Flex>
      )}
      {machine && manages && (
        <AuthorityDrawer
          open={authorityOpen}
          machine={machine}
          identity={role.data?.role === "akey" ? "akey" : "bkey"}
          onClose={() => setAuthorityOpen(false)}
        />
      )}
    </Drawer>
  );
}
