import type { MapPoint } from "@keyway/shared";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
// Registers L.markerClusterGroup on the global L that leaflet sets.
import "leaflet.markercluster";
import "leaflet.markercluster/dist/MarkerCluster.css";
import { useEffect, useRef, useState } from "react";
import {
  addWatchedTiles,
  type TileConfig,
  tileConfigKey,
  toTileLatLng,
} from "../../lib/map/tiles.ts";
import { loadWorldLand } from "../../lib/map/worldLand.ts";

export type LocatedPoint = MapPoint & { lat: number; lng: number };

export const isLocated = (p: MapPoint): p is LocatedPoint => p.lat !== null && p.lng !== null;

interface Props {
  points: readonly LocatedPoint[];
  /** The configured tiles; null when the client config cannot be read (offline basemap). */
  tiles: TileConfig | null;
  /** Draw the bundled world outline instead of tiles (they failed, or there are none). */
  offline: boolean;
  selectedId: number | null;
  onSelect: (id: number) => void;
  /** Called once when tiles fail to load (offline, tile server down or blocked). */
  onTilesFailed: () => void;
  /** Changes when the map's box changed size (full screen): Leaflet measures again. */
  sizeKey?: string;
}

/** China's centre: where an empty map opens. */
const DEFAULT_CENTER: L.LatLngTuple = [35.0, 105.0];
/** Fitting the devices: street level at most on tiles; coasts in view on the 1:110m outline. */
const FIT_MAX_ZOOM = 12;
const OFFLINE_FIT_MAX_ZOOM = 5;
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

function markerIcon(point: LocatedPoint, selected: boolean): L.DivIcon {
  const state = point.online ? "online" : "offline";
  return L.divIcon({
    className: `kw-map-marker kw-map-marker-${state}${selected ? " kw-map-marker-selected" : ""}`,
    html: `<span data-testid="map-marker" data-code="${escapeHtml(point.machine_code)}" data-online="${point.online ? 1 : 0}"></span>`,
    iconSize: selected ? [24, 24] : [18, 18],
  });
}

/** A cluster shows its count, green when a device in it is online, grey when none is. */
function clusterIcon(cluster: L.MarkerCluster): L.DivIcon {
  const markers = cluster.getAllChildMarkers();
  const online = markers.filter((m) => (m.options as { online?: boolean }).online).length;
  const count = cluster.getChildCount();
  const size = count < 10 ? 34 : count < 100 ? 40 : 48;
  return L.divIcon({
    className: `kw-map-cluster ${online > 0 ? "kw-map-cluster-online" : "kw-map-cluster-offline"}`,
    html: `<span data-testid="map-cluster" data-count="${count}" data-online="${online}">${count}</span>`,
    iconSize: [size, size],
  });
}

type Basemap = "loading" | "tiles" | "offline";

/** Offline, the note stands at the top of the map: no point fitted under it. */
const fitOptions = (offline: boolean): L.FitBoundsOptions => ({
  paddingTopLeft: [40, offline ? 64 : 40],
  paddingBottomRight: [40, 40],
  maxZoom: offline ? OFFLINE_FIT_MAX_ZOOM : FIT_MAX_ZOOM,
  // Leaflet drops a new view asked for during a zoom animation: a refit must not be lost.
  animate: false,
});

/**
 * Leaflet with clustered markers coloured by online state. Leaflet is driven directly (not
 * through react-leaflet): one cluster layer refilled when the points change is what keeps
 * thousands of markers fast. Without tiles the same markers stand on the bundled world land
 * outline (an SVG layer), so the devices and their states stay on the map.
 */
export function DeviceMap({
  points,
  tiles,
  offline,
  selectedId,
  onSelect,
  onTilesFailed,
  sizeKey,
}: Props) {
  const boxRef = useRef<HTMLDivElement>(null);
  const mapRef = useRef<L.Map | null>(null);
  const clusterRef = useRef<L.MarkerClusterGroup | null>(null);
  const markersRef = useRef(new Map<number, L.Marker>());
  const fittedRef = useRef(false);
  /** The last automatic fit, done again when the box resizes until the user moved the map. */
  const refitRef = useRef<(() => void) | null>(null);
  const touchedRef = useRef(false);
  const tileLayersRef = useRef<L.TileLayer[]>([]);
  const [basemap, setBasemap] = useState<Basemap>("loading");
  const [landDrawn, setLandDrawn] = useState(false);
  const handlers = useRef({ onSelect, onTilesFailed });
  handlers.current = { onSelect, onTilesFailed };
  // Read when markers are rebuilt; changing it only restyles them (effect below).
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;

  // Device positions are WGS-84; GCJ-02 tiles need them shifted, the world outline does not.
  const crs = offline ? "wgs84" : tiles?.mapTileCrs;
  const tilesKey = tiles ? tileConfigKey(tiles) : "";
  const tilesRef = useRef(tiles);
  tilesRef.current = tiles;
  const offlineRef = useRef(offline);
  offlineRef.current = offline;
  const pointsRef = useRef(points);
  pointsRef.current = points;

  useEffect(() => {
    // A new tile configuration (its key) sets the map up anew.
    void tilesKey;
    const box = boxRef.current;
    if (!box) return;
    const map = L.map(box, {
      center: DEFAULT_CENTER,
      zoom: 4,
      worldCopyJump: true,
      // Set here, not only by the tiles: without a tile layer (offline) Leaflet's would be
      // Infinity, and the cluster layer loops over every zoom level up to it.
      minZoom: 1,
      maxZoom: 18,
    });
    const config = tilesRef.current;
    let stopWatching = () => {};
    if (config) {
      const watched = addWatchedTiles(map, config, {
        onLoaded: () => setBasemap((b) => (b === "loading" ? "tiles" : b)),
        onFailed: () => handlers.current.onTilesFailed(),
      });
      tileLayersRef.current = watched.layers;
      stopWatching = watched.stop;
    }
    const cluster = L.markerClusterGroup({
      chunkedLoading: true,
      showCoverageOnHover: false,
      maxClusterRadius: 60,
      iconCreateFunction: clusterIcon,
    });
    map.addLayer(cluster);
    mapRef.current = map;
    clusterRef.current = cluster;
    fittedRef.current = false;
    setBasemap("loading");
    // The box changes size without a new layout (the banner above appears when the tiles
    // fail, the window turns): Leaflet measures again, or points fall outside what it shows.
    const resize = new ResizeObserver(() => {
      map.invalidateSize();
      if (!touchedRef.current) refitRef.current?.();
    });
    resize.observe(box);
    const touched = () => {
      touchedRef.current = true;
    };
    for (const type of ["pointerdown", "wheel", "keydown"]) box.addEventListener(type, touched);
    return () => {
      for (const type of ["pointerdown", "wheel", "keydown"])
        box.removeEventListener(type, touched);
      resize.disconnect();
      refitRef.current = null;
      touchedRef.current = false;
      stopWatching();
      map.remove();
      mapRef.current = null;
      clusterRef.current = null;
      tileLayersRef.current = [];
      markersRef.current.clear();
    };
  }, [tilesKey]);

  // Offline: the tiles make way for the world's land, loaded from this server on first need.
  useEffect(() => {
    // Again on a new map (tilesKey), which starts with tiles.
    void tilesKey;
    const map = mapRef.current;
    if (!offline || !map) return;
    for (const layer of tileLayersRef.current) layer.remove();
    tileLayersRef.current = [];
    setBasemap("offline");
    // Zoomed in, the coarse outline would show no coast at all (one can zoom in again): the
    // devices fitted anew, on the outline's positions (WGS-84), at a coarser zoom.
    const located = pointsRef.current;
    if (fittedRef.current && located.length > 0) {
      const bounds = L.latLngBounds(located.map((p) => [p.lat, p.lng]));
      refitRef.current = () => {
        // The banner above came with this render: the box is smaller already.
        map.invalidateSize();
        map.fitBounds(bounds, fitOptions(true));
      };
      refitRef.current();
    } else if (map.getZoom() > OFFLINE_FIT_MAX_ZOOM) {
      map.setZoom(OFFLINE_FIT_MAX_ZOOM);
    }
    let land: L.GeoJSON | null = null;
    let gone = false;
    loadWorldLand()
      .then((collection) => {
        if (gone) return;
        land = L.geoJSON(collection, {
          interactive: false,
          style: { className: "kw-map-land" },
          attribution: "Natural Earth",
        });
        land.addTo(map);
        land.bringToBack();
        setLandDrawn(true);
      })
      .catch(() => {
        // The note still says the offline basemap is meant; the markers stay usable.
      });
    return () => {
      gone = true;
      land?.remove();
      setLandDrawn(false);
    };
  }, [offline, tilesKey]);

  // Markers: rebuilt when the points change (polling), the view fitted once.
  useEffect(() => {
    // Again on a new map (tilesKey), whose cluster layer starts empty.
    void tilesKey;
    const map = mapRef.current;
    const cluster = clusterRef.current;
    if (!map || !cluster) return;
    cluster.clearLayers();
    markersRef.current.clear();
    const at = (p: LocatedPoint) => toTileLatLng(crs, p.lat, p.lng);
    const markers = points.map((p) => {
      const marker = L.marker(at(p), {
        icon: markerIcon(p, p.machine_id === selectedRef.current),
        title: p.machine_name,
        keyboard: true,
        // Read by the cluster icon.
        online: p.online,
      } as L.MarkerOptions);
      marker.on("click", () => handlers.current.onSelect(p.machine_id));
      markersRef.current.set(p.machine_id, marker);
      return marker;
    });
    cluster.addLayers(markers);
    if (!fittedRef.current && points.length > 0) {
      fittedRef.current = true;
      const bounds = L.latLngBounds(points.map(at));
      const options = fitOptions(offlineRef.current);
      refitRef.current = () => {
        // The counts above came with the points: the box may be smaller already.
        map.invalidateSize();
        map.fitBounds(bounds, options);
      };
      refitRef.current();
    }
  }, [points, crs, tilesKey]);

  // The selected device: its marker enlarged and brought into view (out of its cluster).
  useEffect(() => {
    const cluster = clusterRef.current;
    for (const [id, marker] of markersRef.current) {
      const point = points.find((p) => p.machine_id === id);
      if (point) marker.setIcon(markerIcon(point, id === selectedId));
    }
    const marker = selectedId !== null ? markersRef.current.get(selectedId) : undefined;
    if (cluster && marker) {
      // The view is the user's choice now: no fit over it.
      touchedRef.current = true;
      cluster.zoomToShowLayer(marker);
    }
  }, [selectedId, points]);

  useEffect(() => {
    // sizeKey names the layout the map is in.
    void sizeKey;
    mapRef.current?.invalidateSize();
  }, [sizeKey]);

  return (
    <div
      ref={boxRef}
      className={`kw-map-canvas${basemap === "offline" ? " kw-map-canvas-offline" : ""}`}
      data-testid="cloud-map"
      data-basemap={basemap}
      data-land={landDrawn ? "drawn" : "none"}
      data-crs={crs ?? "wgs84"}
    />
  );
}
