import type { Machine } from "@keyway/shared";
import { Button, Space, type TableProps } from "antd";
import { ConnectButton } from "../../features/device/ConnectButton.tsx";
import { IdentityTag } from "../../features/device/MachineParts.tsx";
import { useGroupColumn, useMachineColumns } from "../../features/device/machineColumns.tsx";
import { ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";

/** What a row's action buttons do. */
export interface DeviceActions {
  onConnect: (machine: Machine) => void;
  connecting: (machineId: number) => boolean;
  onDetail: (machine: Machine) => void;
  onEdit: (machine: Machine) => void;
  onMove: (machine: Machine) => void;
  onDelete: (machine: Machine) => void;
}

/** The personal list's columns: the shared machine columns, group, remark, identity, actions. */
export function useDeviceColumns(actions: DeviceActions): TableProps<Machine>["columns"] {
  const { t } = useLang();
  const { onConnect, connecting } = actions;
  const baseColumns = useMachineColumns({ name: 175, code: 170, state: 90 });
  const groupColumn = useGroupColumn(90);
  return [
    ...baseColumns,
    groupColumn,
    {
      title: t("device.remark"),
      dataIndex: "machine_remark",
      width: 100,
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
      width: 350,
      fixed: "right",
      render: (_: unknown, m) => (
        <Space size={0} onClick={(e) => e.stopPropagation()}>
          <ConnectButton
            machine={m}
            onConnect={onConnect}
            loading={connecting(m.machine_id)}
            testId={`device-connect-${m.machine_id}`}
          />
          <ScreenButton machine={m} testId={`device-screen-${m.machine_id}`} />
          <Button
            type="link"
            size="small"
            onClick={() => actions.onDetail(m)}
            data-testid={`device-detail-${m.machine_id}`}
          >
            {t("device.detail")}
          </Button>
          <Button
            type="link"
            size="small"
            onClick={() => actions.onEdit(m)}
            data-testid={`device-edit-${m.machine_id}`}
          >
            {t("common.edit")}
          </Button>
          <Button
            type="link"
            size="small"
            onClick={() => actions.onMove(m)}
            data-testid={`device-move-${m.machine_id}`}
          >
            {t("group.moveShort")}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            onClick={() => actions.onDelete(m)}
            data-testid={`device-delete-${m.machine_id}`}
          >
            {t("common.delete")}
          </Button>
        </Space>
      ),
    },
  ];
}
