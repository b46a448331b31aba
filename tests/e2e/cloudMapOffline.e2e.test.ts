import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, pathOf } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceLinks, devices } from "../../apps/server/src/db/schema.ts";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { wgs84ToGcj02 } from "../../apps/web/src/lib/map/gcj02.ts";
import { type SimulatedAgent, startSimulatedAgent } from "./agent.ts";
import { startPlatform, tid } from "./browser.ts";
import { startTileServer } from "./tiles.ts";

/**
 * Issue 17's cloud map without a reachable tile server: the bundled world outline with the
 * devices on it as points coloured by state (a live agent's device online, another offline),
 * each opening its card; the same when the client config cannot be read. With the tile server
 * up, configured as AMap is (x/y/z in the query, {s} subdomains, GCJ-02), the tiles show and a
 * device stands at its GCJ-02 position on them. Screenshots go to /tmp/shots-map/.
 */
const SHOTS = "/tmp/shots-map";
/** The offline device: at the Beijing reference point of the GCJ-02 unit test. */
const FIXED = {
  code: "GCJ0000001",
  name: "Beijing reference HMI",
  lat: 39.911954,
  lng: 116.377817,
};

let platform: Awaited<ReturnType<typeof startPlatform>>;
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let agent: SimulatedAgent;
let demo: DemoDevice;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tiles = await startTileServer();
  platform = await startPlatform({ config: { ...tiles.amapConfig } });
  const mqttPort = await platform.app.services.gateway.listenTcp(0, "127.0.0.1");
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir: mkdtempSync(path.join(tmpdir(), "kw-e2e-map-")),
  });
  // The online device: the demo device with its agent, which reports a position in Shanghai.
  agent = await startSimulatedAgent({
    server: `mqtt://127.0.0.1:${mqttPort}`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
  });
  // The offline one: written directly (it never connects), in the demo user's list.
  const user = await platform.app.services.accounts.findUser({
    channel: "email",
    email: DEMO_ACCOUNTS.user.email,
  });
  const now = new Date();
  const [fixed] = await platform.db
    .insert(devices)
    .values({
      code: FIXED.code,
      model: "HMI",
      secretHash: "not-used",
      passwordHash: "not-used",
      online: false,
      lat: FIXED.lat,
      lng: FIXED.lng,
      address: "Beijing plant",
      createdAt: now,
    })
    .returning({ id: devices.id });
  await platform.db.insert(deviceLinks).values({
    deviceId: fixed.id,
    userId: user?.id ?? 0,
    role: "akey",
    name: FIXED.name,
    createdAt: now,
  });
  // Online with a position before any page opens (the map polls only every 30 s).
  for (const deadline = Date.now() + 60_000; ; ) {
    const [row] = await platform.db
      .select({ online: devices.online, lat: devices.lat })
      .from(devices)
      .where(eq(devices.code, demo.machineCode));
    if (row?.online === true && row.lat !== null) break;
    if (Date.now() > deadline)
      throw new Error(`the agent did not come online: ${agent.output.join("")}`);
    await new Promise((done) => setTimeout(done, 500));
  }
}, 180_000);
afterAll(async () => {
  await agent?.stop();
  await platform?.close();
  await tiles?.close();
});

const marker = (page: Page, code: string) =>
  page.locator(`${tid("map-marker")}[data-code="${code}"]`);

/** A marker's state class and fill colour (the div Leaflet draws around the span). */
function markerLook(page: Page, code: string) {
  return marker(page, code).evaluate((span) => {
    const icon = span.parentElement as HTMLElement;
    return {
      online: icon.classList.contains("kw-map-marker-online"),
      offline: icon.classList.contains("kw-map-marker-offline"),
      color: getComputedStyle(icon).backgroundColor,
    };
  });
}

const GREEN = "rgb(34, 197, 94)";
const GREY = "rgb(148, 163, 184)";

/** Opens the map and waits for the offline outline with both devices on it. */
/**
 * Clicks a device's point until its card shows, as a user would click again: while the map
 * still fits its view to the points (until it is touched), a point can move under the click.
 */
async function openCard(page: Page, code: string) {
  const card = page.locator(tid("map-device-card"));
  await expect
    .poll(
      async () => {
        await marker(page, code).click();
        return card.getAttribute("data-code", { timeout: 3_000 }).catch(() => null);
      },
      { timeout: 30_000 },
    )
    .toBe(code);
}

async function openOfflineMap(page: Page, url: string) {
  await page.goto(platform.url(url));
  const map = page.locator(tid("cloud-map"));
  await expect.poll(() => map.getAttribute("data-basemap"), { timeout: 30_000 }).toBe("offline");
  await expect.poll(() => map.getAttribute("data-land"), { timeout: 30_000 }).toBe("drawn");
  await marker(page, demo.machineCode).waitFor({ timeout: 30_000 });
  await marker(page, FIXED.code).waitFor({ timeout: 30_000 });
}

/**
 * Where a marker's centre is on the tiles under it: the tile's z/x/y (from its URL, AMap's
 * query form) and the point's place in it, back through Web Mercator to lat/lng.
 */
function markerOnTiles(page: Page, code: string) {
  return page.evaluate((code) => {
    const span = document.querySelector(`[data-testid="map-marker"][data-code="${code}"]`);
    const icon = span?.parentElement;
    if (!icon) return null;
    const r = icon.getBoundingClientRect();
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    let best: { z: number; x: number; y: number } | null = null;
    for (const img of Array.from(
      document.querySelectorAll<HTMLImageElement>("img.leaflet-tile-loaded"),
    )) {
      const m = /[?&]x=(-?\d+)&y=(-?\d+)&z=(\d+)/.exec(img.src);
      const t = img.getBoundingClientRect();
      if (!m || cx < t.left || cx >= t.right || cy < t.top || cy >= t.bottom) continue;
      const z = Number(m[3]);
      if (best && best.z >= z) continue;
      // Mid-animation tiles are scaled; a settled one is 256 px.
      if (Math.abs(t.width - 256) > 0.5) continue;
      best = {
        z,
        x: Number(m[1]) + (cx - t.left) / t.width,
        y: Number(m[2]) + (cy - t.top) / t.height,
      };
    }
    if (!best) return null;
    const n = 2 ** best.z;
    const lng = (best.x / n) * 360 - 180;
    const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * best.y) / n))) * 180) / Math.PI;
    return { z: best.z, lat, lng };
  }, code);
}

const metres = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) => {
  const k = (Math.PI / 180) * 6_371_000;
  return Math.hypot((a.lat - b.lat) * k, (a.lng - b.lng) * k * Math.cos((a.lat * Math.PI) / 180));
};

describe("the cloud map without tiles", () => {
  it("shows the devices by state on the offline world outline and opens a point's card", {
    timeout: 150_000,
  }, async () => {
    tiles.up = false;
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await platform.logIn(page);
      await openOfflineMap(page, "/cloudmap?language=en");
      // Land drawn as SVG paths under the points, and said so on the map and above it.
      expect(await page.locator("path.kw-map-land").count()).toBeGreaterThan(0);
      expect(await page.textContent(tid("map-offline-note"))).toContain("Offline basemap");
      expect(await page.textContent(tid("map-tiles-failed"))).toContain("offline world outline");
      // The outline is WGS-84: no GCJ-02 shift without GCJ-02 tiles.
      expect(await page.getAttribute(tid("cloud-map"), "data-crs")).toBe("wgs84");
      // The live device green, the silent one grey: the online map's colours.
      await expect
        .poll(() => markerLook(page, demo.machineCode), { timeout: 20_000 })
        .toEqual({ online: true, offline: false, color: GREEN });
      expect(await markerLook(page, FIXED.code)).toEqual({
        online: false,
        offline: true,
        color: GREY,
      });
      await page.screenshot({ path: `${SHOTS}/offline-en-1440x900.png` });

      // A point opens its device's card.
      await openCard(page, FIXED.code);
      expect(await page.getAttribute(tid("map-card-state"), "data-state")).toBe("offline");
      expect(await page.textContent(tid("map-device-card"))).toContain(FIXED.name);
      await openCard(page, demo.machineCode);
      expect(await page.getAttribute(tid("map-card-state"), "data-state")).toBe("online");
      expect(await page.locator("img.leaflet-tile").count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/offline-card-en-1440x900.png` });
    } finally {
      await context.close();
    }
  });

  it("shows the offline outline with the devices when the client config cannot be read", {
    timeout: 150_000,
  }, async () => {
    tiles.up = true;
    const context = await platform.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    try {
      await platform.logIn(page, DEMO_ACCOUNTS.user, "cn");
      await page.route(`**${pathOf(API.portal.clientConfig)}*`, (route) => route.abort());
      // A fresh load, so that the config is asked for again (and fails).
      await openOfflineMap(page, "/cloudmap?language=cn");
      expect(await page.locator("path.kw-map-land").count()).toBeGreaterThan(0);
      expect(await page.textContent(tid("map-offline-note"))).toContain("离线底图");
      expect(await markerLook(page, FIXED.code)).toMatchObject({ offline: true, color: GREY });
      await openCard(page, FIXED.code);
      expect(await page.textContent(tid("map-card-state"))).toBe("离线");
    } finally {
      await context.close();
    }
  });

  it("shows AMap-style tiles when the server is up, a device at its GCJ-02 position", {
    timeout: 150_000,
  }, async () => {
    tiles.up = true;
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await platform.logIn(page);
      await page.goto(platform.url("/cloudmap?language=en"));
      const map = page.locator(tid("cloud-map"));
      await expect.poll(() => map.getAttribute("data-basemap"), { timeout: 30_000 }).toBe("tiles");
      expect(await map.getAttribute("data-crs")).toBe("gcj02");
      await marker(page, FIXED.code).waitFor({ timeout: 30_000 });
      // The marker can be drawn before the first tile has arrived: wait for the tiles.
      await expect
        .poll(() => page.locator("img.leaflet-tile-loaded").count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      // {s} took MAP_TILE_SUBDOMAINS' values (Leaflet spreads the tiles over them).
      expect(tiles.subdomainsSeen.size).toBeGreaterThan(1);
      expect([...tiles.subdomainsSeen].every((s) => "1234".includes(s))).toBe(true);
      expect(await page.locator(tid("map-offline-note")).count()).toBe(0);
      expect(await page.locator(tid("map-tiles-failed")).count()).toBe(0);
      expect(await page.locator("path.kw-map-land").count()).toBe(0);

      // Zoomed in on the offline device with the wheel (Leaflet keeps the point under the
      // pointer), it stands where GCJ-02 puts it, not at its raw WGS-84 position ~500 m off.
      const wgs = { lat: FIXED.lat, lng: FIXED.lng };
      const gcj = wgs84ToGcj02(FIXED.lat, FIXED.lng);
      expect(metres(wgs, gcj)).toBeGreaterThan(400);
      let reading: Awaited<ReturnType<typeof markerOnTiles>> = null;
      const zoomIn = async () => {
        const box = await marker(page, FIXED.code).boundingBox();
        if (!box) throw new Error("the marker is not on screen");
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -300);
      };
      // The view fits itself to the points until it is touched: a wheel during that animation
      // zooms around where the marker was, and can leave it outside the map. It stands still first.
      let before = "";
      await expect
        .poll(
          async () => {
            const now = JSON.stringify(await marker(page, FIXED.code).boundingBox());
            const still = now === before;
            before = now;
            return still;
          },
          { timeout: 20_000, interval: 1_000 },
        )
        .toBe(true);
      // Zooms on until a settled tile of z >= 15 lies under the marker (on a loaded machine a
      // wheel step can take longer than one look).
      await expect
        .poll(
          async () => {
            reading = await markerOnTiles(page, FIXED.code);
            if (!reading || reading.z < 15) await zoomIn();
            return reading !== null && reading.z >= 15 && metres(reading, gcj) < 40;
          },
          { timeout: 40_000, interval: 600 },
        )
        .toBe(true);
      if (!reading) throw new Error("no reading");
      expect(metres(reading, wgs)).toBeGreaterThan(350);
      await page.screenshot({ path: `${SHOTS}/tiles-gcj02-en-1440x900.png` });
    } finally {
      await context.close();
    }
  });

  it("shows the offline outline, its note and the points at every screen size in both languages", {
    timeout: 480_000,
  }, async () => {
    tiles.up = false;
    const sizes = [
      { name: "1440x900", width: 1440, height: 900, query: "" },
      { name: "1280x720", width: 1280, height: 720, query: "" },
      { name: "phone-390x844", width: 390, height: 844, query: "" },
      { name: "tv-1920x1080", width: 1920, height: 1080, query: "&tv=1" },
    ];
    for (const size of sizes) {
      const context = await platform.browser.newContext({
        viewport: { width: size.width, height: size.height },
      });
      const page = await context.newPage();
      try {
        for (const lang of ["cn", "en"] as const) {
          if (lang === "cn") await platform.logIn(page, DEMO_ACCOUNTS.user, "cn");
          await openOfflineMap(page, `/cloudmap?language=${lang}${size.query}`);
          expect(await page.locator("path.kw-map-land").count()).toBeGreaterThan(0);
          // The note and both points inside the window, where the user can see them.
          for (const selector of [
            tid("map-offline-note"),
            `${tid("map-marker")}[data-code="${demo.machineCode}"]`,
            `${tid("map-marker")}[data-code="${FIXED.code}"]`,
          ]) {
            const box = await page.locator(selector).boundingBox();
            expect(box, selector).not.toBeNull();
            if (!box) continue;
            expect(box.x, selector).toBeGreaterThanOrEqual(0);
            expect(box.y, selector).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width, selector).toBeLessThanOrEqual(size.width);
            expect(box.y + box.height, selector).toBeLessThanOrEqual(size.height);
          }
          await page.screenshot({
            path: `${SHOTS}/offline-${lang === "cn" ? "zh" : "en"}-${size.name}.png`,
          });
        }
      } finally {
        await context.close();
      }
    }
  });
});
