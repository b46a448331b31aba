import { describe, expect, it } from "vitest";
import { outOfChina, wgs84ToGcj02 } from "./gcj02.ts";

/**
 * Reference pairs of the public eviltransform project (googollee/eviltransform's tests): WGS-84
 * in, GCJ-02 out, to 1e-7° (about a centimetre).
 */
const REFERENCE: Array<[string, [number, number], [number, number]]> = [
  ["Shanghai", [31.1774276, 121.5272106], [31.17530398364597, 121.531541859215]],
  ["Shenzhen", [22.543847, 113.912316], [22.540796131694766, 113.9171764808363]],
  ["Beijing", [39.911954, 116.377817], [39.91334545536069, 116.38404722455657]],
];

const metresBetween = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) => {
  const k = (Math.PI / 180) * 6_371_000;
  return Math.hypot((a.lat - b.lat) * k, (a.lng - b.lng) * k * Math.cos((a.lat * Math.PI) / 180));
};

describe("WGS-84 to GCJ-02", () => {
  it.each(REFERENCE)("matches the reference shift in %s", (_city, [lat, lng], [gLat, gLng]) => {
    const shifted = wgs84ToGcj02(lat, lng);
    expect(shifted.lat).toBeCloseTo(gLat, 7);
    expect(shifted.lng).toBeCloseTo(gLng, 7);
    // The offset the tiles would otherwise show: a few hundred metres.
    const off = metresBetween({ lat, lng }, shifted);
    expect(off).toBeGreaterThan(250);
    expect(off).toBeLessThan(700);
  });

  it("leaves positions outside China unchanged", () => {
    expect(outOfChina(48.8566, 2.3522)).toBe(true);
    expect(wgs84ToGcj02(48.8566, 2.3522)).toEqual({ lat: 48.8566, lng: 2.3522 });
    expect(wgs84ToGcj02(-33.8688, 151.2093)).toEqual({ lat: -33.8688, lng: 151.2093 });
    expect(outOfChina(31.23, 121.47)).toBe(false);
  });
});
