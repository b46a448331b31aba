import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../apps/server/src/infra/clock.ts";
import { alarmSends } from "../../apps/server/src/modules/alarmPush/schema.ts";
import { alarms } from "../../apps/server/src/modules/alarms/schema.ts";
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
let demoId = 0;
let boilerId = 0;

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
  demoId = demo?.id ?? 0;
  const names = ["Boiler room", "Cold store", "Pump station"];
  const iccids = [HEAVY, WEEKLY, SUSPENDED];
  const issued = await devices.provision(3, "MT8072iP");
  for (const [i, d] of issued.entries()) {
    const added = await devices.add(demo?.id ?? 0, {
      name: names[i],
      code: d.machineCode,
      password: d.devicePassword,
    });
    if (i === 0) boilerId = added.machine_id;
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
  it("charts the data centre's pushes, links the device's 4G card, and links the new version", async () => {
    // A month of alarm pushes of the demo user (what the alarm pipeline records) and a sale
    // of SMS stock, so that the charts have something to draw.
    const [alarm] = await platform.db
      .insert(alarms)
      .values({
        deviceId: boilerId,
        uid: "e2e-push-stats",
        type: "alarm",
        level: 2,
        content: "Boiler pressure high",
        time: new Date(),
        createdAt: new Date(),
      })
      .returning();
    let n = 0;
    const sends = [];
    for (let daysAgo = 0; daysAgo < 30; daysAgo++) {
      const at = new Date(Date.now() - daysAgo * 86_400_000);
      const perDay = [3, 1, 0, 2, 4, 1, 0][daysAgo % 7];
      for (let k = 0; k < perDay; k++) {
        n += 1;
        const sms = k % 2 === 0;
        sends.push({
          alarmId: alarm.id,
          deviceId: boilerId,
          deviceName: "Boiler room",
          channel: sms ? ("sms" as const) : ("email" as const),
          eid: 0,
          userId: demoId,
          recipient: sms ? `+86 13800${String(n).padStart(6, "0")}` : `ops${n}@example.com`,
          content: "Boiler pressure high",
          segments: sms ? 1 + (n % 2) : 0,
          accountEid: 0,
          accountUserId: demoId,
          status: n % 9 === 0 ? ("failed" as const) : ("sent" as const),
          idempotencyKey: `e2e-stats-${n}`,
          createdAt: at,
          updatedAt: at,
        });
      }
    }
    await platform.db.insert(alarmSends).values(sends);
    // The stock: a sale of 500, then what those sends took (the pipeline debits as it sends).
    const { alarmPush } = platform.app.services;
    await alarmPush.recordSale(0, { eid: 0, userId: demoId, amount: 500 });
    const billed = sends.reduce((sum, x) => sum + (x.status === "sent" ? x.segments : 0), 0);
    expect(await alarmPush.debit(platform.db, 0, demoId, billed, "send")).toBe(true);
    const smsSent = sends.filter((x) => x.channel === "sms" && x.status === "sent").length;

    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    try {
      await logIn(page);
      // No NEW_VERSION_URL configured: the header links the brand's website.
      expect(await page.getAttribute(tid("header-new-version"), "href")).toBe(
        "https://www.keyway.io",
      );

      // The data centre's push statistics, in both languages.
      await page.click(tid("nav-dataCenter"));
      await page.click(tid("dc-tab-pushStats"));
      await page.locator(`${tid("push-stats-chart-day")} canvas`).waitFor();
      await page.locator(`${tid("push-stats-chart-stock")} canvas`).waitFor();
      expect(await page.textContent(tid("push-stats-sms-sent"))).toContain(String(smsSent));
      expect(await page.textContent(tid("push-stats-balance"))).toContain(String(500 - billed));
      expect(await page.getAttribute(tid("push-stats"), "data-scope")).toBe("mine");
      await settle(page, 1000);
      await page.screenshot({ path: "/tmp/kw-dc-pushstats-en.png", fullPage: true });
      await page.goto(platform.url("/dataCenter?tab=pushStats&language=cn"));
      await page.locator(`${tid("push-stats-chart-day")} canvas`).waitFor();
      expect(await page.textContent(tid("push-stats"))).toContain("短信已发送");
      await settle(page, 1000);
      await page.screenshot({ path: "/tmp/kw-dc-pushstats-cn.png", fullPage: true });

      // The device detail names the device's 4G card and links its page.
      await page.goto(platform.url("/index?listType=list&language=en"));
      await page.click(tid(`device-detail-${boilerId}`));
      const drawer = page.locator(tid("device-detail-drawer"));
      await drawer.locator(tid("device-iot-card-link")).first().waitFor();
      expect(await drawer.locator(tid("device-detail-iot-card")).textContent()).toContain(HEAVY);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-iot-device-card-en.png" });
      await drawer.locator(tid("device-iot-card-link")).first().click();
      await page.locator(tid("iot-detail-page")).waitFor();
      expect(page.url()).toContain(`/iotCard/${HEAVY}`);
    } finally {
      await context.close();
    }
  });
});
