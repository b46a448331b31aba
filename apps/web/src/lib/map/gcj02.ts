/**
 * WGS-84 → GCJ-02 ("Mars coordinates"), the datum mainland Chinese maps (AMap, Tencent, Google
 * China) draw their tiles in by law. It is the well-known public approximation (as in
 * eviltransform): accurate to about a metre, and the identity outside China, where those maps
 * use WGS-84 too.
 */

/** Krasovsky 1940's semi-major axis and eccentricity², which GCJ-02's formula is built on. */
const A = 6378245.0;
const EE = 0.006693421622965943;

/** The rough box GCJ-02 applies in (the formula's own bound; Taiwan, Japan's west are inside). */
export function outOfChina(lat: number, lng: number): boolean {
  return lng < 72.004 || lng > 137.8347 || lat < 0.8293 || lat > 55.8271;
}

function shift(x: number, y: number): { lat: number; lng: number } {
  const xy = x * y;
  const absX = Math.sqrt(Math.abs(x));
  const xPi = x * Math.PI;
  const yPi = y * Math.PI;
  const d = 20 * Math.sin(6 * xPi) + 20 * Math.sin(2 * xPi);
  let lat = d + 20 * Math.sin(yPi) + 40 * Math.sin(yPi / 3);
  let lng = d + 20 * Math.sin(xPi) + 40 * Math.sin(xPi / 3);
  lat += 160 * Math.sin(yPi / 12) + 320 * Math.sin(yPi / 30);
  lng += 150 * Math.sin(xPi / 12) + 300 * Math.sin(xPi / 30);
  lat = (lat * 2) / 3 - 100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * xy + 0.2 * absX;
  lng = (lng * 2) / 3 + 300 + x + 2 * y + 0.1 * x * x + 0.1 * xy + 0.1 * absX;
  return { lat, lng };
}

export function wgs84ToGcj02(lat: number, lng: number): { lat: number; lng: number } {
  if (outOfChina(lat, lng)) return { lat, lng };
  const d = shift(lng - 105, lat - 35);
  const radLat = (lat / 180) * Math.PI;
  const sin = Math.sin(radLat);
  const magic = 1 - EE * sin * sin;
  const sqrtMagic = Math.sqrt(magic);
  return {
    lat: lat + (d.lat * 180) / (((A * (1 - EE)) / (magic * sqrtMagic)) * Math.PI),
    lng: lng + (d.lng * 180) / ((A / sqrtMagic) * Math.cos(radLat) * Math.PI),
  };
}
