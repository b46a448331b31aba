import { createServer } from "node:http";
import { freePort } from "./browser.ts";

/** SVG tiles with a light grid and their coordinates. */
function tileSvg(z: string, x: string, y: string): string {
  const shade = (Number(x) + Number(y)) % 2 === 0 ? "#eef2ea" : "#e7ede2";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="${shade}"/><path d="M0 0H256V256" fill="none" stroke="#cfd8cc" stroke-width="2"/><path d="M0 128H256M128 0V256" stroke="#dde5d9" stroke-width="1"/><text x="8" y="20" font-family="sans-serif" font-size="11" fill="#9aa79a">${z}/${x}/${y}</text></svg>`;
}

/**
 * A local tile server standing in for OpenStreetMap (no network in tests). While `up` is false
 * it fails like an unreachable server. `config` is what the platform needs to use it.
 */
export async function startTileServer() {
  const port = await freePort();
  const state = { up: true };
  const server = createServer((req, res) => {
    const match = /^\/(\d+)\/(-?\d+)\/(-?\d+)\.svg$/.exec(req.url ?? "");
    if (!state.up || !match) {
      res.writeHead(503).end();
      return;
    }
    res
      .writeHead(200, { "content-type": "image/svg+xml", "cache-control": "no-store" })
      .end(tileSvg(match[1], match[2], match[3]));
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  return {
    config: {
      MAP_TILE_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.svg`,
      MAP_TILE_ATTRIBUTION: "Test tiles",
    },
    set up(value: boolean) {
      state.up = value;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
