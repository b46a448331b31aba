/**
 * The img-src source the browser needs for the map tiles (helmet's CSP), from the tile URL
 * template: its origin, with a {s} subdomain placeholder as a wildcard.
 */
export function tileImageSource(template: string): string {
  const match = /^(https?:\/\/)([^/?#]+)/.exec(template);
  if (!match) return "";
  // A CSP wildcard stands only for whole leading labels: "webrd0{s}.is.autonavi.com" and
  // "t{s}.tianditu.gov.cn" become "*.is.autonavi.com" and "*.tianditu.gov.cn".
  const host = match[2].replace(/^[^.]*\{s\}[^.]*/, "*");
  return `${match[1]}${host}`;
}

/** MAP_TILE_SUBDOMAINS as Leaflet's list: "t0,t1" → ["t0", "t1"], "1234" → ["1", …, "4"]. */
export function tileSubdomains(value: string): string[] {
  return value.includes(",") ? value.split(",") : [...value];
}
