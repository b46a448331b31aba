import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../apps/server/src/infra/clock.ts";
import { createSimulatorCarrier } from "../../apps/server/src/modules/iotCards/carriers.ts";
import { iotCardSnapshots, iotCards } from "../../apps/server/src/modules/iotCards/schema.ts";
import { effectiveState } from "../../apps/server/src/modules/iotCards/service.ts";
import { DEMO_ACCOUNTS, DEMO_ICCID, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * Issue 9's 4G cards in a real browser, on the demo's simulator carrier: the demo user's
 * card list (a heavy user with the low-traffic warning, a weekly plan ending soon, a
 * suspended card, the demo HMI's card), a card's page (traffic history, warnings, QR code,
 * read now), and the data centre's card traffic tab. Two weeks of readings are written
 * first so the charts have a history. Screenshots go to /tmp/kw-iot-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let dataDir: string;
const HEAVY = "89860400000000000109";
const WEEKLY = "89860400000000000208";
const SUSPENDED = "89860400000000000392";

beforeAll(async () => {
  platform = await startPlatform();
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-iot-"));
  await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  const { accounts, devices, gateway, iotCards: cards } = platform.app.services;
  const demo = await accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.user.email });
  const names = ["Boiler room", "Cold store", "Pump station"];
  const iccids = [HEAVY, WEEKLY, SUSPENDED];
  const issued = await devices.provision(3, "MT8072iP");
  for (const [i, d] of issued.entries()) {
    const added = await devices.add(demo?.id ?? 0, {
      name: names[i],
      code: d.machineCode,
      password: d.devicePassword,
    });
    // What the device's `state` message reports.
    await gateway.ingest.handleUplink(
      { id: added.machine_id, code: d.machineCode },
      "state",
      Buffer.from(JSON.stringify({ state: "online", iccid: iccids[i] })),
    );
  }
  // Two weeks of readings (what the periodic pass would have written), then today's read.
  await cards.sync();
  const rows = await platform.db.select().from(iotCards);
  const now = Date.now();
  for (const row of rows) {
    for (let hoursAgo = 14 * 24; hoursAgo >= 6; hoursAgo -= 6) {
      const at = new ManualClock(now - hoursAgo * 3_600_000);
      const info = await createSimulatorCarrier({ clock: at }).cardInfo(row.iccid);
      if (!info) continue;
      await platform.db.insert(iotCardSnapshots).values({
        cardId: row.id,
        takenAt: at.now(),
        state: effectiveState(info, at.now()),
        totalKb: info.totalKb,
        usedKb: info.usedKb,
      });
    }
  }
  expect(await cards.refreshDue()).toBe(4);
});
afterAll(async () => {
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const settle = (page: Page, ms = 700) => page.waitForTimeout(ms);

const logIn = (page: Page) => platform.logIn(page);

describe("4G IoT cards in the browser", () => {
  it("lists the cards, opens one, reads it now, and shows the data centre's card traffic", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    try {
      await logIn(page);
      await page.click(tid("nav-iotCard"));
      await page.locator(tid("iot-cards-page")).waitFor();
      for (const iccid of [HEAVY, WEEKLY, SUSPENDED, DEMO_ICCID])
        await page.locator(tid(`iot-row-${iccid}`)).waitFor();
      expect(await page.textContent(tid("iot-total"))).toContain("Total 4");
      expect(await page.textContent(tid("iot-lag-note"))).toContain("6-12 hours");
      await page.locator(tid(`iot-low-${HEAVY}`)).waitFor();
      await page.locator(tid(`iot-expiring-${WEEKLY}`)).waitFor();
      expect(await page.textContent(tid(`iot-row-${SUSPENDED}`))).toContain("Suspended");
      expect(await page.textContent(tid(`iot-row-${HEAVY}`))).toContain("Boiler room");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-iot-list-en.png", fullPage: true });

      // Search and the state filter narrow the list.
      await page.fill(`${tid("iot-search")} input`, "Cold");
      await page.press(`${tid("iot-search")} input`, "Enter");
      await page.locator(tid(`iot-row-${HEAVY}`)).waitFor({ state: "detached" });
      expect(await page.textContent(tid("iot-total"))).toContain("Total 1");
      await page.fill(`${tid("iot-search")} input`, "");
      await page.press(`${tid("iot-search")} input`, "Enter");
      await page.locator(tid(`iot-row-${HEAVY}`)).waitFor();

      // A card's page: figures, history, the warning it raised, its QR code.
      await page.click(tid(`iot-open-${HEAVY}`));
      await page.locator(tid("iot-detail-page")).waitFor();
      await page.locator(`${tid("iot-history-chart")} canvas`).waitFor();
      await page.locator(`${tid("iot-qr-image")}`).waitFor();
      const points = Number(await page.getAttribute(tid("iot-history-chart"), "data-points"));
      expect(points).toBeGreaterThan(40);
      const warnings = await page.textContent(tid("iot-detail-warnings"));
      expect(warnings).toContain("Low traffic on 4G card");
      expect(await page.textContent(tid("iot-detail-info"))).toContain("Boiler room");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-iot-detail-en.png", fullPage: true });

      // Read now: once, then it waits an hour.
      await page.click(tid("iot-refresh"));
      await page.locator(".ant-message", { hasText: "read from the carrier" }).waitFor();
      await page.waitForSelector(`${tid("iot-refresh")}[disabled]`);

      // The data centre's card traffic tab.
      await page.click(tid("nav-dataCenter"));
      await page.click(tid("dc-tab-cardTraffic"));
      await page.locator(`${tid("dc-traffic-chart-day")} canvas`).waitFor();
      await page.locator(`${tid("dc-traffic-chart-card")} canvas`).waitFor();
      await page.locator(`${tid("dc-traffic-chart-state")} canvas`).waitFor();
      expect(await page.textContent(tid("dc-traffic-cards"))).toContain("4");
      expect(await page.textContent(tid("dc-traffic-low"))).toContain("1");
      expect(await page.getAttribute(tid("dc-traffic-chart-day"), "data-days")).toBe("30");
      await settle(page, 1000);
      await page.screenshot({ path: "/tmp/kw-iot-datacenter-en.png", fullPage: true });

      // The same list in Chinese.
      await page.goto(platform.url("/iotCard?language=cn"));
      await page.locator(tid(`iot-row-${HEAVY}`)).waitFor();
      expect(await page.textContent(tid(`iot-row-${HEAVY}`))).toContain("流量不足");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-iot-list-zh.png", fullPage: true });

      // A card outside the user's context: not found.
      await page.goto(platform.url("/iotCard/89860400000000000777?language=en"));
      await page.locator(tid("iot-detail-error")).waitFor();
    } finally {
      await context.close();
    }
  });
});
