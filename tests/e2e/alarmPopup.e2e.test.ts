import { mkdirSync } from "node:fs";
import { ALARM_POPUP_JUMP_MINUTES } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceLinks, devices } from "../../apps/server/src/modules/devices/schema.ts";
import { DEMO_ACCOUNTS, type DemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Issue 17's alarm pop-up in a real browser, the alarms raised on a real agent's simulated
 * HMI: the pop-up stays clear of the header's language switch and user menu, and moves
 * beside an open device drawer; Confirm confirms the alarm (the alarm centre shows it
 * confirmed); several alarms make one summary pop-up listing them; a read-only member, whom
 * the server does not let confirm, gets no Confirm. Screenshots (zh and en; 1440×900,
 * 1280×720, a phone, the TV) go to /tmp/shots-popup/.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let platform: typeof fixture.platform;
let agent: SimulatedAgent;
let demo: DemoDevice;
let deviceId: number;
let hmi: Page;

const SHOTS = "/tmp/shots-popup";
/** A member of the demo device with the read-only level and alarms on (SPEC §6 levels). */
const READER = { email: "reader@example.com", password: "reader123", name: "Riley" };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startMaintainedDemo("alarmPopup");
  ({ platform, agent, demo } = fixture);
  const [device] = await platform.db
    .select({ id: devices.id })
    .from(devices)
    .where(eq(devices.code, demo.machineCode));
  deviceId = device?.id ?? 0;
  const reader = await platform.app.services.accounts.createActivatedUser({
    account: { channel: "email", email: READER.email },
    password: READER.password,
    name: READER.name,
  });
  // Set up directly: how a member gets the level is the access tests' subject.
  await platform.db.insert(deviceLinks).values({
    deviceId,
    userId: reader.id,
    role: "user",
    name: "Shared press",
    canWrite: false,
    receivesAlarms: true,
    createdAt: new Date(),
  });
  const hmiContext = await platform.browser.newContext();
  hmi = await hmiContext.newPage();
  hmi.setDefaultTimeout(30_000);
  // The agent process opens the HMI's page once it has started.
  for (let i = 0; i < 120; i++) {
    const up = await fetch(`http://127.0.0.1:${agent.hmiPort}/`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((done) => setTimeout(done, 500));
  }
  await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

/** The operator raises an alarm on the HMI's own page; the agent sends it to the cloud. */
async function raise(text: string) {
  await hmi.fill(tid("hmi-alarm-text"), text);
  await hmi.click(tid("hmi-raise"));
  await expect.poll(() => hmi.textContent(tid("hmi-alarms")), { timeout: 30_000 }).toContain(text);
}

const popupOf = (page: Page) =>
  page.locator(".ant-notification-notice", { has: page.locator(tid("alarm-popup")) });

/** A box once the element has stopped moving (the notice slides in). */
async function stableBox(locator: Locator) {
  let last = "";
  for (let i = 0; i < 60; i++) {
    const box = await locator.boundingBox();
    const now = JSON.stringify(box);
    if (box && now === last) return box;
    last = now;
    await locator.page().waitForTimeout(150);
  }
  throw new Error("the element kept moving");
}

type Box = { x: number; y: number; width: number; height: number };
const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The pop-up's box against each control's: none may overlap. */
async function expectClear(page: Page, popup: Locator, controls: string[]) {
  const box = await stableBox(popup);
  for (const selector of controls) {
    const control = await page.locator(selector).first().boundingBox();
    expect(control, selector).not.toBeNull();
    expect(intersects(box, control as Box), `${selector} under the pop-up`).toBe(false);
  }
}

const HEADER_CONTROLS = [tid("lang-cn"), tid("lang-en"), tid("user-avatar")];
const DRAWER_CONTROLS = [
  tid("device-detail-connect"),
  tid("device-authority-open"),
  tid("device-detail-edit"),
  ".ant-drawer-open .ant-drawer-close",
  ".ant-drawer-open .ant-tabs-nav",
];

async function desktop(
  browser: Browser,
  viewport: { width: number; height: number },
  who: { email: string; password: string } = DEMO_ACCOUNTS.user,
  language = "en",
) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await platform.logIn(page, who, language);
  return { context, page };
}

const settle = (page: Page) => page.waitForTimeout(700);

describe("the alarm pop-up", () => {
  it("stays clear of the header and an open drawer, and Confirm confirms the alarm", async () => {
    const { context, page } = await desktop(platform.browser, { width: 1440, height: 900 });
    try {
      await page.goto(platform.url("/index?listType=list&language=en"));
      await page.locator(tid(`device-detail-${deviceId}`)).waitFor();
      await raise("Popup: oil pressure low");
      const popup = popupOf(page);
      await popup.waitFor({ timeout: 30_000 });
      expect(await popup.locator(tid("alarm-popup-content")).textContent()).toBe(
        "Popup: oil pressure low",
      );
      // The owner (Akey) may confirm: Confirm once the server's rights are in.
      const confirm = popup.locator(tid("alarm-popup-confirm"));
      await confirm.waitFor({ timeout: 20_000 });
      expect(await popup.locator(tid("alarm-popup")).getAttribute("data-placement")).toBe(
        "bottom-right",
      );
      await expectClear(page, popup, HEADER_CONTROLS);
      const alarmId = await popup.locator(tid("alarm-popup")).getAttribute("data-alarm");
      expect(Number(alarmId)).toBeGreaterThan(0);

      // The device drawer opens on the right: the pop-up moves beside it.
      await page.click(tid(`device-detail-${deviceId}`));
      await page.locator(tid("device-detail-edit")).waitFor();
      await expect
        .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-placement"), {
          timeout: 20_000,
        })
        .toBe("beside-drawer");
      await expectClear(page, popup, [
        ...DRAWER_CONTROLS,
        ".ant-drawer-open .ant-drawer-content-wrapper",
      ]);
      await settle(page);
      await page.screenshot({ path: `${SHOTS}/drawer-1440-en.png` });

      // Confirm: the pop-up closes, and the alarm centre shows the alarm confirmed.
      await confirm.click();
      await popup.waitFor({ state: "detached", timeout: 20_000 });
      await page.locator(".ant-message", { hasText: "Alarm confirmed" }).waitFor();
      await page.locator(".ant-drawer-close").click();
      await page.click(tid("nav-alarmCenter"));
      const state = page.locator(tid(`alarm-state-${alarmId}`));
      await expect.poll(() => state.getAttribute("data-confirmed"), { timeout: 20_000 }).toBe("1");
      expect(await page.locator(tid(`alarm-confirm-${alarmId}`)).count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 240_000);

  it("gathers several alarms into one summary pop-up listing them", async () => {
    const { context, page } = await desktop(platform.browser, { width: 1440, height: 900 });
    try {
      await page.click(tid("nav-alarmCenter"));
      await page.locator(tid("alarm-center-page")).waitFor();
      for (const text of ["Summary: door 1 open", "Summary: door 2 open", "Summary: door 3 open"])
        await raise(text);
      const popup = popupOf(page);
      await expect
        .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"), {
          timeout: 30_000,
        })
        .toBe("3");
      // One notice, titled with the count, listing the three, newest first.
      expect(await popupOf(page).count()).toBe(1);
      expect(await page.locator(".ant-notification-notice").count()).toBe(1);
      expect(await popup.textContent()).toContain("3 new alarms");
      const items = popup.locator('[data-testid^="alarm-popup-item-"]');
      expect(await items.count()).toBe(3);
      expect(await items.first().textContent()).toContain("Summary: door 3 open");
      expect(await items.nth(2).textContent()).toContain("Summary: door 1 open");
      await popup.locator(tid("alarm-popup-centre")).waitFor();
      await expectClear(page, popup, HEADER_CONTROLS);
      await popup.locator('[data-testid^="alarm-popup-confirm-"]').first().waitFor();
      await settle(page);
      await page.screenshot({ path: `${SHOTS}/summary-1440-en.png` });

      // Confirming one takes it off the summary; the list on the page follows.
      const newest = items.first();
      const newestId = (await newest.getAttribute("data-testid"))?.replace("alarm-popup-item-", "");
      await popup.locator(tid(`alarm-popup-confirm-${newestId}`)).click();
      await expect
        .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"))
        .toBe("2");
      expect(await popup.textContent()).toContain("2 new alarms");
      await expect
        .poll(() => page.locator(tid(`alarm-state-${newestId}`)).getAttribute("data-confirmed"), {
          timeout: 20_000,
        })
        .toBe("1");

      // In Chinese, the same summary.
      await page.click(tid("lang-cn"));
      await expect.poll(() => popup.textContent()).toContain("2 条新报警");
      await settle(page);
      await page.screenshot({ path: `${SHOTS}/summary-1440-zh.png` });
      await page.click(tid("lang-en"));

      // One confirmed in the alarm centre's list leaves the pop-up too.
      const oldestId = (await items.nth(1).getAttribute("data-testid"))?.replace(
        "alarm-popup-item-",
        "",
      );
      await page.click(tid(`alarm-confirm-${oldestId}`));
      await page.click(tid(`alarm-confirm-ok-${oldestId}`));
      await expect
        .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"), {
          timeout: 20_000,
        })
        .toBe("1");
      expect(await popup.textContent()).toContain("New alarm");

      // The alarm centre link closes it.
      await popup.locator(tid("alarm-popup-centre")).click();
      await popup.waitFor({ state: "detached" });
      expect(new URL(page.url()).pathname).toBe("/alarmCenter");
    } finally {
      await context.close();
    }
  }, 240_000);

  it("offers no Confirm to a read-only member (the server's rights say no)", async () => {
    const owner = await desktop(platform.browser, { width: 1440, height: 900 });
    const reader = await desktop(platform.browser, { width: 1440, height: 900 }, READER);
    try {
      await raise("Readonly: tank level high");
      const readerPopup = popupOf(reader.page);
      const ownerPopup = popupOf(owner.page);
      await readerPopup.waitFor({ timeout: 30_000 });
      await ownerPopup.waitFor({ timeout: 30_000 });
      expect(await readerPopup.textContent()).toContain("Readonly: tank level high");
      // The owner's pop-up of the same alarm has Confirm; the reader's, once the rights are
      // in, none.
      await ownerPopup.locator(tid("alarm-popup-confirm")).waitFor({ timeout: 20_000 });
      const item = readerPopup.locator('[data-testid^="alarm-popup-item-"]');
      await expect.poll(() => item.getAttribute("data-rights"), { timeout: 20_000 }).toBe("none");
      expect(await readerPopup.locator('[data-testid^="alarm-popup-confirm"]').count()).toBe(0);
      // The rest is theirs: View and the alarm centre.
      await readerPopup.locator(tid("alarm-popup-view")).waitFor();
      await readerPopup.locator(tid("alarm-popup-centre")).waitFor();
      await settle(reader.page);
      await reader.page.screenshot({ path: `${SHOTS}/readonly-1440-en.png` });
    } finally {
      await owner.context.close();
      await reader.context.close();
    }
  }, 240_000);

  it("left alone, the summary opens the device's alarms after ALARM_POPUP_JUMP_MINUTES", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await page.clock.install();
      await platform.logIn(page);
      await page.goto(platform.url("/msgCenter?language=en"));
      await page.waitForSelector(tid("msg-page"));
      await raise("Jump: first");
      await raise("Jump: second");
      const popup = popupOf(page);
      await expect
        .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"), {
          timeout: 30_000,
        })
        .toBe("2");
      expect(new URL(page.url()).pathname).toBe("/msgCenter");
      await page.clock.fastForward(`0${ALARM_POPUP_JUMP_MINUTES}:01`);
      await page.waitForURL(/\/index.*tab=alarms/, { timeout: 20_000 });
      await popup.waitFor({ state: "detached" });
      await expect
        .poll(() => page.textContent(tid("device-alarm-table")), { timeout: 20_000 })
        .toContain("Jump: second");
    } finally {
      await context.close();
    }
  }, 240_000);

  it("looks right at 1280×720 with a wide drawer, on the TV and on a phone, in zh and en", async () => {
    for (const language of ["en", "cn"] as const) {
      const suffix = language === "cn" ? "zh" : "en";
      // 1280×720: the visit log's wide drawer leaves the pop-up a narrow strip.
      {
        const { context, page } = await desktop(
          platform.browser,
          { width: 1280, height: 720 },
          DEMO_ACCOUNTS.user,
          language,
        );
        try {
          await page.goto(platform.url(`/index?listType=list&language=${language}`));
          await page.click(tid(`device-detail-${deviceId}`));
          await page.click(tid("device-detail-tab-visits"));
          await raise(`Small screen ${suffix} 1`);
          await raise(`Small screen ${suffix} 2`);
          const popup = popupOf(page);
          await expect
            .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"), {
              timeout: 30_000,
            })
            .toBe("2");
          expect(await popup.locator(tid("alarm-popup")).getAttribute("data-placement")).toBe(
            "beside-drawer",
          );
          await expectClear(page, popup, [
            ...DRAWER_CONTROLS,
            ".ant-drawer-open .ant-drawer-content-wrapper",
          ]);
          await settle(page);
          await page.screenshot({ path: `${SHOTS}/drawer-1280-${suffix}.png` });
          // The drawer closed: back to the bottom right, clear of the header.
          await page.locator(".ant-drawer-close").click();
          await expect
            .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-placement"))
            .toBe("bottom-right");
          await expectClear(page, popup, HEADER_CONTROLS);
          await settle(page);
          await page.screenshot({ path: `${SHOTS}/summary-1280-${suffix}.png` });
        } finally {
          await context.close();
        }
      }
      // The TV (?tv=1): no navigation; the pop-up at the bottom right.
      {
        const { context, page } = await desktop(
          platform.browser,
          { width: 1920, height: 1080 },
          DEMO_ACCOUNTS.user,
          language,
        );
        try {
          await page.goto(platform.url(`/index?tv=1&language=${language}`));
          await page.locator(tid(`tv-tile-${demo.machineCode}`)).waitFor();
          await raise(`TV ${suffix}`);
          const popup = popupOf(page);
          await popup.waitFor({ timeout: 30_000 });
          await popup.locator(tid("alarm-popup-confirm")).waitFor({ timeout: 20_000 });
          await expectClear(page, popup, HEADER_CONTROLS);
          await settle(page);
          await page.screenshot({ path: `${SHOTS}/tv-${suffix}.png` });
          await page.goto(platform.url("/index?tv=0"));
        } finally {
          await context.close();
        }
      }
      // A phone: above the tab bar, Confirm there too.
      {
        const context = await platform.browser.newContext({
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          userAgent:
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        });
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        try {
          await platform.logInPhone(page, DEMO_ACCOUNTS.user, language);
          await raise(`Phone ${suffix} 1`);
          await raise(`Phone ${suffix} 2`);
          const popup = popupOf(page);
          await expect
            .poll(() => popup.locator(tid("alarm-popup")).getAttribute("data-count"), {
              timeout: 30_000,
            })
            .toBe("2");
          await popup.locator('[data-testid^="alarm-popup-confirm-"]').first().waitFor();
          await expectClear(page, popup, [tid("m-tabbar")]);
          await settle(page);
          await page.screenshot({ path: `${SHOTS}/phone-${suffix}.png` });
        } finally {
          await context.close();
        }
      }
    }
  }, 480_000);
});
