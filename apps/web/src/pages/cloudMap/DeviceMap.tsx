import type { MapPoint } from "@keyway/shared";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
// Registers L.markerClusterGroup on the global L that leaflet sets.
import "leaflet.markercluster";
import "leaflet.markercluster/dist/MarkerCluster.css";
import { useEffect, useRef } from "react";

export type LocatedPoint = MapPoint & { lat: number; lng: number };

interface Props {
  points: readonly LocatedPoint[];
  tileUrl: string;
  attribution: string;
  selectedId: number | null;
  onSelect: (id: number) => void;
  /** Called once when tiles fail to load (offline, tile server down or blocked). */
  onTilesFailed: () => void;
  /** Changes when the map's box changed size (full screen): Leaflet measures again. */
  sizeKey?: string;
}

/** China's centre: where an empty map opens. */
const DEFAULT_CENTER: L.LatLngTuple = [35.0, 105.0];
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

/**
 * Leaflet with clustered markers coloured by online state. Leaflet is driven directly (not
 * through react-leaflet): one cluster layer refilled when the points change is what keeps
 * thousands of markers fast.
 */
export function DeviceMap({
  points,
  tileUrl,
  attribution,
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
  const handlers = useRef({ onSelect, onTilesFailed });
  handlers.current = { onSelect, onTilesFailed };
  // Read when markers are rebuilt; changing it only restyles them (effect below).
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    const map = L.map(box, { center: DEFAULT_CENTER, zoom: 4, worldCopyJump: true });
    let failed = false;
    L.tileLayer(tileUrl, { attribution, maxZoom: 18 })
      .on("tileerror", () => {
        if (failed) return;
        failed = true;
        handlers.current.onTilesFailed();
      })
      .addTo(map);
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
    return () => {
      map.remove();
      mapRef.current = null;
      clusterRef.current = null;
      markersRef.current.clear();
    };
  }, [tileUrl, attribution]);

  // Markers: rebuilt when the points change (polling), the view fitted once.
  useEffect(() => {
    const map = mapRef.current;
    const cluster = clusterRef.current;
    if (!map || !cluster) return;
    cluster.clearLayers();
    markersRef.current.clear();
    const markers = points.map((p) => {
      const marker = L.marker([p.lat, p.lng], {
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
      map.fitBounds(L.latLngBounds(points.map((p) => [p.lat, p.lng])), {
        padding: [40, 40],
        maxZoom: 12,
      });
    }
  }, [points]);

  // The selected device: its marker enlarged and brought into view (out of its cluster).
  useEffect(() => {
    const cluster = clusterRef.current;
    for (const [id, marker] of markersRef.current) {
      const point = points.find((p) => p.machine_id === id);
      if (point) marker.setIcon(markerIcon(point, id === selectedId));
    }
    const marker = selectedId !== null ? markersRef.current.get(selectedId) : undefined;
    if (cluster && marker) cluster.zoomToShowLayer(marker);
  }, [selectedId, points]);

  useEffect(() => {
    // sizeKey names the layout the map is in.
    void sizeKey;
    mapRef.current?.invalidateSize();
  }, [sizeKey]);

  return <div ref={boxRef} className="kw-map-canvas" data-testid="cloud-map" />;
}
