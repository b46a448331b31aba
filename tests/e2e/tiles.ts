import { createServer } from "node:http";
import { freePort } from "./browser.ts";

/** SVG tiles with a light grid and their coordinates. */
function tileSvg(z: string, x: string, y: string): string {
  const shade = (Number(x) + Number(y)) % 2 === 0 ? "#eef2ea" : "#e7ede2";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="${shade}"/><path d="M0 0H256V256" fill="none" stroke="#cfd8cc" stroke-width="2"/><path d="M0 128H256M128 0V256" stroke="#dde5d9" stroke-width="1"/><text x="8" y="20" font-family="sans-serif" font-size="11" fill="#9aa79a">${z}/${x}/${y}</text></svg>`;
}

/** z, x, y of an OpenStreetMap-style path, or of an AMap-style query under a {s} folder. */
function tileOf(url: string): { z: string; x: string; y: string; s?: string } | null {
  const osm = /^\/(\d+)\/(-?\d+)\/(-?\d+)\.svg$/.exec(url);
  if (osm) return { z: osm[1], x: osm[2], y: osm[3] };
  const amap = /^\/amap(\d)\/appmaptile\?(.*)$/.exec(url);
  if (!amap) return null;
  const query = new URLSearchParams(amap[2]);
  const [z, x, y] = ["z", "x", "y"].map((k) => query.get(k) ?? "");
  return /^\d+$/.test(z) && /^-?\d+$/.test(x) && /^-?\d+$/.test(y) ? { z, x, y, s: amap[1] } : null;
}

/**
 * A local tile server standing in for OpenStreetMap (no network in tests). While `up` is false
 * it fails like an unreachable server. `config` is what the platform needs to use it;
 * `amapConfig` the same tiles as AMap configures them (x/y/z in the query, {s} from
 * MAP_TILE_SUBDOMAINS, GCJ-02), with the {s} values asked for in `subdomainsSeen`.
 */
export async function startTileServer() {
  const port = await freePort();
  const state = { up: true };
  const subdomainsSeen = new Set<string>();
  const server = createServer((req, res) => {
    const tile = tileOf(req.url ?? "");
    if (!state.up || !tile) {
      res.writeHead(503).end();
      return;
    }
    if (tile.s) subdomainsSeen.add(tile.s);
    res
      .writeHead(200, { "content-type": "image/svg+xml", "cache-control": "no-store" })
      .end(tileSvg(tile.z, tile.x, tile.y));
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  return {
    config: {
      MAP_TILE_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.svg`,
      MAP_TILE_ATTRIBUTION: "Test tiles",
    },
    amapConfig: {
      MAP_TILE_URL: `http://127.0.0.1:${port}/amap{s}/appmaptile?lang=zh_cn&size=1&scale=1&style=8&x={x}&y={y}&z={z}`,
      MAP_TILE_SUBDOMAINS: "1234",
      MAP_TILE_CRS: "gcj02" as const,
      MAP_TILE_ATTRIBUTION: "Test tiles (GCJ-02)",
    },
    subdomainsSeen,
    set up(value: boolean) {
      state.up = value;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
