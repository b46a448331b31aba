import { ClockCircleOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Drawer, Flex, Skeleton } from "antd";
import { devicesApi } from "../../api/devices.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import {
  DetailRetryAlert,
  MachineDescriptions,
  MachineDrawerTitle,
} from "./MachineDescriptions.tsx";
import { IdentityTag } from "./MachineParts.tsx";

/**
 * Device detail (GET /device/v1/detail + /device/v1/user/role/info). The list row is shown
 * at once; the fresh detail replaces it when it arrives.
 */
export function DeviceDetailDrawer(props: {
  machine: Machine | null;
  onClose: () => void;
  onEdit?: (machine: Machine) => void;
}) {
  const { t } = useLang();
  const id = props.machine?.machine_id ?? 0;
  const open = props.machine !== null;
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
  const machine = detail.data ?? props.machine;

  return (
    <Drawer
      open={open}
      onClose={props.onClose}
      size={520}
      destroyOnHidden
      title={machine && <MachineDrawerTitle machine={machine} />}
      extra={
        machine &&
        props.onEdit && (
          <Button onClick={() => props.onEdit?.(machine)} data-testid="device-detail-edit">
            {t("common.edit")}
          </Button>
        )
      }
      data-testid="device-detail-drawer"
    >
      {machine && (
        <Flex vertical gap={16}>
          {detail.isError && (
            <DetailRetryAlert message={detail.error.message} onRetry={() => detail.refetch()} />
          )}
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
          {/*
           * Reserved: device state, alarms, location and the cloud switch (SPEC §2 "device
           * detail with alarms, location and cloud switch") come with their own endpoints.
           */}
          <div className="kw-reserved" data-testid="device-detail-reserved">
            <ClockCircleOutlined />
            <span>{t("device.detailLater")}</span>
          </div>
        </Flex>
      )}
    </Drawer>
  );
}
