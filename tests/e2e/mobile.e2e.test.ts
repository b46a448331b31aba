import { AUDIT_STATE } from "@keyway/shared";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, type DemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Issue 10's mobile route on an emulated phone (Chromium's Pixel 7: its viewport, touch and
 * user agent) against the real platform with the demo device's simulated agent: a desktop
 * route sends the phone to /mobile (the SCADA page stays); the mobile login; the device list
 * with live state and search; the device with Connect (the HMI opens through the relay); a
 * second user asks from their phone to visit the demo device and the owner approves it from
 * the phone's message centre; an alarm raised on the HMI is confirmed from the alarms tab;
 * the account page (name, terminals, language, log out); zh and en. Screenshots go to
 * /tmp/kw-mobile-*.png.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let platform: typeof fixture.platform;
let agent: SimulatedAgent;
let demo: DemoDevice;

const VISITOR = { email: "phone.visitor@example.com", password: "visitor123", name: "Vera" };
const PHONE = devices["Pixel 7"];

beforeAll(async () => {
  fixture = await startMaintainedDemo("mobile");
  ({ platform, agent, demo } = fixture);
  await platform.app.services.accounts.createActivatedUser({
    account: { channel: "email", email: VISITOR.email },
    password: VISITOR.password,
    name: VISITOR.name,
  });
});
afterAll(async () => {
  await fixture?.close();
});

/** Lets animations settle before a screenshot. */
const settle = (page: Page) => page.waitForTimeout(700);
const shot = async (page: Page, name: string) => {
  // Toasts (welcome, confirmed…) fade after 2-3 s; the screen is what matters.
  await page.locator(".adm-toast-mask").waitFor({ state: "detached", timeout: 5_000 });
  await settle(page);
  await page.screenshot({ path: `/tmp/kw-mobile-${name}.png` });
};

async function phone(): Promise<[BrowserContext, Page]> {
  const context = await platform.browser.newContext({ ...PHONE });
  return [context, await context.newPage()];
}

/** The mobile login by e-mail; lands on the device list. */
async function logIn(page: Page, who: { email: string; password: string }, language = "en") {
  await page.goto(platform.url(`/mobile/login?language=${language}`));
  await page.click(tid("m-login-tab-email"));
  await page.fill(`${tid("m-login-email")} input`, who.email);
  await page.fill(`${tid("m-login-password")} input`, who.password);
  await page.click(tid("m-login-submit"));
  await page.waitForSelector(tid("m-devices"));
}

describe("the mobile route on a phone", () => {
  it("sends a phone from desktop routes to /mobile, logs in, lists, searches and connects", async () => {
    const [context, page] = await phone();
    try {
      // A desktop route: replaced by the mobile route, which asks for the login first.
      await page.goto(platform.url("/index?listType=list&language=en"));
      await page.waitForURL(/\/mobile\/login\?redirect=/);
      await page.waitForSelector(tid("m-login"));
      expect(await page.textContent(tid("brand-name"))).toBeTruthy();
      // The SCADA registration page is exempt.
      await page.goto(platform.url("/scadaRegister?language=en"));
      await page.waitForLoadState("networkidle");
      expect(new URL(page.url()).pathname).toBe("/scadaRegister");

      // The login form checks the fields with the shared rules before calling.
      await page.goto(platform.url("/login?language=en"));
      await page.waitForURL(/\/mobile\/login\?language=en/);
      await page.click(tid("m-login-tab-email"));
      await page.fill(`${tid("m-login-email")} input`, "not-an-address");
      await page.click(tid("m-login-submit"));
      await expect
        .poll(() => page.locator(".adm-form-item-feedback-error").first().textContent())
        .toBeTruthy();
      await shot(page, "login-en");
      // A wrong password: the server's message.
      await page.fill(`${tid("m-login-email")} input`, DEMO_ACCOUNTS.user.email);
      await page.fill(`${tid("m-login-password")} input`, "wrong-password");
      await page.click(tid("m-login-submit"));
      await page.locator(tid("m-login-error")).waitFor();
      expect(new URL(page.url()).pathname).toBe("/mobile/login");

      await logIn(page, DEMO_ACCOUNTS.user);
      const item = page.locator(tid(`m-device-${demo.machineCode}`));
      await item.waitFor();
      expect(await item.textContent()).toContain("Demo HMI");
      // Live state: the simulated agent is connected.
      await expect
        .poll(() => item.locator(tid("m-state")).getAttribute("data-online"), { timeout: 30_000 })
        .toBe("1");
      await shot(page, "devices-en");

      // A desktop route while logged in goes to the matching mobile screen.
      await page.goto(platform.url("/alarmCenter?language=en"));
      await page.waitForURL(/\/mobile\/alarms/);
      await page.click(tid("m-tab-devices"));

      // Search: nothing, then the device by a part of its name.
      await page.fill(`${tid("m-device-search")} input`, "no such device");
      await page.locator(tid("m-devices-empty")).waitFor();
      await page.fill(`${tid("m-device-search")} input`, "demo");
      await item.waitFor();

      // The device: facts, live state and Connect, which opens the HMI through the relay.
      await item.click();
      await page.waitForSelector(tid("m-device"));
      expect(await page.textContent(tid("m-device-code"))).toBe(demo.machineCode);
      await expect
        .poll(() => page.getAttribute(tid("m-connect"), "data-online"), { timeout: 30_000 })
        .toBe("1");
      await shot(page, "device-en");
      const opened = context.waitForEvent("page");
      await page.click(tid("m-connect"));
      const tab = await opened;
      await expect
        .poll(() => page.getAttribute(tid("connect-status"), "data-state"), { timeout: 15_000 })
        .toBe("online");
      await tab.waitForURL(/\.visit\.localhost:\d+\//, { timeout: 15_000 });
      await expect
        .poll(() => tab.textContent(tid("hmi-link")), { timeout: 15_000 })
        .toBe("connected");
      await tab.close();
    } finally {
      await context.close();
    }
  });

  it("lets a visitor ask from a phone and the owner approve from theirs", async () => {
    const [ownerContext, owner] = await phone();
    const [visitorContext, visitor] = await phone();
    try {
      await logIn(owner, DEMO_ACCOUNTS.user);
      await owner.click(tid("m-tab-messages"));
      await owner.waitForSelector(tid("m-messages"));
      await owner.waitForLoadState("networkidle");
      const unread = async () => Number(await owner.getAttribute(tid("m-unread"), "data-count"));
      const unreadBefore = await unread();

      // The visitor looks the machine code up and asks for a visit.
      await logIn(visitor, VISITOR);
      await visitor.locator(tid("m-devices-empty")).waitFor();
      await visitor.click(tid("m-request-open"));
      await visitor.fill(`${tid("m-request-code")} input`, demo.machineCode);
      await visitor.click(tid("m-request-lookup"));
      expect(await visitor.textContent(tid("m-request-device"))).toBe(demo.machineCode);
      await visitor.fill(`${tid("m-request-message")} input`, "Site check");
      await shot(visitor, "request-en");
      await visitor.click(tid("m-request-submit"));
      const result = visitor.locator(tid("m-request-result"));
      await result.waitFor();
      expect(await result.getAttribute("data-outcome")).toBe("sent");
      await visitor.click(tid("m-request-close"));

      // The owner's badge rises by push and the request is in the inbox, unread.
      await expect.poll(unread).toBe(unreadBefore + 1);
      const row = owner.locator(`${tid("m-msg-list-inbox")} [data-msg-id]`).first();
      await row.waitFor();
      expect(await row.getAttribute("data-read")).toBe("0");
      expect(await row.textContent()).toContain(VISITOR.name);
      await shot(owner, "messages-en");

      // Open it: the request and the answer; approve for one day with a message.
      await row.click();
      await owner.waitForSelector(tid("m-reply"));
      expect(await owner.textContent(tid("m-msg-requester"))).toContain(VISITOR.name);
      await owner.click(`${tid("m-reply-visit-time")} >> text=1 d`);
      await owner.fill(`${tid("m-reply-message")} input`, "Go ahead");
      await shot(owner, "message-detail-en");
      await owner.click(tid("m-reply-agree"));
      await expect
        .poll(() => owner.getAttribute(tid("m-msg-detail-state"), "data-state"))
        .toBe(String(AUDIT_STATE.allPassed));
      expect(await owner.locator(tid("m-reply")).count()).toBe(0);
      await owner.click(tid("m-msg-close"));
      await expect.poll(() => row.getAttribute("data-read")).toBe("1");

      // The visitor's outbox tells the approval; the device is in their list now.
      await visitor.click(tid("m-tab-messages"));
      await visitor.click(tid("m-msg-tab-outbox"));
      const sent = visitor.locator(`${tid("m-msg-list-outbox")} ${tid("m-msg-state")}`).first();
      await expect.poll(() => sent.getAttribute("data-state")).toBe(String(AUDIT_STATE.allPassed));
      await visitor.click(tid("m-tab-devices"));
      await visitor.locator(tid(`m-device-${demo.machineCode}`)).waitFor();
    } finally {
      await ownerContext.close();
      await visitorContext.close();
    }
  });

  it("confirms an alarm raised on the HMI from the alarms tab", async () => {
    const [context, page] = await phone();
    try {
      await logIn(page, DEMO_ACCOUNTS.user);
      await page.click(tid("m-tab-alarms"));
      await page.waitForSelector(tid("m-alarms"));

      const hmi = await platform.browser.newPage();
      await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
      await hmi.fill(tid("hmi-alarm-text"), "Coolant flow low");
      await hmi.click(tid("hmi-raise"));
      await expect
        .poll(() => hmi.textContent(tid("hmi-alarms")), { timeout: 15_000 })
        .toContain("✓");
      await hmi.close();

      // The push brings it into the unconfirmed list without a reload.
      const alarm = page.locator(`${tid("m-alarm-list")} [data-alarm-id]`, {
        hasText: "Coolant flow low",
      });
      await alarm.waitFor({ timeout: 15_000 });
      expect(await alarm.getAttribute("data-confirmed")).toBe("0");
      await shot(page, "alarms-en");
      await alarm.locator(tid("m-alarm-confirm")).click();
      await page.click(tid("m-alarm-confirm-ok"));
      // Confirmed: it leaves the unconfirmed list and shows confirmed under all.
      await alarm.waitFor({ state: "detached" });
      await page.click(tid("m-alarm-filter-all"));
      const done = page.locator(`${tid("m-alarm-list")} [data-alarm-id]`, {
        hasText: "Coolant flow low",
      });
      await expect.poll(() => done.getAttribute("data-confirmed")).toBe("1");
      expect(await done.locator(tid("m-alarm-confirm")).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("shows the account: name, terminals, language; zh screens; logs out", async () => {
    const [context, page] = await phone();
    try {
      await logIn(page, DEMO_ACCOUNTS.user);
      await page.click(tid("m-tab-me"));
      await page.waitForSelector(tid("m-me"));
      expect(await page.textContent(tid("m-me-account"))).toBe(DEMO_ACCOUNTS.user.email);
      await page.locator(tid("m-terminal-current")).waitFor();
      await shot(page, "me-en");

      // Change the name with the shared rule: too short refused, then saved.
      await page.click(tid("m-me-rename"));
      await page.fill(`${tid("m-rename-input")} input`, "D");
      await page.click(tid("m-rename-save"));
      await page.locator(".adm-form-item-feedback-error").first().waitFor();
      await page.fill(`${tid("m-rename-input")} input`, "Demo Phone");
      await page.click(tid("m-rename-save"));
      await expect.poll(() => page.textContent(tid("m-me-name"))).toBe("Demo Phone");

      // 中文: every screen follows.
      await page.click(tid("m-lang-cn"));
      await expect.poll(() => page.textContent(tid("m-tab-me"))).toBe("我的");
      await shot(page, "me-zh");
      await page.click(tid("m-tab-devices"));
      await page.locator(tid(`m-device-${demo.machineCode}`)).waitFor();
      expect(await page.textContent(tid("m-tab-devices"))).toBe("设备");
      await shot(page, "devices-zh");
      await page.click(tid("m-tab-alarms"));
      await page.click(tid("m-alarm-filter-all"));
      await page.locator(tid("m-alarm-list")).waitFor();
      expect(await page.textContent(tid("m-alarm-filter-all"))).toBe("全部状态");
      await shot(page, "alarms-zh");
      await page.click(tid("m-tab-messages"));
      await page.locator(tid("m-msg-list-inbox")).waitFor();
      await shot(page, "messages-zh");

      // Log out (asked first): back at the mobile login; a desktop route stays there.
      await page.click(tid("m-tab-me"));
      await page.click(tid("m-logout"));
      await page.click(tid("m-logout-ok"));
      await page.waitForURL(/\/mobile\/login/);
      await page.waitForSelector(tid("m-login"));
      await shot(page, "login-zh");
      await page.goto(platform.url("/msgCenter"));
      await page.waitForURL(/\/mobile\/login/);
    } finally {
      await context.close();
    }
  });
});
