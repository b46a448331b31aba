import { API, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, type DemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Issue 10's TV-box mode in a real browser with the demo device's simulated agent: a TV
 * box's user agent is not sent to the mobile route; after the login the navigation is
 * hidden and the device list is the device wall, which shows the device online and an alarm
 * raised on its HMI without a reload; the arrow keys move between the tiles. A desktop
 * browser turns the mode on with ?tv=1 (remembered) and off with ?tv=0. Screenshot of the
 * wall: /tmp/kw-tv-wall-*.png.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let platform: typeof fixture.platform;
let agent: SimulatedAgent;
let demo: DemoDevice;

/** An Amazon Fire TV stick's browser (Android, "Mobile" in the agent, AFT model). */
const FIRE_TV =
  "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/108.0.5359.160 Mobile Safari/537.36";

beforeAll(async () => {
  fixture = await startMaintainedDemo("tv");
  ({ platform, agent, demo } = fixture);
  // A second device of the demo user (offline), so the wall has tiles to move between.
  const [spare] = await platform.app.services.devices.provision(1, "MT8102iE");
  const login = await fetch(platform.url(pathOf(API.accounts.login)), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      loginName: DEMO_ACCOUNTS.user.email,
      loginPwd: DEMO_ACCOUNTS.user.password,
      terminalType: "web",
      terminalName: "setup",
    }).toString(),
  }).then((r) => r.json());
  const added = await fetch(platform.url(pathOf(API.devices.add)), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cloudtoken: login.hwdata.result.token,
    },
    body: new URLSearchParams({
      machineCode: spare.machineCode,
      machinePwd: spare.devicePassword,
      machineName: "Spare panel",
    }).toString(),
  }).then((r) => r.json());
  expect(added.hwcode).toBe(0);
});
afterAll(async () => {
  await fixture?.close();
});

const settle = (page: Page) => page.waitForTimeout(700);

async function logIn(page: Page, path: string) {
  await page.goto(platform.url(path));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), DEMO_ACCOUNTS.user.email);
  await page.fill(tid("login-password"), DEMO_ACCOUNTS.user.password);
  await page.click(tid("login-submit"));
}

describe("TV-box mode", () => {
  it("shows a TV box the device wall without navigation, live states and alarms", async () => {
    const context = await platform.browser.newContext({
      userAgent: FIRE_TV,
      viewport: { width: 1920, height: 1080 },
    });
    const page = await context.newPage();
    try {
      // No mobile redirect for a TV box, although its agent says Android and Mobile.
      await logIn(page, "/login?language=en");
      expect(new URL(page.url()).pathname).not.toMatch(/^\/mobile/);
      const tile = page.locator(tid(`tv-tile-${demo.machineCode}`));
      await tile.waitFor();
      expect(new URL(page.url()).pathname).toBe("/index");
      expect(await page.locator(tid("side-nav")).count()).toBe(0);
      await expect.poll(() => tile.getAttribute("data-online"), { timeout: 30_000 }).toBe("1");
      expect(await tile.locator(tid("tv-tile-state")).textContent()).toContain("Online");

      // An alarm raised on the HMI reaches the wall by push.
      const hmi = await context.newPage();
      await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
      await hmi.fill(tid("hmi-alarm-text"), "Spindle overload");
      await hmi.click(tid("hmi-raise"));
      await expect
        .poll(() => hmi.textContent(tid("hmi-alarms")), { timeout: 15_000 })
        .toContain("✓");
      await hmi.close();
      await page.bringToFront();
      await expect
        .poll(() => tile.locator(tid("tv-tile-alarm")).textContent(), { timeout: 15_000 })
        .toBe("Spindle overload");
      expect(Number(await tile.getAttribute("data-unconfirmed"))).toBeGreaterThanOrEqual(1);
      await page
        .locator(".ant-notification-notice-close")
        .first()
        .click({ timeout: 5_000 })
        .catch(() => {});

      // The remote's arrow keys move the focus between the tiles.
      const spare = page.locator('[data-tile][data-online="0"]');
      await tile.focus();
      const focused = () =>
        page.evaluate(() => document.activeElement?.getAttribute("data-testid"));
      const first = await focused();
      await page.keyboard.press("ArrowRight");
      const second = await focused();
      expect(second).not.toBe(first);
      expect([first, second]).toContain(await spare.getAttribute("data-testid"));
      await page.keyboard.press("ArrowLeft");
      expect(await focused()).toBe(first);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-tv-wall-en.png" });

      // 中文 from the header.
      await page.click(tid("lang-cn"));
      await expect.poll(() => page.textContent(tid("tv-summary"))).toContain("台在线");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-tv-wall-zh.png" });
    } finally {
      await context.close();
    }
  });

  it("lets the wall choose its context: ?eid= or the chooser on the wall", async () => {
    const context = await platform.browser.newContext({
      userAgent: FIRE_TV,
      viewport: { width: 1920, height: 1080 },
    });
    const page = await context.newPage();
    const tiles = page.locator("[data-tile]");
    try {
      await logIn(page, "/login?language=en");
      await page.locator(tid(`tv-tile-${demo.machineCode}`)).waitFor();
      // Personal: the demo device and the spare panel.
      await expect.poll(() => tiles.count()).toBe(2);
      expect(await page.getAttribute(tid("tv-context-0"), "aria-pressed")).toBe("true");

      // The enterprise by address: only the device it maintains.
      await page.goto(platform.url(`/index?listType=list&eid=${fixture.eid}`));
      await expect
        .poll(() => page.getAttribute(tid(`tv-context-${fixture.eid}`), "aria-pressed"))
        .toBe("true");
      await expect.poll(() => tiles.count()).toBe(1);
      await page.locator(tid(`tv-tile-${demo.machineCode}`)).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-tv-wall-context-en.png" });

      // The chooser on the wall: personal again (remembered like the desktop's switch).
      await page.click(tid("tv-context-0"));
      await expect.poll(() => tiles.count()).toBe(2);
      await page.goto(platform.url("/index?listType=list&language=cn"));
      await expect.poll(() => tiles.count()).toBe(2);
      await page.click(tid(`tv-context-${fixture.eid}`));
      await expect.poll(() => tiles.count()).toBe(1);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-tv-wall-context-zh.png" });
      // An enterprise the user is not in: ignored.
      await page.goto(platform.url("/index?listType=list&eid=99999"));
      await page.locator(tid("tv-wall")).waitFor();
      expect(await page.getAttribute(tid(`tv-context-${fixture.eid}`), "aria-pressed")).toBe(
        "true",
      );
    } finally {
      await context.close();
    }
  });

  it("turns TV-box mode on with ?tv=1 on a desktop browser, remembered until ?tv=0", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await logIn(page, "/login?language=en");
      await page.waitForSelector(tid("side-nav"));
      expect(await page.locator(tid("tv-wall")).count()).toBe(0);

      await page.goto(platform.url("/index?listType=list&tv=1"));
      await page.locator(tid("tv-wall")).waitFor();
      expect(await page.locator(tid("side-nav")).count()).toBe(0);
      // Remembered: the flag is not needed any more.
      await page.goto(platform.url("/index?listType=list"));
      await page.locator(tid("tv-wall")).waitFor();

      await page.goto(platform.url("/index?listType=list&tv=0"));
      await page.waitForSelector(tid("side-nav"));
      expect(await page.locator(tid("tv-wall")).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
