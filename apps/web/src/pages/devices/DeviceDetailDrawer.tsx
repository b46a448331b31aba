import { ClockCircleOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Descriptions, Drawer, Flex, Skeleton, Space, Typography } from "antd";
import { devicesApi } from "../../api/devices.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { IdentityTag, MachineCode, MachineIcon, StateBadge } from "./MachineParts.tsx";

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
      title={
        machine && (
          <Space size={10}>
            <MachineIcon machine={machine} size={32} />
            <span>{machine.machine_name || machine.machine_code}</span>
          </Space>
        )
      }
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
            <Alert
              type="warning"
              showIcon
              title={detail.error.message}
              action={
                <Button size="small" onClick={() => detail.refetch()}>
                  {t("common.retry")}
                </Button>
              }
            />
          )}
          <Descriptions
            column={1}
            size="small"
            bordered
            styles={{ label: { width: 140 } }}
            items={[
              {
                key: "code",
                label: t("device.code"),
                children: <MachineCode code={machine.machine_code} copyable />,
              },
              {
                key: "state",
                label: t("device.state"),
                children: <StateBadge machine={machine} />,
              },
              {
                key: "identity",
                label: t("device.identityLabel"),
                children: role.isPending ? (
                  <Skeleton.Input size="small" active />
                ) : role.data ? (
                  <span data-testid="device-detail-identity">
                    <IdentityTag identity={role.data.role} />
                  </span>
                ) : (
                  "-"
                ),
              },
              { key: "alias", label: t("device.alias"), children: machine.alias || "-" },
              { key: "model", label: t("device.model"), children: machine.model || "-" },
              { key: "version", label: t("device.version"), children: machine.version || "-" },
              { key: "ip", label: t("device.ip"), children: machine.ip || "-" },
              {
                key: "group",
                label: t("device.group"),
                children: machine.group_name || t("group.none"),
              },
              {
                key: "remark",
                label: t("device.remark"),
                children: machine.machine_remark ? (
                  <Typography.Paragraph className="kw-pre">
                    {machine.machine_remark}
                  </Typography.Paragraph>
                ) : (
                  "-"
                ),
              },
              {
                key: "created",
                label: t("device.created"),
                children: formatDateTime(machine.created_at),
              },
            ]}
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
