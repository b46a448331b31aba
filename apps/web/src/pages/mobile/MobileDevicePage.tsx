import { DesktopOutlined, LoginOutlined } from "@ant-design/icons";
import type { ScanCodeResult } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, List, NoticeBar } from "antd-mobile";
import { useMemo, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { alarmsApi } from "../../api/alarms.ts";
import { devicesApi } from "../../api/devices.ts";
import { useLiveStates } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { useConnect } from "../../features/device/ConnectButton.tsx";
import { isOnline, withLiveState } from "../../features/device/machine.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { MOBILE, screenPath } from "../../paths.ts";
import { AlarmItem } from "./AlarmItem.tsx";
import { MobileRemoteSettings } from "./MobileRemoteSettings.tsx";
import { ListState, MobileHeader, StateTag } from "./parts.tsx";
import { RequestSheet } from "./RequestSheet.tsx";

/**
 * One device on the phone (GET /device/v1/detail): its facts and live state, Connect (the
 * desktop's connect flow: the visit URL opens in a new tab), Screen where its agent offers
 * VNC (the viewer in this tab: touch drives the pointer), its remote-access settings for its
 * Akey and Bkeys, a visit or bind request for a
 * user who is not its Akey / Bkey, and its latest alarms with Confirm.
 */
export function MobileDevicePage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const valid = Number.isInteger(id) && id > 0;
  const [requesting, setRequesting] = useState(false);
  const { connect, isPending } = useConnect();
  const detail = useQuery({
    queryKey: queryKeys.deviceDetail(id),
    queryFn: () => devicesApi.detail(id),
    enabled: valid,
  });
  const states = useLiveStates({ queryKey: queryKeys.deviceStates, enabled: detail.isSuccess });
  const machine = detail.data ? withLiveState(detail.data, states.data) : undefined;
  const code = machine?.machine_code ?? "";
  const alarms = useQuery({
    queryKey: queryKeys.deviceAlarms(code, 1),
    queryFn: () => alarmsApi.deviceAlarms({ deviceCode: code }, 1),
    enabled: code !== "",
  });
  const asRequest = useMemo<ScanCodeResult | undefined>(
    () =>
      machine && {
        machine_id: machine.machine_id,
        machine_code: machine.machine_code,
        role: machine.role,
        blacklisted: false,
        has_akey: true,
        check_type: machine.check_type,
        cloud_service: machine.cloud_service,
      },
    [machine],
  );

  const manager = machine?.role === "akey" || machine?.role === "bkey";
  const online = machine ? isOnline(machine) : false;
  return (
    <div data-testid="m-device">
      <MobileHeader
        title={machine?.machine_name || machine?.machine_code || t("device.detail")}
        back={() => navigate(MOBILE.root)}
      />
      <ListState
        loading={valid && detail.isPending}
        error={detail.error}
        empty={!valid}
        emptyText={t("m.device.notFound")}
        testId="m-device"
      />
      {machine && (
        <>
          <List mode="card" header={t("device.detail")}>
            <List.Item extra={<StateTag machine={machine} />}>{t("device.state")}</List.Item>
            <List.Item extra={<span data-testid="m-device-code">{machine.machine_code}</span>}>
              {t("device.code")}
            </List.Item>
            <List.Item extra={t(`device.identity.${machine.role}`)}>
              {t("device.identityLabel")}
            </List.Item>
            {machine.model && <List.Item extra={machine.model}>{t("device.model")}</List.Item>}
            {machine.group_name && (
              <List.Item extra={machine.group_name}>{t("device.group")}</List.Item>
            )}
            {machine.machine_remark && (
              <List.Item extra={machine.machine_remark}>{t("device.remark")}</List.Item>
            )}
            <List.Item extra={formatDateTime(machine.created_at)}>{t("device.created")}</List.Item>
          </List>
          <div className="kwm-actions">
            {!online && <NoticeBar content={t("device.connect.offlineHint")} color="alert" wrap />}
            <Button
              block
              color="primary"
              size="large"
              disabled={!online}
              loading={isPending(machine.machine_id)}
              onClick={() => void connect(machine)}
              data-testid="m-connect"
              data-online={online ? 1 : 0}
            >
              <LoginOutlined /> {t("device.connect.button")}
            </Button>
            {machine.screen === true && (
              <Button
                block
                size="large"
                disabled={!online}
                onClick={() => navigate(screenPath(machine.machine_id))}
                data-testid="m-screen"
                data-online={online ? 1 : 0}
              >
                <DesktopOutlined /> {t("device.screen.button")}
              </Button>
            )}
            {!manager && (
              <Button
                block
                size="large"
                onClick={() => setRequesting(true)}
                data-testid="m-device-request"
              >
                {t("m.device.requestAgain")}
              </Button>
            )}
          </div>
          {manager && <MobileRemoteSettings machineId={machine.machine_id} />}
          <List mode="card" header={t("m.device.alarms")} data-testid="m-device-alarms">
            {alarms.data?.list.map((a) => (
              <AlarmItem
                key={a.id}
                alarm={a}
                eid={0}
                canConfirm={alarms.data?.rights?.confirm ?? false}
                showDevice={false}
              />
            ))}
            {alarms.isSuccess && alarms.data.list.length === 0 && (
              <List.Item data-testid="m-device-alarms-empty">{t("m.device.noAlarms")}</List.Item>
            )}
            {alarms.isPending && code !== "" && <List.Item>{t("common.loading")}</List.Item>}
          </List>
        </>
      )}
      <RequestSheet visible={requesting} onClose={() => setRequesting(false)} device={asRequest} />
    </div>
  );
}
