import { SearchOutlined } from "@ant-design/icons";
import type { MapPoint } from "@keyway/shared";
import { Badge, Empty, Flex, Input, List, Skeleton, Typography } from "antd";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { isLocated } from "./DeviceMap.tsx";

/** The list beside the map: search by name or code; a tap selects the device on the map. */
export function MapDeviceList({
  search,
  onSearch,
  loading,
  error,
  onRetry,
  total,
  shown,
  selectedId,
  onSelect,
}: {
  search: string;
  onSearch: (value: string) => void;
  loading: boolean;
  /** The list could not be read: why. */
  error: string | null;
  onRetry: () => void;
  /** Devices before the search (none at all: the hint to locate some). */
  total: number;
  shown: MapPoint[];
  selectedId: number | null;
  onSelect: (machineId: number) => void;
}) {
  const { t } = useLang();
  return (
    <aside className="kw-map-list" data-testid="map-device-list">
      <Input
        allowClear
        prefix={<SearchOutlined />}
        placeholder={t("portal.map.search")}
        value={search}
        onChange={(e) => onSearch(e.target.value)}
        data-testid="map-search"
      />
      <div className="kw-map-list-scroll">
        {loading ? (
          <Skeleton active paragraph={{ rows: 6 }} />
        ) : (
          <List<MapPoint>
            size="small"
            dataSource={shown}
            locale={{
              emptyText:
                error !== null ? (
                  <ListEmpty error={error} onRetry={onRetry} description="" />
                ) : total === 0 ? (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={
                      <>
                        <div>{t("portal.map.empty")}</div>
                        <Typography.Text type="secondary">
                          {t("portal.map.emptyHint")}
                        </Typography.Text>
                      </>
                    }
                  />
                ) : (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={t("portal.map.noMatch")}
                  />
                ),
            }}
            renderItem={(p) => (
              <List.Item
                className={`kw-map-item${p.machine_id === selectedId ? " kw-map-item-selected" : ""}`}
                onClick={() => onSelect(p.machine_id)}
                data-testid="map-list-item"
                data-code={p.machine_code}
              >
                <Flex vertical gap={2} className="kw-map-item-body">
                  <Flex justify="space-between" align="center" gap={8}>
                    <Typography.Text strong ellipsis title={p.machine_name}>
                      {p.machine_name}
                    </Typography.Text>
                    <Badge status={p.online ? "success" : "default"} />
                  </Flex>
                  <Typography.Text type="secondary" className="kw-map-item-meta" ellipsis>
                    {p.machine_code}
                    {" · "}
                    {isLocated(p)
                      ? p.address || `${p.lat.toFixed(3)}, ${p.lng.toFixed(3)}`
                      : t("portal.map.noPosition")}
                  </Typography.Text>
                </Flex>
              </List.Item>
            )}
          />
        )}
      </div>
    </aside>
  );
}
