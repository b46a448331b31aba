import {
  CompressOutlined,
  DisconnectOutlined,
  EnvironmentOutlined,
  ExpandOutlined,
  EyeInvisibleOutlined,
  ReloadOutlined,
} from "@ant-design/icons";
import type { MapPoint } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Alert, Button, Flex, Result, Segmented, Skeleton, Tag, Tooltip, Typography } from "antd";
import { useMemo, useState } from "react";
import { Link, Navigate, useNavigate } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { type MapQuery, portalApi, portalKeys, useClientConfig } from "../../api/portal.ts";
import { useConnect } from "../../features/device/ConnectButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { PATHS } from "../../paths.ts";
import { type EnterpriseInfo, selectCurrentContext, useAppStore } from "../../store/app.ts";
import { DeviceMap, isLocated } from "./DeviceMap.tsx";
import { MapDeviceCard } from "./MapDeviceCard.tsx";
import { MapDeviceList } from "./MapDeviceList.tsx";
import "./cloudMap.css";

/** Positions and states are read again now and then (devices move, go on- and offline). */
const REFRESH_MS = 30_000;

type ListFilter = "all" | 1 | 2;

/** The enterprise lists the viewer sees (admins both): the filter's choices. */
function listChoices(context: EnterpriseInfo): (1 | 2)[] {
  if (context.eid === 0) return [];
  if (context.isAdmin === 1) return [1, 2];
  const kinds = context.kinds ?? [];
  return ([1, 2] as const).filter((type) => kinds.includes(type === 1 ? "member" : "maintenance"));
}

/** /cloudmap under the main layout. */
export function CloudMapPage() {
  return <CloudMap fullScreen={false} />;
}

/** /mapcanvas: the same map full screen, without navigation and header (SPEC §2). */
export function MapCanvasPage() {
  if (!hasToken()) return <Navigate to={PATHS.login} replace />;
  return <CloudMap fullScreen />;
}

function CloudMap({ fullScreen }: { fullScreen: boolean }) {
  const { t } = useLang();
  const user = useUserInfo();
  const navigate = useNavigate();
  const context = useAppStore(selectCurrentContext);
  const choices = listChoices(context);
  const [filter, setFilter] = useState<ListFilter>("all");
  const type = filter !== "all" && choices.includes(filter) ? filter : undefined;
  const query: MapQuery = { eid: context.eid, type };
  const hidden = user.data?.hideMap === 1;
  // Decision 69: no points while the map is hidden, so none before the server's answer says
  // it is shown (the remembered user info may be stale: the switch may have moved elsewhere).
  const flagKnown = user.data !== undefined && !user.isPlaceholderData;
  const config = useClientConfig();
  const points = useQuery({
    queryKey: portalKeys.mapPoints(query),
    queryFn: () => portalApi.mapPoints(query),
    enabled: flagKnown && !hidden,
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  const [search, setSearch] = useState("");
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [tilesFailed, setTilesFailed] = useState(false);
  const { connect, isPending } = useConnect();

  const list = points.data?.list ?? [];
  const located = useMemo(() => list.filter(isLocated), [list]);
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    if (!needle) return list;
    return list.filter(
      (p) =>
        p.machine_name.toLowerCase().includes(needle) ||
        p.machine_code.toLowerCase().includes(needle),
    );
  }, [list, search]);
  const selected = list.find((p) => p.machine_id === selectedId) ?? null;
  const online = list.filter((p) => p.online).length;
  // No tiles (unreachable, or no client config to name them): the bundled world outline.
  const offline = tilesFailed || config.isError;

  if (hidden) {
    return (
      <Result
        icon={<EyeInvisibleOutlined />}
        title={t("portal.map.hiddenTitle")}
        subTitle={t("portal.map.hiddenHint")}
        data-testid="map-hidden"
        extra={
          <Link to={PATHS.safety}>
            <Button type="primary">{t("portal.map.toSafety")}</Button>
          </Link>
        }
      />
    );
  }

  const onConnect = (point: MapPoint) =>
    void connect(point, point.eid === 0 ? undefined : point.eid);
  const title =
    context.eid === 0 ? t("portal.map.title") : `${context.name} · ${t("portal.map.title")}`;

  return (
    <div
      className={`kw-map-page${fullScreen ? " kw-map-page-full" : ""}`}
      data-testid="cloud-map-page"
      data-fullscreen={fullScreen ? 1 : 0}
    >
      <Flex className="kw-map-head" align="center" justify="space-between" wrap gap={12}>
        <Flex align="center" gap={12} wrap>
          <Typography.Title level={4} className="kw-map-title">
            <EnvironmentOutlined /> {title}
          </Typography.Title>
          {points.data && (
            <Flex gap={6} wrap data-testid="map-counts">
              <Tag>{t("portal.map.total", { count: points.data.total })}</Tag>
              <Tag color="blue">{t("portal.map.located", { count: points.data.located })}</Tag>
              <Tag color="green">{t("portal.map.onlineCount", { count: online })}</Tag>
            </Flex>
          )}
        </Flex>
        <Flex align="center" gap={8} wrap>
          {choices.length > 1 && (
            <Segmented<ListFilter>
              value={filter}
              onChange={(value) => {
                setFilter(value);
                setSelectedId(null);
              }}
              options={[
                { value: "all", label: t("portal.map.all") },
                { value: 1, label: t("portal.map.enterpriseList") },
                { value: 2, label: t("portal.map.maintenanceList") },
              ]}
              data-testid="map-filter"
            />
          )}
          <Tooltip title={t("portal.map.refresh")}>
            <Button
              icon={<ReloadOutlined />}
              loading={points.isFetching}
              onClick={() => void points.refetch()}
              aria-label={t("portal.map.refresh")}
            />
          </Tooltip>
          {fullScreen ? (
            <Button
              icon={<CompressOutlined />}
              onClick={() => navigate(PATHS.cloudMap)}
              data-testid="map-exit-fullscreen"
            >
              {t("portal.map.exitFullScreen")}
            </Button>
          ) : (
            <Button
              icon={<ExpandOutlined />}
              onClick={() => navigate(PATHS.mapCanvas)}
              data-testid="map-fullscreen"
            >
              {t("portal.map.fullScreen")}
            </Button>
          )}
        </Flex>
      </Flex>
      {offline && (
        <Alert
          type="warning"
          showIcon
          className="kw-map-alert"
          title={t("portal.map.tilesFailed")}
          data-testid="map-tiles-failed"
        />
      )}
      <div className="kw-map-body">
        <MapDeviceList
          search={search}
          onSearch={setSearch}
          loading={points.isPending}
          error={points.isError ? points.error.message : null}
          onRetry={() => void points.refetch()}
          total={list.length}
          shown={shown}
          selectedId={selectedId}
          onSelect={setSelectedId}
        />
        <section className="kw-map-area">
          {config.data || config.isError ? (
            <DeviceMap
              points={located}
              tiles={config.data ?? null}
              offline={offline}
              selectedId={selectedId}
              onSelect={setSelectedId}
              onTilesFailed={() => setTilesFailed(true)}
              sizeKey={fullScreen ? "full" : "layout"}
            />
          ) : (
            <div className="kw-map-canvas kw-map-placeholder">
              {config.isPending && <Skeleton.Node active />}
            </div>
          )}
          {offline && (
            <div className="kw-map-offline-note" data-testid="map-offline-note">
              <DisconnectOutlined /> {t("portal.map.offlineBasemap")}
            </div>
          )}
          {selected && (
            <MapDeviceCard
              point={selected}
              connecting={isPending(selected.machine_id)}
              onConnect={onConnect}
              onClose={() => setSelectedId(null)}
            />
          )}
        </section>
      </div>
    </div>
  );
}
