import { CloseOutlined } from "@ant-design/icons";
import type { MapPoint } from "@keyway/shared";
import { Button, Card, Descriptions, Typography } from "antd";
import { ConnectButton } from "../../features/device/ConnectButton.tsx";
import { StateBadge } from "../../features/device/MachineParts.tsx";
import { offersScreen, ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";

const WAYS = ["gps", "base", "ip", "manual"] as const;
type Way = (typeof WAYS)[number];
const isWay = (value: string): value is Way => (WAYS as readonly string[]).includes(value);

/** The card of the device chosen on the map or in the list: where it is, its state, Connect. */
export function MapDeviceCard({
  point,
  connecting,
  onConnect,
  onClose,
}: {
  point: MapPoint;
  connecting: boolean;
  onConnect: (point: MapPoint) => void;
  onClose: () => void;
}) {
  const { t } = useLang();
  const located = point.lat !== null && point.lng !== null;
  return (
    <Card
      size="small"
      className="kw-map-card"
      data-testid="map-device-card"
      data-code={point.machine_code}
      title={
        <Typography.Text strong ellipsis title={point.machine_name}>
          {point.machine_name}
        </Typography.Text>
      }
      extra={
        <Button
          type="text"
          size="small"
          icon={<CloseOutlined />}
          aria-label={t("common.close")}
          onClick={onClose}
          data-testid="map-card-close"
        />
      }
      actions={[
        <ConnectButton
          key="connect"
          machine={point}
          onConnect={onConnect}
          loading={connecting}
          testId="map-connect"
          variant="button"
        />,
        ...(offersScreen(point)
          ? [
              <ScreenButton
                key="screen"
                machine={point}
                scope={point.eid === 0 ? {} : { eid: point.eid }}
                variant="button"
                testId="map-screen"
              />,
            ]
          : []),
      ]}
    >
      <Descriptions size="small" column={1} colon={false}>
        <Descriptions.Item label={t("portal.map.code")}>
          <Typography.Text copyable>{point.machine_code}</Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t("portal.map.state")}>
          <StateBadge machine={point} testId="map-card-state" />
        </Descriptions.Item>
        {point.type !== 0 && (
          <Descriptions.Item label={t("portal.map.list")}>
            {point.type === 2 ? t("portal.map.maintenanceList") : t("portal.map.enterpriseList")}
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t("portal.map.position")}>
          {located
            ? `${point.lat?.toFixed(5)}, ${point.lng?.toFixed(5)}`
            : t("portal.map.noPosition")}
        </Descriptions.Item>
        {point.address && (
          <Descriptions.Item label={t("portal.map.address")}>{point.address}</Descriptions.Item>
        )}
        {located && isWay(point.location_way) && (
          <Descriptions.Item label={t("portal.map.way")}>
            {t(`portal.map.ways.${point.location_way}`)}
          </Descriptions.Item>
        )}
      </Descriptions>
    </Card>
  );
}
