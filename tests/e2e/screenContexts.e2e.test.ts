import { mkdirSync } from "node:fs";
import { API } from "@keyway/shared";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tid } from "./browser.ts";
import { startScreenDemo, until } from "./screenFixture.ts";

/**
 * "Screen" wherever "Connect" is (issue 20): the personal card view, an enterprise's
 * maintenance list (the viewer asks validVisitUrl with the enterprise's id) and its device
 * drawer; and the SPEC §4 states when the device goes away: a running screen ends as
 * "offline", reconnecting is refused as offline, and the list's Screen turns disabled.
 * Screenshots: /tmp/kw-screen/contexts-*.png.
 */
const SHOTS = "/tmp/kw-screen";
let fixture: Awaited<ReturnType<typeof startScreenDemo>>;
let deviceId = 0;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startScreenDemo("screen-contexts", {}, { maintained: true });
  const list = await fixture.call(fixture.owner.token, API.devices.select, {});
  deviceId = list.list[0].machine_id;
  await until("the agent's tunnel with its screen", () =>
    Boolean(fixture.platform.app.services.tunnels.hello(deviceId)?.vnc),
  );
  context = await fixture.platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  await fixture.platform.logIn(page);
});
afterAll(async () => {
  await context?.close();
  await fixture?.close();
});

const status = (p: Page) => p.locator(tid("screen-status")).getAttribute("data-state");

async function shot(p: Page, name: string) {
  await p.waitForTimeout(600);
  await p.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** Clicks a Screen link and returns the viewer's tab once it shows the screen. */
async function openViewer(selector: string): Promise<Page> {
  const opened = context.waitForEvent("page");
  await page.click(selector);
  const viewer = await opened;
  await expect.poll(() => status(viewer), { timeout: 30_000 }).toBe("online");
  return viewer;
}

describe("Screen beside Connect", () => {
  it("is on the personal card view", async () => {
    await page.goto(fixture.platform.url("/index?listType=list&language=en"));
    await page.click(tid("device-view-card"));
    const card = page.locator(tid(`device-card-${fixture.demo.machineCode}`));
    const screen = card.locator(tid(`device-screen-${deviceId}`));
    await expect.poll(() => screen.getAttribute("data-online"), { timeout: 30_000 }).toBe("1");
    await screen.hover();
    await shot(page, "contexts-cards-en");
    const viewer = await openViewer(
      `${tid(`device-card-${fixture.demo.machineCode}`)} ${tid(`device-screen-${deviceId}`)}`,
    );
    expect(new URL(viewer.url()).pathname).toBe(`/screen/${deviceId}`);
    await viewer.close();
    await page.click(tid("device-view-table"));
  });

  it("is on an enterprise's maintenance list and drawer, through validVisitUrl", async () => {
    await page.click(tid("context-switch"));
    await page.click(tid(`context-option-${fixture.eid}`));
    await page.click(tid("nav-device-2"));
    const screen = page.locator(tid(`enterprise-device-screen-${deviceId}`));
    await expect.poll(() => screen.getAttribute("data-online"), { timeout: 30_000 }).toBe("1");
    await shot(page, "contexts-enterprise-en");
    const asked = context.waitForEvent("request", (r) =>
      r.url().endsWith(API.visits.validVisitUrl.path),
    );
    const viewer = await openViewer(tid(`enterprise-device-screen-${deviceId}`));
    expect(new URL(viewer.url()).search).toBe(`?eid=${fixture.eid}`);
    const body = new URLSearchParams((await asked).postData() ?? "");
    expect(Object.fromEntries(body)).toMatchObject({
      eid: String(fixture.eid),
      machineId: String(deviceId),
      kind: "screen",
    });
    await viewer.close();

    await page.click(tid(`enterprise-device-row-${fixture.demo.machineCode}`));
    const drawerScreen = page.locator(tid("enterprise-detail-screen"));
    await drawerScreen.waitFor();
    expect(await drawerScreen.getAttribute("href")).toBe(`/screen/${deviceId}?eid=${fixture.eid}`);
    await shot(page, "contexts-enterprise-drawer-en");
    await page.keyboard.press("Escape");
  });

  it("ends as offline when the device goes away, and is refused as offline after", async () => {
    await page.click(tid("context-switch"));
    await page.click(tid("context-option-personal"));
    await page.goto(fixture.platform.url("/index?listType=list&language=en"));
    const viewer = await openViewer(tid(`device-screen-${deviceId}`));
    await fixture.agent.stop();
    await expect.poll(() => status(viewer), { timeout: 15_000 }).toBe("ended");
    // Offline, or the screen unreachable: the agent resets its streams as it stops.
    expect(["offline", "unreachable", "lost"]).toContain(
      await viewer.locator(tid("screen-status")).getAttribute("data-end"),
    );
    await shot(viewer, "contexts-device-gone-en");
    await until("the tunnel gone", () => !fixture.platform.app.services.tunnels.hello(deviceId));
    await viewer.click(tid("screen-reconnect"));
    await expect.poll(() => status(viewer), { timeout: 15_000 }).toBe("offline");
    await shot(viewer, "contexts-offline-en");
    await viewer.close();
    // The list follows the device's live state: Screen is disabled with the reason.
    const screen = page.locator(tid(`device-screen-${deviceId}`));
    await expect.poll(() => screen.getAttribute("data-online"), { timeout: 30_000 }).toBe("0");
  });
});
