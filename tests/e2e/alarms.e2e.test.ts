import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, type DemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Issue 7's alarm centre in a real browser with a real agent process: an alarm raised on the
 * simulated HMI's page reaches the owner as a pop-up (device, level, content), appears in the
 * alarm centre and raises today's bar of the chart; the owner confirms it (asked first) and
 * sees its state change; the HMI clears it and the centre shows it cleared; the device's
 * alarm tab resets the rest. Screenshots in both languages go to /tmp/kw-alarms-*.png.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let platform: typeof fixture.platform;
let agent: SimulatedAgent;
let demo: DemoDevice;
let eid: number;

beforeAll(async () => {
  fixture = await startMaintainedDemo("alarms");
  ({ platform, agent, demo, eid } = fixture);
});
afterAll(async () => {
  await fixture?.close();
});

/** Lets animations settle before a screenshot. */
const settle = (page: Page) => page.waitForTimeout(600);
const numberAt = async (page: Page, id: string, attribute: string) =>
  Number(await page.getAttribute(tid(id), attribute));

const logIn = (page: Page) => platform.logIn(page);

describe("the alarm centre", () => {
  it("shows a new HMI alarm as a pop-up, in the list and the charts; confirm, clear, reset", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    try {
      await logIn(page);
      // The alarm centre from the side navigation: nothing yet.
      await page.click(tid("nav-alarmCenter"));
      await page.waitForURL(/\/alarmCenter/);
      await page.locator(tid("alarm-stat-total")).waitFor();
      const todayBefore = await numberAt(page, "alarm-chart-day", "data-today");
      const totalBefore = await numberAt(page, "alarm-stat-total", "data-value");
      await page.locator(tid("alarm-empty")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-empty-en.png" });

      // The operator of the machine raises an alarm on the simulated HMI's own page.
      const hmi = await context.newPage();
      await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
      await hmi.fill(tid("hmi-alarm-text"), "Hydraulic pressure low");
      await hmi.click(tid("hmi-raise"));
      await expect
        .poll(() => hmi.textContent(tid("hmi-alarms")), { timeout: 15_000 })
        .toContain("✓");

      // Keyway: the pop-up names the device, the level and the content.
      await page.bringToFront();
      const popup = page.locator(".ant-notification-notice", {
        has: page.locator(tid("alarm-popup")),
      });
      await popup.waitFor({ timeout: 15_000 });
      expect(await popup.locator(tid("alarm-popup-content")).textContent()).toBe(
        "Hydraulic pressure low",
      );
      expect(await popup.textContent()).toContain("Minor");
      const deviceName = await popup.locator(tid("alarm-popup-device")).textContent();
      expect(deviceName).toBeTruthy();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-popup-en.png" });

      // The entry in the list, and the counts rise (the push refreshed the page).
      const row = page.locator('[data-testid^="alarm-row-"]', {
        hasText: "Hydraulic pressure low",
      });
      await row.waitFor({ timeout: 15_000 });
      await expect
        .poll(() => numberAt(page, "alarm-stat-total", "data-value"))
        .toBe(totalBefore + 1);
      await expect
        .poll(() => numberAt(page, "alarm-chart-day", "data-today"))
        .toBe(todayBefore + 1);
      expect(await page.getAttribute(tid("alarm-chart-level"), "data-values")).toBe("0,1,0,0");
      const alarmId = (await row.getAttribute("data-testid"))?.replace("alarm-row-", "") ?? "";
      const state = page.locator(tid(`alarm-state-${alarmId}`));
      expect(await state.getAttribute("data-confirmed")).toBe("0");
      await popup.locator(".ant-notification-notice-close").click();
      await popup.waitFor({ state: "detached" });

      // The owner's e-mail switch is on by default: the test's SMTP server receives the alarm
      // under the brand's bilingual subject, with the content in the body.
      const mail = await platform.smtp.waitFor(DEMO_ACCOUNTS.user.email, 30_000);
      expect(mail.subject).toMatch(/设备报警 .+ \/ \[.+\] Device alarm: /);
      expect(mail.subject).toContain(deviceName ?? "");
      expect(mail.text).toContain("Hydraulic pressure low");

      // Confirm it, after the question; the state changes and nothing is left unconfirmed.
      await page.click(tid(`alarm-confirm-${alarmId}`));
      await page.click(tid(`alarm-confirm-ok-${alarmId}`));
      await page.locator(".ant-message", { hasText: "Alarm confirmed" }).waitFor();
      await expect.poll(() => state.getAttribute("data-confirmed")).toBe("1");
      await expect.poll(() => numberAt(page, "alarm-stat-unconfirmed", "data-value")).toBe(0);
      expect(await page.locator(tid(`alarm-confirm-${alarmId}`)).count()).toBe(0);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-confirmed-en.png", fullPage: true });

      // The HMI clears it: the cloud marks it cleared (no new alarm).
      await hmi.bringToFront();
      await hmi.click(tid(`hmi-clear-${await newestHmiAlarm(hmi)}`));
      await expect.poll(() => hmi.textContent(tid("hmi-alarms"))).toContain("(cleared)");
      await page.bringToFront();
      await expect
        .poll(async () => {
          await page.click(tid("alarm-refresh"));
          return state.getAttribute("data-cleared");
        })
        .toBe("1");
      expect(await numberAt(page, "alarm-stat-total", "data-value")).toBe(totalBefore + 1);

      // The filters: the device and a state narrow the list.
      await page.click(tid("alarm-filter-state"));
      await page.locator(".ant-select-item-option", { hasText: "Unconfirmed" }).click();
      await page.locator(tid("alarm-empty")).waitFor();
      await page.click(tid("alarm-filter-reset"));
      await row.waitFor();

      // In Chinese.
      await page.click(tid("lang-cn"));
      await expect.poll(() => page.textContent(tid("alarm-center-page"))).toContain("报警中心");
      await page.waitForTimeout(1200);
      await page.screenshot({ path: "/tmp/kw-alarms-cn.png", fullPage: true });
      await page.click(tid("lang-en"));

      // A second alarm; from the pop-up, View opens the device's alarm tab, which resets.
      await hmi.bringToFront();
      await hmi.fill(tid("hmi-alarm-text"), "Door open");
      await hmi.click(tid("hmi-raise"));
      await page.bringToFront();
      await popup.waitFor({ timeout: 15_000 });
      const deviceId = await popup.locator(tid("alarm-popup")).getAttribute("data-device");
      await page.click(tid("alarm-popup-view"));
      const table = page.locator(tid("device-alarm-table"));
      await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain("Door open");
      await page.click(tid("alarm-reset"));
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-device-reset-en.png" });
      await page.click(tid("alarm-reset-ok"));
      await page.locator(".ant-message", { hasText: "1 cleared, 1 confirmed" }).waitFor();
      const doorState = table.locator('[data-testid^="alarm-state-"]').first();
      await expect.poll(() => doorState.getAttribute("data-cleared")).toBe("1");
      expect(await doorState.getAttribute("data-confirmed")).toBe("1");
      // The same tab in Chinese (the drawer covers the header's language switch).
      await page.locator(".ant-drawer-close").click();
      await table.waitFor({ state: "hidden" });
      await page.click(tid("lang-cn"));
      await page.click(tid(`device-detail-${deviceId}`));
      await page.click(tid("device-detail-tab-alarms"));
      await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain("已清除");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-device-cn.png" });

      // The enterprise that maintains the device: its alarm centre holds the same alarms,
      // and a maintainer may confirm all of a device's alarms.
      await page.locator(".ant-drawer-close").click();
      await page.click(tid("lang-en"));
      await page.click(tid("context-switch"));
      await page.click(tid(`context-option-${eid}`));
      await page.click(tid("nav-alarmCenter"));
      await expect.poll(() => page.textContent(tid("alarm-context"))).toBe("Acme Plastics");
      await expect.poll(() => page.getAttribute(tid("alarm-total"), "data-total")).toBe("2");
      await page.click(tid("alarm-filter-device"));
      await page.locator(".ant-select-item-option", { hasText: demo.machineCode }).click();
      await page.locator(tid("alarm-confirm-all")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-enterprise-en.png", fullPage: true });
      // Its maintenance list's drawer has the alarm tab too.
      await page.click(tid("nav-device-2"));
      await page.click(tid(`enterprise-device-row-${demo.machineCode}`));
      await page.click(tid("enterprise-detail-tab-alarms"));
      await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain("Door open");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-alarms-enterprise-drawer-en.png" });
    } finally {
      await context.close();
    }
  }, 180_000);
});

/** The id of the newest alarm on the HMI page that can still be cleared. */
async function newestHmiAlarm(hmi: Page): Promise<string> {
  const button = hmi.locator('[data-testid^="hmi-clear-"]').first();
  await button.waitFor();
  return ((await button.getAttribute("data-testid")) ?? "").replace("hmi-clear-", "");
}
