import { API, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceLinks, devices } from "../../apps/server/src/db/schema.ts";
import { DEMO_ACCOUNTS } from "../../apps/server/src/seed.ts";
import { startPlatform, tid } from "./browser.ts";
import { startTileServer } from "./tiles.ts";

/**
 * Issue 9's portal pages in a real browser: the cloud map with 200 devices (clustered,
 * coloured by state, list beside it, device card with Connect), full screen, the map when no
 * tile can be loaded (the tile server gone, as in an offline test run), the hide-map switch;
 * the public SCADA form whose e-mail reaches the test SMTP server; the app download page of
 * two brands; the header's links. Screenshots go to /tmp/kw-portal-*.png.
 */
const SUPPORT = "scada-desk@keyway.local";
let platform: Awaited<ReturnType<typeof startPlatform>>;
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let demoUserId = 0;

/** Where the 200 devices stand: five cities, scattered a little around each. */
const CITIES: Array<[string, number, number]> = [
  ["Shanghai", 31.23, 121.47],
  ["Beijing", 39.9, 116.4],
  ["Shenzhen", 22.54, 114.06],
  ["Chengdu", 30.66, 104.07],
  ["Wuhan", 30.59, 114.3],
];

beforeAll(async () => {
  tiles = await startTileServer();
  platform = await startPlatform({
    config: {
      ...tiles.config,
      NEW_VERSION_URL: "https://next.keyway.example/",
      SUPPORT_EMAIL: SUPPORT,
    },
  });
  const demo = await platform.app.services.accounts.findUser({
    channel: "email",
    email: DEMO_ACCOUNTS.user.email,
  });
  demoUserId = demo?.id ?? 0;
  // 200 devices in the demo user's list, written directly (provisioning hashes would take
  // a while and tell nothing here): 190 located around five cities, 10 never located; two
  // in three online.
  const now = new Date();
  const rows = Array.from({ length: 200 }, (_, i) => {
    const [city, lat, lng] = CITIES[i % CITIES.length];
    const located = i < 190;
    const jitter = (n: number) => (((i * 7919 + n * 104729) % 1000) / 1000 - 0.5) * 0.6;
    return {
      code: `MAP${String(i).padStart(5, "0")}`,
      model: "HMI",
      secretHash: "not-used",
      passwordHash: "not-used",
      online: i % 3 !== 0,
      lat: located ? lat + jitter(1) : null,
      lng: located ? lng + jitter(2) : null,
      address: located ? `${city} plant ${Math.floor(i / CITIES.length) + 1}` : "",
      createdAt: now,
    };
  });
  const inserted = await platform.db
    .insert(devices)
    .values(rows)
    .returning({ id: devices.id, code: devices.code });
  await platform.db.insert(deviceLinks).values(
    inserted.map((d, i) => ({
      deviceId: d.id,
      userId: demoUserId,
      role: "akey" as const,
      name: `${CITIES[i % CITIES.length][0]} HMI ${String(i + 1).padStart(3, "0")}`,
      createdAt: now,
    })),
  );
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await tiles?.close();
});

const settle = (page: Page, ms = 700) => page.waitForTimeout(ms);

const logIn = (page: Page) => platform.logIn(page);

/** The counts the clusters and lone markers on screen stand for. */
async function shownOnMap(
  page: Page,
): Promise<{ clusters: number; markers: number; total: number }> {
  return page.evaluate(() => {
    const clusters = Array.from(
      document.querySelectorAll<HTMLElement>('[data-testid="map-cluster"]'),
    );
    const markers = document.querySelectorAll('[data-testid="map-marker"]').length;
    const inClusters = clusters.reduce((sum, c) => sum + Number(c.dataset.count), 0);
    return { clusters: clusters.length, markers, total: inClusters + markers };
  });
}

describe("portal pages in the browser", () => {
  it("shows 200 devices clustered on the map, a device card with Connect, and full screen", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await logIn(page);
      // The header links to the API documentation, the app download and the new version.
      expect(await page.getAttribute(tid("header-api-doc"), "href")).toBe("/apiDoc");
      expect(await page.getAttribute(tid("header-new-version"), "href")).toBe(
        "https://next.keyway.example/",
      );
      const apiDoc = await page.request.get(platform.url("/apiDoc/json"));
      expect((await apiDoc.json()).paths).toHaveProperty([pathOf(API.portal.mapPoints)]);

      await page.click(tid("nav-cloudmap"));
      await page.locator(tid("cloud-map-page")).waitFor();
      await page.locator(tid("map-cluster")).first().waitFor();
      expect(await page.textContent(tid("map-counts"))).toBe("200 devices190 on the map133 online");
      // All 190 located devices are on the map, mostly inside clusters.
      await expect.poll(async () => (await shownOnMap(page)).total).toBe(190);
      const shown = await shownOnMap(page);
      expect(shown.clusters).toBeGreaterThanOrEqual(5);
      expect(shown.clusters).toBeLessThan(60);
      // The list beside the map holds all 200, online first.
      expect(await page.locator(tid("map-list-item")).count()).toBeGreaterThan(0);
      await settle(page, 1200);
      expect(await page.locator(tid("map-tiles-failed")).count()).toBe(0);
      await page.screenshot({ path: "/tmp/kw-portal-map-en.png" });

      // A cluster opens into its devices; a marker opens the device card.
      const onlineMarkers = page.locator(`${tid("map-marker")}[data-online="1"]`);
      for (let i = 0; i < 6 && (await onlineMarkers.count()) === 0; i++) {
        await page.locator(tid("map-cluster")).first().click();
        await settle(page, 900);
      }
      const marker = page.locator(`${tid("map-marker")}[data-online="1"]`).first();
      await marker.waitFor();
      const code = await marker.getAttribute("data-code");
      await marker.click();
      const card = page.locator(tid("map-device-card"));
      await card.waitFor();
      expect(await card.getAttribute("data-code")).toBe(code);
      expect(await page.textContent(tid("map-card-state"))).toBe("Online");
      const connect = page.locator(tid("map-connect"));
      expect(await connect.isEnabled()).toBe(true);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-portal-map-card-en.png" });
      // Connect is the device list's flow: these devices have no agent, so it ends "offline".
      await connect.click();
      await page
        .locator(`${tid("connect-status")}:not([data-state="connecting"])`)
        .first()
        .waitFor();

      // A device chosen in the list: an offline one cannot be connected to.
      await page.fill(tid("map-search"), "HMI 001");
      await page.locator(tid("map-list-item")).first().click();
      await page.locator(`${tid("map-device-card")}[data-code="MAP00000"]`).waitFor();
      expect(await page.locator(tid("map-connect")).isDisabled()).toBe(true);
      await page.fill(tid("map-search"), "");

      // Full screen: no navigation, no header; and back.
      await page.click(tid("map-fullscreen"));
      await page.waitForURL(/\/mapcanvas$/);
      await page.locator(tid("map-cluster")).first().waitFor();
      expect(await page.locator(tid("side-nav")).count()).toBe(0);
      expect(await page.locator(".kw-header").count()).toBe(0);
      await expect.poll(async () => (await shownOnMap(page)).total).toBe(190);
      await settle(page, 1200);
      await page.screenshot({ path: "/tmp/kw-portal-mapcanvas-en.png" });
      await page.click(tid("map-exit-fullscreen"));
      await page.locator(tid("side-nav")).waitFor();
    } finally {
      await context.close();
    }
  });

  it("keeps the list usable when no tile can be loaded, and hides the map when asked", async () => {
    tiles.up = false;
    const context = await platform.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await logIn(page);
      await page.goto(platform.url("/cloudmap?language=cn"));
      await page.locator(tid("map-tiles-failed")).waitFor();
      expect(await page.textContent(tid("map-tiles-failed"))).toContain("地图底图无法加载");
      // The list still finds a device and opens its card.
      await page.fill(tid("map-search"), "MAP00199");
      const items = page.locator(tid("map-list-item"));
      await expect.poll(() => items.count()).toBe(1);
      expect(await items.first().textContent()).toContain("暂无位置");
      await items.first().click();
      await page.locator(`${tid("map-device-card")}[data-code="MAP00199"]`).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-portal-map-offline-cn.png" });

      // Hide-map switch on (elsewhere: this browser still remembers the map as shown): no
      // point is asked for, not even before the user info has answered (held back a while
      // here); no map entry in the navigation and the page says why.
      await platform.app.services.accounts.setHideMap(demoUserId, true);
      const pointCalls: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes(pathOf(API.portal.mapPoints))) pointCalls.push(request.url());
      });
      await page.route(`**${pathOf(API.accounts.userInfo)}**`, async (route) => {
        await new Promise((done) => setTimeout(done, 1500));
        // The page may have moved on meanwhile: nothing left to answer then.
        await route.continue().catch(() => {});
      });
      const answered = page.waitForResponse((r) => r.url().includes(pathOf(API.accounts.userInfo)));
      await page.reload();
      await answered;
      await page.locator(tid("map-hidden")).waitFor();
      await settle(page);
      expect(pointCalls).toEqual([]);
      await page.unroute(`**${pathOf(API.accounts.userInfo)}**`);
      expect(await page.locator(tid("nav-cloudmap")).count()).toBe(0);
      await page.goto(platform.url("/mapcanvas"));
      await page.locator(tid("map-hidden")).waitFor();
    } finally {
      await platform.app.services.accounts.setHideMap(demoUserId, false);
      tiles.up = true;
      await context.close();
    }
  });

  it("sends the SCADA form to support by e-mail and confirms the 24-hour answer", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    try {
      await page.goto(platform.url("/scadaRegister?language=en"));
      await page.locator(tid("scada-form")).waitFor();
      // The shared rules refuse a bad e-mail and phone before anything is sent.
      await page.fill(tid("scada-company"), "Acme Water Works");
      await page.fill(tid("scada-contact"), "Li Wei");
      await page.fill(tid("scada-phone"), "12345");
      await page.fill(tid("scada-email"), "li.wei@");
      await page.click(tid("scada-submit"));
      await page
        .locator(".ant-form-item-explain-error", { hasText: "Wrong phone format" })
        .waitFor();
      await page
        .locator(".ant-form-item-explain-error", { hasText: "Wrong e-mail format" })
        .waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-portal-scada-errors-en.png", fullPage: true });

      await page.fill(tid("scada-phone"), "13800138000");
      await page.fill(tid("scada-email"), "li.wei@acme-water.example");
      await page.fill(tid("scada-project"), "Pump station SCADA");
      await page.fill(tid("scada-devices"), "12");
      await page.fill(
        tid("scada-description"),
        "Twelve pump stations with HMI panels; remote SCADA access for the night shift.",
      );
      await page.click(tid("scada-submit"));
      await page.locator(tid("scada-done")).waitFor();
      expect(await page.textContent(tid("scada-done"))).toContain(
        "replies to li.wei@acme-water.example by e-mail within 24 hours",
      );
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-portal-scada-done-en.png" });

      const mail = await platform.smtp.waitFor(SUPPORT);
      expect(mail.subject).toBe(
        "[Keyway Cloud] SCADA registration / SCADA 注册申请: Acme Water Works",
      );
      expect(mail.text).toContain("Phone / 电话: +86 13800138000");
      expect(mail.text).toContain("Devices / 设备数量: 12");
      expect(mail.text).toContain("remote SCADA access for the night shift");
    } finally {
      await context.close();
    }
  });

  it("folds the navigation behind the header's menu button on a phone, in both languages", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      for (const language of ["cn", "en"]) {
        await platform.logIn(page, undefined, language);
        // The navigation is folded: the page has the whole width.
        await page.locator(tid("nav-toggle")).waitFor();
        await expect.poll(() => page.isVisible(tid("side-nav"))).toBe(false);
        // The header stays one line: every link is an icon with its name as a label.
        const header = await page.locator(".kw-header").boundingBox();
        expect(header?.height).toBeLessThanOrEqual(57);
        for (const link of ["header-new-version", "header-api-doc", "header-app-download"]) {
          const box = await page.locator(tid(link)).boundingBox();
          expect(box?.height, link).toBeLessThanOrEqual(32);
          expect((box?.x ?? 0) + (box?.width ?? 0), link).toBeLessThanOrEqual(390);
          expect(await page.getAttribute(tid(link), "aria-label"), link).toBeTruthy();
        }
        const avatar = await page.locator(tid("user-avatar")).boundingBox();
        expect((avatar?.x ?? 0) + (avatar?.width ?? 0)).toBeLessThanOrEqual(390);
        // The button opens the navigation over the page; choosing a page folds it again.
        await page.click(tid("nav-toggle"));
        await page.locator(tid("side-nav")).waitFor({ state: "visible" });
        expect(await page.getAttribute(tid("nav-toggle"), "aria-expanded")).toBe("true");
        await settle(page, 400);
        await page.screenshot({ path: `/tmp/kw-portal-phone-nav-${language}.png` });
        // A tap beside it folds it; the button opens it again.
        await page.mouse.click(360, 500);
        await expect.poll(() => page.isVisible(tid("side-nav"))).toBe(false);
        await page.click(tid("nav-toggle"));
        await page.locator(tid("side-nav")).waitFor({ state: "visible" });
        await page.click(tid("nav-cloudmap"));
        await page.locator(tid("cloud-map-page")).waitFor();
        await expect.poll(() => page.isVisible(tid("side-nav"))).toBe(false);
        await page.screenshot({ path: `/tmp/kw-portal-phone-map-${language}.png` });
        await page.context().clearCookies();
      }
    } finally {
      await context.close();
    }
  });

  it("shows each brand its own apps, versions and QR codes", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    try {
      const brands = [
        {
          host: "localhost",
          id: "keyway",
          name: "Keyway Cloud",
          lowest: "1.1.0",
          site: "keyway.io",
        },
        {
          host: "ironbridge.localhost",
          id: "ironbridge",
          name: "Ironbridge Connect",
          lowest: "1.2.0",
          site: "ironbridge.cn",
        },
      ];
      const qrs: string[] = [];
      for (const b of brands) {
        await page.goto(platform.url("/appDownload?language=en", b.host));
        await page.locator(`${tid("app-download")}[data-brand="${b.id}"]`).waitFor();
        await page.locator(tid("download-android-qr")).waitFor();
        expect(await page.textContent(tid("brand-name"))).toBe(b.name);
        expect(await page.textContent(tid("download-android-version"))).toBe("Version 1.4.2");
        expect(await page.textContent(tid("download-tv-version"))).toBe("Version 1.3.0");
        expect(await page.textContent(tid("download-versions"))).toContain("Web client 3.1.8");
        expect(await page.textContent(tid("download-lowest"))).toContain(b.lowest);
        expect(await page.getAttribute(tid("download-android-link"), "href")).toBe(
          `https://www.${b.site}/download/android`,
        );
        const qr = (await page.getAttribute(tid("download-android-qr"), "src")) ?? "";
        expect(qr).toMatch(/^data:image\/png;base64,/);
        // The image is drawn: a QR code has width.
        expect(
          await page
            .locator(tid("download-android-qr"))
            .evaluate((img: HTMLImageElement) => img.naturalWidth),
        ).toBeGreaterThan(100);
        qrs.push(qr);
        await settle(page);
        await page.screenshot({ path: `/tmp/kw-portal-download-${b.id}-en.png` });
      }
      expect(qrs[0]).not.toBe(qrs[1]);
    } finally {
      await context.close();
    }
  });
});
