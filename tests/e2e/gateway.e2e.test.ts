import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startSimulatedAgent } from "./agent.ts";
import { startPlatform, tid } from "./browser.ts";
import { startTileServer } from "./tiles.ts";

/**
 * Issue 4 in a real browser with a real agent: the demo device (keyway-agent --simulate)
 * shows online; an alarm raised on the simulated HMI's own page appears in the device's
 * alarm tab; the location it reports shows on the detail's small map (tiles from a local
 * tile server), and on a world grid when no tile can be loaded. Screenshots go to
 * /tmp/kw-gateway-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let agent: SimulatedAgent;
let demo: DemoDevice;
let tiles: Awaited<ReturnType<typeof startTileServer>>;

beforeAll(async () => {
  tiles = await startTileServer();
  platform = await startPlatform({
    config: {
      ...tiles.config,
    },
  });
  const mqttPort = await platform.app.services.gateway.listenTcp(0, "127.0.0.1");
  const dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-gw-"));
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  agent = await startSimulatedAgent({
    server: `mqtt://127.0.0.1:${mqttPort}`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
  });
});
afterAll(async () => {
  await agent?.stop();
  await platform?.close();
  await tiles?.close();
});

const logIn = (page: Page) => platform.logIn(page);

describe("a live device in the browser", () => {
  it("shows the demo device online and its HMI's alarm in the alarm tab", async () => {
    const page = await (await platform.browser.newContext()).newPage();
    await logIn(page);
    await page.goto(platform.url("/index?listType=list&language=en"));
    const row = page.locator(tid(`device-row-${demo.machineCode}`));
    await row.waitFor();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Online");

    // Raise an alarm on the simulated HMI's own web page.
    const hmi = await (await platform.browser.newContext()).newPage();
    await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
    await expect
      .poll(() => hmi.textContent(tid("hmi-state")), { timeout: 10_000 })
      .toMatch(/online/i);
    await hmi.fill(tid("hmi-alarm-text"), "Door 3 open");
    await hmi.click(tid("hmi-raise"));

    const id = await row.getAttribute("data-row-key");
    await page.click(tid(`device-detail-${id}`));
    await page.click(tid("device-detail-tab-alarms"));
    const table = page.locator(tid("device-alarm-table"));
    await expect
      .poll(
        async () => {
          const text = await table.textContent();
          if (!text?.includes("Door 3 open")) {
            // Re-open the tab to fetch again, as a user would.
            await page.click(tid("device-detail-tab-alarms"));
          }
          return text;
        },
        { timeout: 20_000 },
      )
      .toContain("Door 3 open");
  });

  it("shows the reported location on a small map with a marker, and on a grid without tiles", {
    timeout: 180_000,
  }, async () => {
    /** Logs in in `language`, opens the demo device's detail on its Location tab. */
    async function openLocation(language: "en" | "cn") {
      const page = await (
        await platform.browser.newContext({ viewport: { width: 1400, height: 900 } })
      ).newPage();
      await platform.logIn(page, undefined, language);
      await page.goto(platform.url(`/index?listType=list&language=${language}`));
      const row = page.locator(tid(`device-row-${demo.machineCode}`));
      await row.waitFor();
      const id = await row.getAttribute("data-row-key");
      await page.click(tid(`device-detail-${id}`));
      await page.click(tid("device-detail-tab-location"));
      // The agent reports its position as it connects; the tab shows it once it is there.
      await expect
        .poll(
          async () => {
            const shown = await page.locator(tid("device-location-map")).count();
            if (!shown) await page.click(tid("device-detail-tab-info"));
            if (!shown) await page.click(tid("device-detail-tab-location"));
            return shown;
          },
          { timeout: 20_000 },
        )
        .toBe(1);
      return page;
    }

    for (const language of ["en", "cn"] as const) {
      const page = await openLocation(language);
      const map = page.locator(tid("device-location-map"));
      await expect.poll(() => map.getAttribute("data-mode")).toBe("tiles");
      const leaflet = page.locator(tid("device-location-leaflet"));
      await expect.poll(() => leaflet.getAttribute("data-tiles")).toBe("loaded");
      expect(await page.locator(".leaflet-tile-loaded").count()).toBeGreaterThan(0);
      expect(await map.textContent()).toContain("Test tiles");
      // The marker stands inside the map, at its centre (the view opens on the device).
      const pin = page.locator(`${tid("device-location-leaflet")} ${tid("device-location-pin")}`);
      await pin.waitFor();
      const box = await leaflet.boundingBox();
      const at = await pin.boundingBox();
      expect(box && at).toBeTruthy();
      if (box && at) {
        expect(Math.abs(at.x + at.width / 2 - (box.x + box.width / 2))).toBeLessThan(20);
        expect(Math.abs(at.y + at.height - (box.y + box.height / 2))).toBeLessThan(20);
      }
      // The simulated site, in Shanghai.
      const [lat, lng] = ((await page.textContent(tid("device-location-latlng"))) ?? "")
        .split(",")
        .map(Number);
      expect(lat).toBeCloseTo(31.23, 1);
      expect(lng).toBeCloseTo(121.47, 1);
      await page.waitForTimeout(500);
      await page
        .locator(tid("device-detail-drawer"))
        .screenshot({ path: `/tmp/kw-gateway-location-${language}.png` });
      await page.context().close();
    }

    // The tile server unreachable: the position falls back to the world grid, with a note.
    tiles.up = false;
    try {
      const page = await openLocation("cn");
      const map = page.locator(tid("device-location-map"));
      await expect.poll(() => map.getAttribute("data-mode"), { timeout: 15_000 }).toBe("grid");
      await page.locator(tid("device-location-grid")).waitFor();
      expect(
        await page.locator(`${tid("device-location-grid")} ${tid("device-location-pin")}`).count(),
      ).toBe(1);
      expect(await page.textContent(tid("device-location-tiles-failed"))).toContain(
        "地图底图无法加载",
      );
      await page
        .locator(tid("device-detail-drawer"))
        .screenshot({ path: "/tmp/kw-gateway-location-grid-cn.png" });
      await page.context().close();
    } finally {
      tiles.up = true;
    }
  });
});
