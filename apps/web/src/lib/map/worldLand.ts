import type { FeatureCollection, Geometry } from "geojson";

let land: Promise<FeatureCollection<Geometry>> | null = null;

/**
 * The world's land at 1:110m (Natural Earth via world-atlas, ~55 kB, ~20 kB gzipped) as
 * GeoJSON: the offline basemap, drawn when no tile server can be reached. Imported on first
 * use only, so it is in no page's bundle but the map's, and fetched from this server (no
 * network beyond it). Land only, no borders: no disputed boundary is drawn.
 */
export function loadWorldLand(): Promise<FeatureCollection<Geometry>> {
  land ??= Promise.all([import("world-atlas/land-110m.json"), import("topojson-client")])
    .then(([atlas, topojson]) => {
      // The JSON module's inferred type is far too wide for topojson's own; it is a Topology.
      const topology = (atlas.default ?? atlas) as unknown as Parameters<
        typeof topojson.feature
      >[0];
      const collection = topojson.feature(topology, topology.objects.land);
      return (
        collection.type === "FeatureCollection"
          ? collection
          : { type: "FeatureCollection", features: [collection] }
      ) as FeatureCollection<Geometry>;
    })
    .catch((error: unknown) => {
      // A failed chunk load (the server restarted with a new build) may be tried again.
      land = null;
      throw error;
    });
  return land;
}
