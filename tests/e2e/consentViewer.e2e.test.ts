import { mkdirSync } from "node:fs";
import { API, HW } from "@keyway/shared";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tid } from "./browser.ts";
import { apiLogin, startScreenDemo, until } from "./screenFixture.ts";

/**
 * On-site consent in the browser (issue 20), through the real agent and the simulated HMI's
 * own prompt (its page at the machine, in a tab of its own): the Akey turns consent on in the
 * device's "Remote access" tab (asked first); the screen viewer then waits for the person at
 * the machine with a countdown, shows the screen once they accept, ends when they end it on
 * their side, and says "not accepted" with the server's message when they refuse; Connect
 * (web visits) waits and ends the same way. Screenshots: /tmp/kw-consent/*.png.
 */
const SHOTS = "/tmp/kw-consent";
const BKEY = { email: "bob@keyway.local", password: "bkey1234", name: "Bob Bkey" };
const PHONE = { ...devices["Pixel 7"], viewport: { width: 390, height: 844 } };
let fixture: Awaited<ReturnType<typeof startScreenDemo>>;
let deviceId = 0;
let context: BrowserContext;
let page: Page;
let hmi: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startScreenDemo("consent");
  const list = await fixture.call(fixture.owner.token, API.devices.select, {});
  deviceId = list.list[0].machine_id;
  await until("the agent's tunnel with its screen", () =>
    Boolean(fixture.platform.app.services.tunnels.hello(deviceId)?.vnc),
  );
  context = await fixture.platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  await fixture.platform.logIn(page);
  // The simulated HMI's own page, as the person at the machine sees it.
  hmi = await context.newPage();
  await hmi.goto(`http://127.0.0.1:${fixture.agent.hmiPort}/`);
});
afterAll(async () => {
  await context?.close();
  await fixture?.close();
});

async function shot(p: Page, name: string) {
  await p.bringToFront();
  await p.waitForTimeout(600);
  await p.screenshot({ path: `${SHOTS}/${name}.png` });
}

const status = (p: Page) => p.locator(tid("screen-status")).getAttribute("data-state");

/** The person at the machine answers the ask on the HMI's prompt. */
async function answerOnSite(answer: "accept" | "refuse") {
  await hmi.bringToFront();
  const ask = hmi.locator(tid("consent-ask"));
  await ask.waitFor({ timeout: 15_000 });
  expect(await ask.locator(tid("consent-visitor")).textContent()).toContain("Demo User");
  await shot(hmi, `hmi-ask-${answer}`);
  await ask.locator(tid(`consent-${answer}`)).click();
  await ask.waitFor({ state: "detached" });
}

describe("on-site consent", () => {
  it("is turned on by the Akey in Remote access, asked first", async () => {
    for (const language of ["cn", "en"]) {
      await page.goto(fixture.platform.url(`/index?listType=list&language=${language}`));
      await page.click(tid(`device-detail-${deviceId}`));
      await page.click(tid("device-detail-tab-remote"));
      await page.locator(tid("remote-settings")).waitFor();
      expect(await page.locator(tid("remote-screen")).getAttribute("data-value")).toBe("1");
      expect(await page.locator(tid("remote-consent-supported")).getAttribute("data-value")).toBe(
        "1",
      );
      expect(await page.locator(tid("remote-onsite_consent")).getAttribute("data-state")).toBe(
        "off",
      );
      await shot(page, `settings-${language === "cn" ? "zh" : "en"}`);
      await page.keyboard.press("Escape");
    }
    await page.click(tid(`device-detail-${deviceId}`));
    await page.click(tid("device-detail-tab-remote"));
    await page.click(tid("remote-onsite_consent"));
    await page.locator(tid("remote-onsite_consent-confirm")).waitFor();
    await shot(page, "settings-confirm-en");
    await page.click(tid("remote-onsite_consent-confirm"));
    await expect
      .poll(() => page.locator(tid("remote-onsite_consent")).getAttribute("data-state"))
      .toBe("on");
    const settings = await fixture.call(fixture.owner.token, API.visits.remoteSettings, {
      deviceId,
    });
    expect(settings.onsite_consent).toBe(true);
    await page.keyboard.press("Escape");
  });

  it("shows the settings to a Bkey read-only, on the desktop and the phone", async () => {
    await fixture.platform.app.services.accounts.createActivatedUser({
      account: { channel: "email", email: BKEY.email },
      password: BKEY.password,
      name: BKEY.name,
      role: "user",
    });
    await fixture.call(fixture.owner.token, API.access.addBkey, {
      machineID: deviceId,
      account: BKEY.email,
    });
    const bkey = await apiLogin(fixture.platform.url(""), BKEY);
    const seen = await fixture.call(bkey.token, API.visits.remoteSettings, { deviceId });
    expect(seen).toMatchObject({ onsite_consent: true, can_edit: false });

    const desk = await fixture.platform.browser.newContext({
      viewport: { width: 1920, height: 1080 },
    });
    const bkeyPage = await desk.newPage();
    await fixture.platform.logIn(bkeyPage, BKEY);
    await bkeyPage.goto(fixture.platform.url("/index?listType=list&language=en"));
    await bkeyPage.click(tid(`device-detail-${deviceId}`));
    await bkeyPage.click(tid("device-detail-tab-remote"));
    await bkeyPage.locator(tid("remote-readonly")).waitFor();
    expect(await bkeyPage.locator(tid("remote-onsite_consent")).isDisabled()).toBe(true);
    await shot(bkeyPage, "settings-bkey-tv-en");
    await desk.close();

    // The Akey on the phone: the same settings on the device's screen.
    for (const language of ["en", "cn"]) {
      const phoneContext = await fixture.platform.browser.newContext(PHONE);
      const phone = await phoneContext.newPage();
      phone.setDefaultTimeout(20_000);
      await fixture.platform.logInPhone(phone, undefined, language);
      await phone.goto(fixture.platform.url(`/mobile/device/${deviceId}?language=${language}`));
      const consent = phone.locator(tid("m-remote-onsite_consent"));
      await consent.waitFor();
      expect(await consent.getAttribute("data-state")).toBe("on");
      await phone.locator(tid("m-remote-settings")).scrollIntoViewIfNeeded();
      await shot(phone, `settings-phone-${language === "cn" ? "zh" : "en"}`);
      await phoneContext.close();
    }
  });

  it("makes the viewer wait for the machine, then show the screen; the machine can end it", async () => {
    const viewer = await context.newPage();
    await viewer.goto(fixture.platform.url(`/screen/${deviceId}?language=en`));
    // The Akey knows the device asks: "waiting for approval", counting down from 30 s.
    await expect.poll(() => status(viewer), { timeout: 10_000 }).toBe("waiting");
    const countdown = viewer.locator(tid("screen-countdown"));
    await countdown.waitFor();
    expect(Number(await countdown.getAttribute("data-seconds"))).toBeLessThanOrEqual(30);
    await shot(viewer, "viewer-waiting-en");

    await answerOnSite("accept");
    await viewer.bringToFront();
    await expect.poll(() => status(viewer), { timeout: 15_000 }).toBe("online");

    // The person at the machine ends it from their side: the viewer says the visit ended.
    await hmi.bringToFront();
    const running = hmi.locator(tid("consent-running"));
    await running.waitFor();
    await shot(hmi, "hmi-running");
    await running.locator(tid("consent-end")).click();
    await viewer.bringToFront();
    await expect.poll(() => status(viewer), { timeout: 10_000 }).toBe("ended");
    await shot(viewer, "viewer-ended-on-site-en");
    await viewer.close();
  });

  it("says 'not accepted' with the server's message when the machine refuses", async () => {
    const viewer = await context.newPage();
    await viewer.goto(fixture.platform.url(`/screen/${deviceId}?language=cn`));
    await expect.poll(() => status(viewer), { timeout: 10_000 }).toBe("waiting");
    await shot(viewer, "viewer-waiting-zh");
    await answerOnSite("refuse");
    await viewer.bringToFront();
    await expect.poll(() => status(viewer), { timeout: 15_000 }).toBe("refused");
    expect(await viewer.locator(tid("screen-status")).getAttribute("data-code")).toBe(
      String(HW.CONSENT_REFUSED.code),
    );
    expect(await viewer.locator(tid("screen-message")).textContent()).toBe(HW.CONSENT_REFUSED.zh);
    await shot(viewer, "viewer-refused-zh");
    await viewer.close();
  });

  it("makes Connect wait for the machine too, and end as refused", async () => {
    await page.bringToFront();
    await page.goto(fixture.platform.url("/index?listType=list&language=en"));
    const opened = context.waitForEvent("page");
    await page.click(tid(`device-connect-${deviceId}`));
    const tab = await opened;
    const notice = page.locator(tid("connect-status"));
    await expect.poll(() => notice.getAttribute("data-state"), { timeout: 10_000 }).toBe("waiting");
    await expect.poll(() => tab.textContent("body")).toMatch(/s left to accept/);
    await shot(page, "connect-waiting-en");
    await answerOnSite("refuse");
    await page.bringToFront();
    await expect.poll(() => notice.getAttribute("data-state"), { timeout: 15_000 }).toBe("refused");
    expect(await notice.textContent()).toContain(HW.CONSENT_REFUSED.en);
    await shot(page, "connect-refused-en");
    await expect.poll(() => tab.isClosed()).toBe(true);
  });

  it("is turned off at once", async () => {
    await page.click(tid(`device-detail-${deviceId}`));
    await page.click(tid("device-detail-tab-remote"));
    await page.click(tid("remote-onsite_consent"));
    await expect
      .poll(() => page.locator(tid("remote-onsite_consent")).getAttribute("data-state"))
      .toBe("off");
    const viewer = await context.newPage();
    await viewer.goto(fixture.platform.url(`/screen/${deviceId}?language=en`));
    await expect.poll(() => status(viewer), { timeout: 30_000 }).toBe("online");
    await viewer.close();
  });
});
