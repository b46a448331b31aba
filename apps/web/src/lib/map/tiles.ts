import type { ClientConfig } from "@keyway/shared";
import L from "leaflet";
import { wgs84ToGcj02 } from "./gcj02.ts";

/**
 * A tile server that never answers (blocked, not refused) fires no error: with no tile after
 * this long the map counts as unavailable too.
 */
export const FIRST_TILE_TIMEOUT_MS = 10_000;

export type TileConfig = Pick<
  ClientConfig,
  "mapTileUrl" | "mapTileAttribution" | "mapTileSubdomains" | "mapTileOverlayUrl" | "mapTileCrs"
>;

/** What a tile configuration is keyed by: the map is set up again only when it changes. */
export const tileConfigKey = (config: TileConfig) =>
  [
    config.mapTileUrl,
    config.mapTileAttribution,
    config.mapTileSubdomains.join(","),
    config.mapTileOverlayUrl ?? "",
    config.mapTileCrs,
  ].join("\n");

/**
 * Where a WGS-84 position (devices report and store WGS-84) is drawn on these tiles: shifted
 * into GCJ-02 on AMap-style tiles, which would otherwise put it 300–500 m off in China.
 */
export function toTileLatLng(
  crs: TileConfig["mapTileCrs"] | undefined,
  lat: number,
  lng: number,
): L.LatLngTuple {
  if (crs !== "gcj02") return [lat, lng];
  const shifted = wgs84ToGcj02(lat, lng);
  return [shifted.lat, shifted.lng];
}

/**
 * The configured tiles (and the label layer over them, Tianditu's cva_w) on a map, watched for
 * whether they can be shown at all: `onLoaded` after the first base tile, `onFailed` once when
 * a tile fails before any loaded or none loaded within the timeout (offline, tile server down
 * or blocked). One failing tile after others loaded is a gap, not an unusable map. Returns the
 * layers and a stop function that clears the timer.
 */
export function addWatchedTiles(
  map: L.Map,
  config: TileConfig,
  handlers: { onLoaded?: () => void; onFailed: () => void },
  timeoutMs = FIRST_TILE_TIMEOUT_MS,
): { layers: L.TileLayer[]; stop: () => void } {
  let loaded = false;
  let failed = false;
  const fail = () => {
    if (loaded || failed) return;
    failed = true;
    clearTimeout(timer);
    handlers.onFailed();
  };
  const timer = setTimeout(fail, timeoutMs);
  const options: L.TileLayerOptions = {
    maxZoom: 18,
    subdomains: config.mapTileSubdomains.length > 0 ? config.mapTileSubdomains : "abc",
  };
  const base = L.tileLayer(config.mapTileUrl, {
    ...options,
    attribution: config.mapTileAttribution,
  })
    .on("tileload", () => {
      if (loaded || failed) return;
      loaded = true;
      clearTimeout(timer);
      handlers.onLoaded?.();
    })
    .on("tileerror", fail)
    .addTo(map);
  const layers = [base];
  if (config.mapTileOverlayUrl) {
    // Labels only: their failing alone leaves a usable map, so they are not watched.
    layers.push(L.tileLayer(config.mapTileOverlayUrl, options).addTo(map));
  }
  return { layers, stop: () => clearTimeout(timer) };
}
