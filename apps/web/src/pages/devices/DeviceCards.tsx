import {
  DeleteOutlined,
  DesktopOutlined,
  EditOutlined,
  EyeOutlined,
  FolderOutlined,
  LoadingOutlined,
  LoginOutlined,
} from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { Card, Pagination, Skeleton, Tooltip, Typography } from "antd";
import { useState } from "react";
import { IdentityTag, MachineIcon, StateBadge } from "../../features/device/MachineParts.tsx";
import { isOnline } from "../../features/device/machine.ts";
import { offersScreen } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { screenPath } from "../../paths.ts";

interface Props {
  machines: readonly Machine[];
  loading: boolean;
  onDetail: (machine: Machine) => void;
  /** "Connect" (offline devices: disabled with the reason). */
  onConnect: (machine: Machine) => void;
  isConnecting: (machineId: number) => boolean;
  onEdit: (machine: Machine) => void;
  onMove: (machine: Machine) => void;
  onDelete: (machine: Machine) => void;
}

/** Cards per page: a grid never renders more than this many (lists run to 5000). */
export const CARD_PAGE_SIZES = [24, 48, 96] as const;

/** The card view of the personal device list: a responsive grid, a page at a time. */
export function DeviceCards({
  machines,
  loading,
  onDetail,
  onConnect,
  isConnecting,
  onEdit,
  onMove,
  onDelete,
}: Props) {
  const { t } = useLang();
  const [paging, setPaging] = useState({ page: 1, size: CARD_PAGE_SIZES[0] as number });
  // A shorter list (filter, delete) keeps the page in range.
  const lastPage = Math.max(1, Math.ceil(machines.length / paging.size));
  const page = Math.min(paging.page, lastPage);
  const shown = machines.slice((page - 1) * paging.size, page * paging.size);
  if (loading && machines.length === 0) {
    return (
      <div className="kw-device-grid">
        {[0, 1, 2, 3].map((i) => (
          <Card key={i} className="kw-device-card">
            <Skeleton active avatar paragraph={{ rows: 2 }} />
          </Card>
        ))}
      </div>
    );
  }
  return (
    <>
      <div className="kw-device-grid" data-testid="device-cards">
        {shown.map((m) => (
          <Card
            key={m.machine_id}
            className="kw-device-card"
            hoverable
            data-testid={`device-card-${m.machine_code}`}
            onClick={() => onDetail(m)}
            actions={[
              <ConnectAction
                key="connect"
                machine={m}
                connecting={isConnecting(m.machine_id)}
                onConnect={onConnect}
              />,
              ...(offersScreen(m) ? [<ScreenAction key="screen" machine={m} />] : []),
              <Tooltip key="detail" title={t("device.detail")}>
                <EyeOutlined
                  onClick={(e) => {
                    e.stopPropagation();
                    onDetail(m);
                  }}
                  data-testid={`device-detail-${m.machine_id}`}
                />
              </Tooltip>,
              <Tooltip key="edit" title={t("common.edit")}>
                <EditOutlined
                  onClick={(e) => {
                    e.stopPropagation();
                    onEdit(m);
                  }}
                  data-testid={`device-edit-${m.machine_id}`}
                />
              </Tooltip>,
              <Tooltip key="move" title={t("group.move")}>
                <FolderOutlined
                  onClick={(e) => {
                    e.stopPropagation();
                    onMove(m);
                  }}
                  data-testid={`device-move-${m.machine_id}`}
                />
              </Tooltip>,
              <Tooltip key="delete" title={t("common.delete")}>
                <DeleteOutlined
                  className="kw-danger-icon"
                  onClick={(e) => {
                    e.stopPropagation();
                    onDelete(m);
                  }}
                  data-testid={`device-delete-${m.machine_id}`}
                />
              </Tooltip>,
            ]}
          >
            <div className="kw-device-card-head">
              <MachineIcon machine={m} size={44} />
              <div className="kw-device-card-title">
                <Typography.Text strong ellipsis={{ tooltip: m.machine_name }}>
                  {m.machine_name || m.machine_code}
                </Typography.Text>
                <Typography.Text type="secondary" ellipsis className="kw-small">
                  {m.alias || m.group_name || t("group.none")}
                </Typography.Text>
              </div>
            </div>
            <div className="kw-device-card-meta">
              <StateBadge machine={m} />
              <IdentityTag identity={m.role} />
            </div>
            <Typography.Text className="kw-code kw-small" type="secondary">
              {m.machine_code}
            </Typography.Text>
          </Card>
        ))}
      </div>
      {machines.length > CARD_PAGE_SIZES[0] && (
        <Pagination
          style={{ marginTop: 16 }}
          align="end"
          current={page}
          pageSize={paging.size}
          total={machines.length}
          pageSizeOptions={CARD_PAGE_SIZES.map(String)}
          showSizeChanger
          showTotal={(total) => t("device.total", { total })}
          onChange={(next, size) => setPaging({ page: size === paging.size ? next : 1, size })}
          data-testid="device-cards-pager"
        />
      )}
    </>
  );
}

function ConnectAction({
  machine,
  connecting,
  onConnect,
}: {
  machine: Machine;
  connecting: boolean;
  onConnect: (machine: Machine) => void;
}) {
  const { t } = useLang();
  const online = isOnline(machine);
  const Icon = connecting ? LoadingOutlined : LoginOutlined;
  return (
    <Tooltip title={online ? t("device.connect.button") : t("device.connect.offlineHint")}>
      <Icon
        className={online ? "kw-primary-icon" : "kw-disabled-icon"}
        aria-disabled={!online}
        onClick={(e) => {
          e.stopPropagation();
          if (online && !connecting) onConnect(machine);
        }}
        data-testid={`device-connect-${machine.machine_id}`}
        data-online={online ? 1 : 0}
      />
    </Tooltip>
  );
}

/** "Screen" on a card: the device's screen viewer in a new tab (a link, like the list's). */
function ScreenAction({ machine }: { machine: Machine }) {
  const { t } = useLang();
  if (!isOnline(machine)) {
    return (
      <Tooltip title={t("device.connect.offlineHint")}>
        <DesktopOutlined
          className="kw-disabled-icon"
          aria-disabled
          onClick={(e) => e.stopPropagation()}
          data-testid={`device-screen-${machine.machine_id}`}
          data-online={0}
        />
      </Tooltip>
    );
  }
  return (
    <Tooltip title={t("device.screen.button")}>
      <a
        href={screenPath(machine.machine_id)}
        target="_blank"
        rel="noopener"
        aria-label={t("device.screen.button")}
        onClick={(e) => e.stopPropagation()}
        data-testid={`device-screen-${machine.machine_id}`}
        data-online={1}
      >
        <DesktopOutlined className="kw-primary-icon" />
      </a>
    </Tooltip>
  );
}
