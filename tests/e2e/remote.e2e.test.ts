import { API, pathOf } from "@keyway/shared";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, type DemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Issue 6 in a real browser with a real agent process and its tunnel: the owner clicks
 * Connect, a new tab shows the simulated HMI on `<visit-id>.visit.localhost:<port>`, a button
 * on it round-trips to the device, the visit shows running in the Visits tab; ending it (and,
 * on a second visit, closing the cloud service) makes the HMI page lose its link; Connect is
 * then refused as "cloud closed", and disabled once the device is offline. The enterprise
 * list connects too (validVisitUrl). Screenshots in
 * both languages go to /tmp/kw-remote-*.png.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let platform: typeof fixture.platform;
let agent: SimulatedAgent;
let demo: DemoDevice;
let eid: number;

beforeAll(async () => {
  fixture = await startMaintainedDemo("remote");
  ({ platform, agent, demo, eid } = fixture);
});
afterAll(async () => {
  await fixture?.close();
});

const VISIT_URL_CALL = `**${pathOf(API.visits.getValidVisitUrl)}`;

const logIn = (page: Page) => platform.logIn(page);

/** Lets animations settle before a screenshot. */
const settle = (page: Page) => page.waitForTimeout(600);

/** Clicks a Connect button and returns the HMI tab it opened, once its link is up. */
async function connectPlain(context: BrowserContext, page: Page, button: string): Promise<Page> {
  const opened = context.waitForEvent("page");
  await page.click(tid(button));
  const tab = await opened;
  await expect.poll(() => page.getAttribute(tid("connect-status"), "data-state")).toBe("online");
  await tab.waitForURL(/\.visit\.localhost:\d+\//, { timeout: 15_000 });
  await expect.poll(() => tab.textContent(tid("hmi-link")), { timeout: 15_000 }).toBe("connected");
  await page.bringToFront();
  await dismissStatus(page);
  return tab;
}

/**
 * Clicks a Connect button with the visit URL call held back, so that the "connecting" state
 * can be seen (and photographed); returns the tab it opened, once the state is "online".
 */
async function connectThroughUi(
  context: BrowserContext,
  page: Page,
  button: string,
  screenshot: string,
): Promise<Page> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(VISIT_URL_CALL, async (route) => {
    await held;
    await route.continue();
  });
  const opened = context.waitForEvent("page");
  await page.click(tid(button));
  const tab = await opened;
  const status = page.locator(tid("connect-status"));
  await expect.poll(() => status.getAttribute("data-state")).toBe("connecting");
  // The new tab says so too until the URL arrives.
  await expect.poll(() => tab.textContent("body")).toMatch(/Connecting|正在/);
  await tab.screenshot({ path: screenshot.replace(".png", "-tab.png") });
  // A hidden page does not animate: look at Keyway's while it waits.
  await page.bringToFront();
  await settle(page);
  await page.screenshot({ path: screenshot });
  release();
  await expect.poll(() => status.getAttribute("data-state")).toBe("online");
  await page.unroute(VISIT_URL_CALL);
  await dismissStatus(page);
  // The tab was opened blank on the click and sent to the visit host once the URL came.
  await tab.waitForURL(/\.visit\.localhost:\d+\//, { timeout: 15_000 });
  expect(new URL(tab.url()).host).toMatch(
    new RegExp(`^[a-z2-7]{26}\\.visit\\.localhost:${platform.port}$`),
  );
  await expect.poll(() => tab.textContent(tid("hmi-link")), { timeout: 15_000 }).toBe("connected");
  return tab;
}

/** Closes the connection notification (it would stay while the pointer rests on it). */
async function dismissStatus(page: Page) {
  await page.locator(`${tid("connect-status")} .ant-notification-notice-close`).click();
  await page.locator(tid("connect-status")).waitFor({ state: "detached" });
}

const visitIdOf = (tab: Page) => new URL(tab.url()).host.split(".")[0];

describe("remote access in the browser", () => {
  it("connects to the simulated HMI through the relay, logs the visit and cuts it", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    await page.goto(platform.url("/index?listType=list&language=en"));
    const row = page.locator(tid(`device-row-${demo.machineCode}`));
    await row.waitFor();
    const deviceId = Number(await row.getAttribute("data-row-key"));
    await expect
      .poll(() => Boolean(platform.app.services.tunnels.hello(deviceId)), { timeout: 60_000 })
      .toBe(true);
    const rowConnect = page.locator(tid(`device-connect-${deviceId}`));
    await expect.poll(() => rowConnect.getAttribute("data-online"), { timeout: 30_000 }).toBe("1");
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-list-en.png" });
    // The card view has Connect too.
    await page.click(tid("device-view-card"));
    const cardConnect = page.locator(
      `${tid(`device-card-${demo.machineCode}`)} ${tid(`device-connect-${deviceId}`)}`,
    );
    expect(await cardConnect.getAttribute("data-online")).toBe("1");
    await cardConnect.hover();
    await page.locator(".ant-tooltip", { hasText: "Connect" }).waitFor();
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-cards-en.png" });
    await page.click(tid("device-view-table"));

    // Connect from the list: connecting → online, the HMI in a new tab on its visit host.
    const hmi = await connectThroughUi(
      context,
      page,
      `device-connect-${deviceId}`,
      "/tmp/kw-remote-connecting-en.png",
    );
    const visitId = visitIdOf(hmi);

    // A button on the HMI's own page round-trips to the device: the alarm is raised there
    // and comes back in the page's list, delivered to the cloud (✓).
    await hmi.fill(tid("hmi-alarm-text"), "Valve 7 stuck");
    await hmi.click(tid("hmi-raise"));
    const hmiAlarms = hmi.locator(tid("hmi-alarms"));
    await expect
      .poll(() => hmiAlarms.textContent(), { timeout: 15_000 })
      .toContain("Valve 7 stuck");
    await expect.poll(() => hmiAlarms.textContent(), { timeout: 15_000 }).toContain("✓");
    await settle(hmi);
    await hmi.screenshot({ path: "/tmp/kw-remote-hmi-en.png" });

    // Back in Keyway: the alarm came from the device through the cloud (the new-alarm
    // pop-up); the visit is in the device's Visits tab, running, with bytes each way.
    await page.bringToFront();
    const popup = page.locator(".ant-notification-notice", {
      has: page.locator(tid("alarm-popup")),
    });
    await popup.waitFor({ timeout: 15_000 });
    await popup.locator(".ant-notification-notice-close").click();
    await popup.waitFor({ state: "detached" });
    await page.click(tid(`device-detail-${deviceId}`));
    await page.click(tid("device-detail-tab-visits"));
    const visitRow = page.locator(tid(`device-visit-row-${visitId}`));
    await visitRow.waitFor();
    expect(await visitRow.getAttribute("data-state")).toBe("running");
    expect(await visitRow.textContent()).toContain(DEMO_ACCOUNTS.user.name);
    expect(await visitRow.textContent()).toContain(`127.0.0.1:${agent.hmiPort}`);
    await expect
      .poll(async () => {
        await page.click(tid("device-visits-refresh"));
        return Number(await visitRow.locator(tid("device-visit-in")).getAttribute("data-value"));
      })
      .toBeGreaterThan(0);
    expect(
      Number(await visitRow.locator(tid("device-visit-out")).getAttribute("data-value")),
    ).toBeGreaterThan(0);
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-visits-en.png" });

    // The owner ends the visit: the HMI page loses its link within seconds.
    await page.click(tid(`device-visit-end-${visitId}`));
    await page.click(tid("device-visit-end-confirm"));
    // Looked at in front, as its user would: a hidden tab's timers may be throttled under load.
    await hmi.bringToFront();
    await expect.poll(() => hmi.textContent(tid("hmi-link")), { timeout: 10_000 }).toBe("lost");
    await page.bringToFront();
    await expect.poll(() => visitRow.getAttribute("data-state")).toBe("ended");
    expect(await visitRow.locator(tid("device-visit-reason")).getAttribute("data-reason")).toBe(
      "ended_by_owner",
    );
    await settle(hmi);
    await hmi.screenshot({ path: "/tmp/kw-remote-hmi-lost-en.png" });
    // Loading it again shows Keyway's refusal, not the device.
    await hmi.reload();
    expect(await hmi.textContent("body")).toContain("This visit has ended");
    await hmi.close();

    // The enterprise (maintenance) list connects through validVisitUrl.
    await page.keyboard.press("Escape");
    await page.click(tid("context-switch"));
    await page.click(tid(`context-option-${eid}`));
    await page.click(tid("nav-device-2"));
    await page.locator(tid(`enterprise-device-row-${demo.machineCode}`)).waitFor();
    const enterpriseHmi = await connectPlain(
      context,
      page,
      `enterprise-device-connect-${deviceId}`,
    );
    expect(visitIdOf(enterpriseHmi)).not.toBe(visitId);
    await enterpriseHmi.close();
    await page.click(tid("context-switch"));
    await page.click(tid("context-option-personal"));

    // In Chinese: connect again from the detail drawer.
    await page.goto(platform.url("/index?listType=list&language=cn"));
    await row.waitFor();
    await expect.poll(() => rowConnect.getAttribute("data-online"), { timeout: 30_000 }).toBe("1");
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-list-zh.png" });
    await page.click(tid(`device-detail-${deviceId}`));
    await page.locator(tid("device-detail-drawer")).waitFor();
    const hmi2 = await connectThroughUi(
      context,
      page,
      "device-detail-connect",
      "/tmp/kw-remote-connecting-zh.png",
    );
    const visit2 = visitIdOf(hmi2);
    expect(visit2).not.toBe(visitId);
    await settle(hmi2);
    await hmi2.screenshot({ path: "/tmp/kw-remote-hmi-zh.png" });

    await page.bringToFront();
    await page.click(tid("device-detail-tab-visits"));
    const row2 = page.locator(tid(`device-visit-row-${visit2}`));
    await row2.waitFor();
    expect(await row2.getAttribute("data-state")).toBe("running");
    expect(await page.locator(tid(`device-visit-row-${visitId}`)).textContent()).toContain(
      "被管理员结束",
    );
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-visits-zh.png" });

    // The Akey closes the cloud service: the open visit is cut, and Connect is refused.
    await page.click(tid("device-cloud-switch"));
    await page.click(tid("device-cloud-close-confirm"));
    await hmi2.bringToFront();
    await expect.poll(() => hmi2.textContent(tid("hmi-link")), { timeout: 10_000 }).toBe("lost");
    await page.bringToFront();
    await expect
      .poll(async () => {
        await page.click(tid("device-visits-refresh"));
        return row2.locator(tid("device-visit-reason")).getAttribute("data-reason");
      })
      .toBe("cloud_closed");
    await hmi2.close();

    const opened = context.waitForEvent("page");
    await page.click(tid("device-detail-connect"));
    const refusedTab = await opened;
    const status = page.locator(tid("connect-status"));
    await expect.poll(() => status.getAttribute("data-state")).toBe("closed");
    expect(await status.textContent()).toContain("设备已关闭云服务");
    await expect.poll(() => refusedTab.isClosed()).toBe(true);
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-refused-zh.png" });

    // The device goes offline: Connect is disabled, with the reason on hover.
    await agent.stop();
    await page.keyboard.press("Escape");
    await expect.poll(() => rowConnect.getAttribute("data-online"), { timeout: 30_000 }).toBe("0");
    expect(await rowConnect.isDisabled()).toBe(true);
    await rowConnect.hover({ force: true });
    await page.locator(".ant-tooltip", { hasText: "设备离线" }).waitFor();
    await settle(page);
    await page.screenshot({ path: "/tmp/kw-remote-offline-zh.png" });
    await context.close();
    // One long walk through both languages and both contexts: on a loaded 2-core CI machine
    // it needs more than the default minute.
  }, 240_000);
});
