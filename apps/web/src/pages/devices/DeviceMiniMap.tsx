import { EnvironmentOutlined, ExportOutlined, WarningOutlined } from "@ant-design/icons";
import { Flex, Skeleton, Typography } from "antd";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { useEffect, useRef, useState } from "react";
import { useClientConfig } from "../../api/portal.ts";
import { formatLatLng, openStreetMapUrl, projectLatLng } from "../../features/device/machine.ts";
import { useLang } from "../../i18n/index.ts";
import {
  addWatchedTiles,
  type TileConfig,
  tileConfigKey,
  toTileLatLng,
} from "../../lib/map/tiles.ts";
import "./DeviceMiniMap.css";

/** Street level: the plant and the roads around it. */
const ZOOM = 14;

/**
 * The device's position on a small Leaflet map with the cloud map's tiles (MAP_TILE_URL from
 * the client config). When no tile can be loaded (offline, tile server down or blocked) it
 * falls back to a plain lat/lng world grid that needs no network, and says so.
 */
export function DeviceMiniMap({ lat, lng }: { lat: number; lng: number }) {
  const { t } = useLang();
  const config = useClientConfig();
  const [tilesFailed, setTilesFailed] = useState(false);
  const grid = tilesFailed || config.isError;
  const mode = grid ? "grid" : config.data ? "tiles" : "pending";
  return (
    <div className="kw-mini-map" data-testid="device-location-map" data-mode={mode}>
      {grid ? (
        <>
          <GridMap lat={lat} lng={lng} />
          <Typography.Text
            type="warning"
            className="kw-small kw-mini-map-note"
            data-testid="device-location-tiles-failed"
          >
            <WarningOutlined /> {t("device.location.tilesFailed")}
          </Typography.Text>
        </>
      ) : config.data ? (
        <TileMap lat={lat} lng={lng} tiles={config.data} onFailed={() => setTilesFailed(true)} />
      ) : (
        <div className="kw-mini-map-canvas kw-mini-map-placeholder">
          <Skeleton.Node active />
        </div>
      )}
      <Flex justify="space-between" align="center" className="kw-mini-map-foot">
        <Typography.Text type="secondary" className="kw-small">
          <EnvironmentOutlined /> {formatLatLng(lat, lng)}
        </Typography.Text>
        <Typography.Link
          href={openStreetMapUrl(lat, lng)}
          target="_blank"
          rel="noopener noreferrer"
          className="kw-small"
          data-testid="device-location-osm"
        >
          {t("device.location.openMap")} <ExportOutlined />
        </Typography.Link>
      </Flex>
    </div>
  );
}

const PIN_SVG =
  '<svg viewBox="0 0 26 34" width="26" height="34" aria-hidden="true"><path d="M13 33C13 33 2 19.6 2 12.5a11 11 0 0 1 22 0C24 19.6 13 33 13 33z" fill="#ff4d4f" stroke="#fff" stroke-width="2"/><circle cx="13" cy="12.5" r="4.2" fill="#fff"/></svg>';

function TileMap(props: { lat: number; lng: number; tiles: TileConfig; onFailed: () => void }) {
  const { t } = useLang();
  const { lat, lng, tiles } = props;
  const tilesKey = tileConfigKey(tiles);
  const boxRef = useRef<HTMLDivElement>(null);
  const mapRef = useRef<L.Map | null>(null);
  const markerRef = useRef<L.Marker | null>(null);
  const [tilesLoaded, setTilesLoaded] = useState(false);
  // Read by the map set-up, which runs again only for a new tile server.
  const latest = useRef({ lat, lng, tiles, onFailed: props.onFailed, label: "" });
  latest.current = {
    lat,
    lng,
    tiles,
    onFailed: props.onFailed,
    label: `${t("device.location.tileMapLabel")}: ${formatLatLng(lat, lng)}`,
  };

  useEffect(() => {
    // A new tile configuration (its key) sets the map up anew.
    void tilesKey;
    const box = boxRef.current;
    if (!box) return;
    const { lat: lat0, lng: lng0, label, tiles: config } = latest.current;
    // WGS-84 shifted onto GCJ-02 tiles (MAP_TILE_CRS), as on the cloud map.
    const at = toTileLatLng(config.mapTileCrs, lat0, lng0);
    const map = L.map(box, {
      center: at,
      zoom: ZOOM,
      // Inside a scrolling drawer the wheel scrolls the drawer; +/- and dragging still work.
      scrollWheelZoom: false,
    });
    const watched = addWatchedTiles(map, config, {
      onLoaded: () => setTilesLoaded(true),
      onFailed: () => latest.current.onFailed(),
    });
    markerRef.current = L.marker(at, {
      icon: L.divIcon({
        className: "kw-mini-map-marker",
        html: `<span data-testid="device-location-pin">${PIN_SVG}</span>`,
        iconSize: [26, 34],
        iconAnchor: [13, 33],
      }),
      title: label,
      alt: label,
      keyboard: false,
    }).addTo(map);
    mapRef.current = map;
    // The drawer opens with an animation: Leaflet measures again when the box settles.
    const resize = new ResizeObserver(() => map.invalidateSize());
    resize.observe(box);
    return () => {
      watched.stop();
      resize.disconnect();
      map.remove();
      mapRef.current = null;
      markerRef.current = null;
    };
  }, [tilesKey]);

  // A new fix moves the pin and the view, keeping the zoom the user chose.
  const crs = tiles.mapTileCrs;
  useEffect(() => {
    const at = toTileLatLng(crs, lat, lng);
    markerRef.current?.setLatLng(at);
    mapRef.current?.panTo(at, { animate: false });
  }, [crs, lat, lng]);

  return (
    <div
      ref={boxRef}
      className="kw-mini-map-canvas"
      role="img"
      aria-label={latest.current.label}
      data-testid="device-location-leaflet"
      data-tiles={tilesLoaded ? "loaded" : "loading"}
    />
  );
}

const GRID_W = 360;
const GRID_H = 180;

/** The point on a plain lat/lng grid (every 30°, equator and prime meridian stronger). */
function GridMap({ lat, lng }: { lat: number; lng: number }) {
  const { t } = useLang();
  const { x, y } = projectLatLng(lat, lng, GRID_W, GRID_H);
  const meridians = Array.from({ length: 11 }, (_, i) => (i + 1) * 30);
  const parallels = Array.from({ length: 5 }, (_, i) => (i + 1) * 30);
  return (
    <svg
      viewBox={`0 0 ${GRID_W} ${GRID_H}`}
      role="img"
      aria-label={`${t("device.location.mapLabel")}: ${formatLatLng(lat, lng)}`}
      preserveAspectRatio="xMidYMid meet"
      data-testid="device-location-grid"
    >
      <rect x={0} y={0} width={GRID_W} height={GRID_H} className="kw-mini-map-sea" />
      {meridians.map((mx) => (
        <line
          key={`m${mx}`}
          x1={mx}
          y1={0}
          x2={mx}
          y2={GRID_H}
          className={mx === 180 ? "kw-mini-map-axis" : "kw-mini-map-grid"}
        />
      ))}
      {parallels.map((py) => (
        <line
          key={`p${py}`}
          x1={0}
          y1={py}
          x2={GRID_W}
          y2={py}
          className={py === 90 ? "kw-mini-map-axis" : "kw-mini-map-grid"}
        />
      ))}
      <line x1={x} y1={0} x2={x} y2={GRID_H} className="kw-mini-map-cross" />
      <line x1={0} y1={y} x2={GRID_W} y2={y} className="kw-mini-map-cross" />
      <circle cx={x} cy={y} r={9} className="kw-mini-map-halo" />
      <path
        d={`M ${x} ${y} l -5 -9 a 5.8 5.8 0 1 1 10 0 z`}
        className="kw-mini-map-pin"
        data-testid="device-location-pin"
      />
      <circle cx={x} cy={y - 11.5} r={2} className="kw-mini-map-pin-dot" />
    </svg>
  );
}
