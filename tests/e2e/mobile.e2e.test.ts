import { API, AUDIT_STATE, pathOf } from "@keyway/shared";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, DEMO_ICCID, type DemoDevice } from "../../apps/server/src/seed.ts";
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
let eid: number;

const VISITOR = { email: "phone.visitor@example.com", password: "visitor123", name: "Vera" };
/** A user with a phone number for an account (the phone login tab). */
const CALLER = { phone: "13912345678", password: "caller123", name: "Carl" };
/** A second visitor for the bind, refuse and black-list replies. */
const ASKER = { email: "phone.asker@example.com", password: "asker1234", name: "Asa" };
const PHONE = devices["Pixel 7"];

beforeAll(async () => {
  fixture = await startMaintainedDemo("mobile");
  ({ platform, agent, demo, eid } = fixture);
  const { accounts, iotCards } = platform.app.services;
  for (const who of [VISITOR, ASKER]) {
    await accounts.createActivatedUser({
      account: { channel: "email", email: who.email },
      password: who.password,
      name: who.name,
    });
  }
  await accounts.createActivatedUser({
    account: { channel: "sms", phone: CALLER.phone, countryCode: "86" },
    password: CALLER.password,
    name: CALLER.name,
  });
  // The demo device's 4G card, read once from the simulator carrier.
  await iotCards.sync();
  await iotCards.refreshDue();
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
const logIn = (page: Page, who: { email: string; password: string }, language = "en") =>
  platform.logInPhone(page, who, language);

describe("the mobile route on a phone", () => {
  it("sends a phone from desktop routes to /mobile, logs in, lists, searches and connects", async () => {
    const [context, page] = await phone();
    try {
      // A desktop route: replaced by the mobile route, which asks for the login first.
      await page.goto(platform.url("/index?listType=list&language=en"));
      await page.waitForURL(/\/mobile\/login\?redirect=/);
      await page.waitForSelector(tid("m-login"));
      expect(await page.textContent(tid("brand-name"))).toBeTruthy();
      // The SCADA registration page is exempt, also with a trailing slash or another case.
      for (const path of ["/scadaRegister", "/scadaRegister/", "/SCADAREGISTER"]) {
        await page.goto(platform.url(`${path}?language=en`));
        await page.waitForLoadState("networkidle");
        expect(new URL(page.url()).pathname).toBe(path);
      }

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
      // This phone's terminal: its type and when its token ends (SPEC §2).
      const mine = page.locator(`${tid("m-terminals")} .adm-list-item`, {
        has: page.locator(tid("m-terminal-current")),
      });
      expect(await mine.locator(tid("m-terminal-type")).getAttribute("data-type")).toBe("mobile");
      expect(await mine.locator(tid("m-terminal-expiry")).textContent()).toMatch(
        /^Token expiry: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
      );
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
      // No "session expired" notice: calls still on their way with the old token are quiet.
      await page.waitForTimeout(2_500);
      expect(await page.locator(".ant-notification-notice").allInnerTexts()).toEqual([]);
      expect(new URL(page.url()).pathname).toBe("/mobile/login");
      await shot(page, "login-zh");
      await page.goto(platform.url("/msgCenter"));
      await page.waitForURL(/\/mobile\/login/);
    } finally {
      await context.close();
    }
  });
});

/** The login token a browser context holds (its `token` cookie). */
async function tokenOf(context: BrowserContext): Promise<string> {
  const cookies = await context.cookies();
  return cookies.find((c) => c.name === "token")?.value ?? "";
}

/** Whether the server still takes `token` (GET-like selectInfo with the cloudtoken header). */
async function signedIn(token: string): Promise<boolean> {
  const res = await fetch(platform.url(pathOf(API.accounts.userInfo)), {
    headers: { cloudtoken: token },
  });
  return (await res.json()).hwcode === 0;
}

/** An Amazon Fire TV stick's browser (TV-box mode). */
const FIRE_TV =
  "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/108.0.5359.160 Mobile Safari/537.36";

describe("sessions of one account on a desktop, a phone and a TV", () => {
  it("keeps the three signed in together; a second desktop login still ends the first desktop", {
    timeout: 150_000,
  }, async () => {
    const desk = await platform.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const tv = await platform.browser.newContext({
      userAgent: FIRE_TV,
      viewport: { width: 1920, height: 1080 },
    });
    const [mobile, page] = await phone();
    const desk2 = await platform.browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      await platform.logIn(await desk.newPage());
      await logIn(page, DEMO_ACCOUNTS.user);
      const wall = await tv.newPage();
      await wall.goto(platform.url("/login?language=en"));
      await wall.click(tid("login-tab-email"));
      await wall.fill(tid("login-email"), DEMO_ACCOUNTS.user.email);
      await wall.fill(tid("login-password"), DEMO_ACCOUNTS.user.password);
      await wall.click(tid("login-submit"));
      await wall.locator(tid("tv-wall")).waitFor();

      const [deskToken, phoneToken, tvToken] = await Promise.all(
        [desk, mobile, tv].map((c) => tokenOf(c)),
      );
      expect(await signedIn(deskToken)).toBe(true);
      expect(await signedIn(phoneToken)).toBe(true);
      expect(await signedIn(tvToken)).toBe(true);
      // The phone lists the three terminals by type.
      await page.click(tid("m-tab-me"));
      const types = page.locator(`${tid("m-terminals")} ${tid("m-terminal-type")}`);
      await expect.poll(() => types.count()).toBe(3);
      const listed = await types.evaluateAll((els) => els.map((e) => e.getAttribute("data-type")));
      expect(listed.sort()).toEqual(["mobile", "tv", "web"]);
      await shot(page, "terminals-en");

      // Another desktop: the first desktop is pushed out, the phone and the TV stay.
      await platform.logIn(await desk2.newPage());
      await expect.poll(() => signedIn(deskToken)).toBe(false);
      expect(await signedIn(await tokenOf(desk2))).toBe(true);
      expect(await signedIn(phoneToken)).toBe(true);
      expect(await signedIn(tvToken)).toBe(true);
      await page.reload();
      await page.waitForSelector(tid("m-me"));
      expect(new URL(page.url()).pathname).toBe("/mobile/me");
    } finally {
      await Promise.all([desk, tv, mobile, desk2].map((c) => c.close()));
    }
  });
});

describe("a phone user without a desktop", () => {
  it("reaches register, forgot password and app download from the mobile login", async () => {
    const [context, page] = await phone();
    try {
      await page.goto(platform.url("/mobile/login?language=en"));
      await page.click(tid("m-login-register"));
      await page.waitForURL(/\/register$/);
      await page.waitForLoadState("networkidle");
      expect(new URL(page.url()).pathname).toBe("/register");
      await page.locator(tid("register-submit")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-mobile-register-en.png" });

      await page.goto(platform.url("/mobile/login?language=en"));
      await page.click(tid("m-login-tab-email"));
      await page.click(tid("m-login-register"));
      await page.waitForURL(/\/registerByEmail$/);

      await page.goto(platform.url("/mobile/login?language=en"));
      await page.click(tid("m-login-forgot"));
      await page.waitForURL(/\/forgetPwd$/);
      await page.waitForLoadState("networkidle");
      expect(new URL(page.url()).pathname).toBe("/forgetPwd");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-mobile-forgetPwd-en.png" });

      await page.goto(platform.url("/mobile/login?language=cn"));
      await page.click(tid("m-login-app"));
      await page.waitForURL(/\/appDownload$/);
      await page.waitForLoadState("networkidle");
      expect(new URL(page.url()).pathname).toBe("/appDownload");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-mobile-appDownload-zh.png" });

      // The same pages by address, trailing slash or another case included.
      for (const path of ["/register/", "/REGISTERBYEMAIL", "/forgetPwd/", "/appdownload"]) {
        await page.goto(platform.url(`${path}?language=cn`));
        await page.waitForLoadState("networkidle");
        expect(new URL(page.url()).pathname).toBe(path);
      }
      await settle(page);
      await page.goto(platform.url("/register?language=cn"));
      await page.waitForLoadState("networkidle");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-mobile-register-zh.png" });
    } finally {
      await context.close();
    }
  });

  it("logs in by phone number with the country-code list, remembered for next time", async () => {
    const [context, page] = await phone();
    try {
      await page.goto(platform.url("/mobile/login?language=en"));
      await page.waitForSelector(tid("m-login"));
      await page.click(tid("m-login-tab-phone"));
      // The desktop's country-code list: search it and pick China (+86).
      await page.click(tid("m-login-country"));
      await page.keyboard.type("China");
      await page.locator(".ant-select-item-option", { hasText: "+86" }).first().click();
      expect(await page.textContent(tid("m-login-country"))).toContain("+86");
      await page.fill(`${tid("m-login-phone")} input`, CALLER.phone);
      await page.fill(`${tid("m-login-password")} input`, CALLER.password);
      await page.click(tid("m-login-remember"));
      await shot(page, "login-phone-en");
      await page.click(tid("m-login-submit"));
      await page.waitForSelector(tid("m-devices"));
      await page.click(tid("m-tab-me"));
      expect(await page.textContent(tid("m-me-account"))).toBe(`+86 ${CALLER.phone}`);

      // Logged out: the account is filled in (remember-me), never the password.
      await page.click(tid("m-logout"));
      await page.click(tid("m-logout-ok"));
      await page.waitForSelector(tid("m-login"));
      await page.waitForTimeout(2_500);
      expect(await page.locator(".ant-notification-notice").allInnerTexts()).toEqual([]);
      await page.screenshot({ path: "/tmp/kw-mobile-login-remembered.png" });
      expect(new URL(page.url()).pathname).toBe("/mobile/login");
      expect(await page.inputValue(`${tid("m-login-phone")} input`)).toBe(CALLER.phone);
      expect(await page.inputValue(`${tid("m-login-password")} input`)).toBe("");
      expect(await page.isChecked(`${tid("m-login-remember")} input`)).toBe(true);
      await page.click(tid("m-lang-cn"));
      await shot(page, "login-phone-zh");
    } finally {
      await context.close();
    }
  });

  it("asks to bind from the phone; the owner refuses it, then black-lists a visit request", async () => {
    const [ownerContext, owner] = await phone();
    const [askerContext, asker] = await phone();
    /** The asker looks the demo device up and sends a request of `kind`. */
    const ask = async (kind: "visit" | "bind", message: string) => {
      await asker.click(tid("m-tab-devices"));
      await asker.click(tid("m-request-open"));
      await asker.fill(`${tid("m-request-code")} input`, demo.machineCode);
      await asker.click(tid("m-request-lookup"));
      await asker.locator(tid("m-request-device")).waitFor();
      if (kind === "bind") {
        await asker.click(`${tid("m-request-kind")} >> text=Request to bind`);
        await asker.fill(`${tid("m-request-remarks")} input`, "Line 2 panel");
      }
      await asker.fill(`${tid("m-request-message")} input`, message);
      await asker.click(tid("m-request-submit"));
      await asker.locator(tid("m-request-result")).waitFor();
      expect(await asker.getAttribute(tid("m-request-result"), "data-outcome")).toBe("sent");
      await asker.click(tid("m-request-close"));
    };
    /** The owner opens the newest request and answers it. */
    const answer = async (result: "refuse" | "blacklist", message: string) => {
      await owner.click(tid("m-tab-messages"));
      await owner.click(tid("m-msg-tab-inbox"));
      const row = owner.locator(`${tid("m-msg-list-inbox")} [data-msg-id][data-read="0"]`, {
        hasText: ASKER.name,
      });
      await row.first().click();
      // The detail shows "Loading…" first.
      await owner.locator(tid("m-msg-detail"), { hasText: message }).waitFor();
      await owner.waitForSelector(tid("m-reply"));
      expect(await owner.textContent(tid("m-msg-requester"))).toContain(ASKER.name);
      await owner.click(tid(`m-reply-${result}`));
      if (result === "blacklist") await owner.click(tid("m-reply-blacklist-ok"));
      await expect
        .poll(() => owner.getAttribute(tid("m-msg-detail-state"), "data-state"))
        .toBe(String(AUDIT_STATE.refusedByAkey));
      await shot(owner, `reply-${result}-en`);
      await owner.click(tid("m-msg-close"));
    };
    try {
      await logIn(owner, DEMO_ACCOUNTS.user);
      await logIn(asker, ASKER);
      await ask("bind", "Bind me");
      await answer("refuse", "Bind me");
      // The asker's outbox tells the refusal.
      await asker.click(tid("m-tab-messages"));
      await asker.click(tid("m-msg-tab-outbox"));
      const sent = asker.locator(`${tid("m-msg-list-outbox")} ${tid("m-msg-state")}`).first();
      await expect
        .poll(() => sent.getAttribute("data-state"))
        .toBe(String(AUDIT_STATE.refusedByAkey));

      await ask("visit", "Let me in");
      await answer("blacklist", "Let me in");
      // Black-listed: looking the device up again says so.
      await asker.click(tid("m-tab-devices"));
      await asker.click(tid("m-request-open"));
      await asker.fill(`${tid("m-request-code")} input`, demo.machineCode);
      await asker.click(tid("m-request-lookup"));
      await asker.locator(".adm-notice-bar-error").waitFor();
      await shot(asker, "request-blacklisted-en");
    } finally {
      await ownerContext.close();
      await askerContext.close();
    }
  });
});

describe("contexts and cards on the phone", () => {
  it("switches to an enterprise: its maintenance devices and its alarms; back to personal", async () => {
    const [context, page] = await phone();
    try {
      await logIn(page, DEMO_ACCOUNTS.user);
      await page.click(tid("m-context"));
      await page.click(tid(`m-context-${eid}`));
      await expect.poll(() => page.getAttribute(tid("m-devices"), "data-eid")).toBe(String(eid));
      expect(await page.textContent(tid("m-context"))).toContain("Acme Plastics");
      // A maintenance member: the maintenance devices (the demo device, with Connect) only.
      await page.locator(tid("m-devices-type-2")).waitFor();
      expect(await page.locator(tid("m-devices-type-1")).count()).toBe(0);
      const item = page.locator(
        `${tid("m-devices-list-2")} ${tid(`m-device-${demo.machineCode}`)}`,
      );
      await item.waitFor();
      await expect
        .poll(() => item.locator(tid("m-state")).getAttribute("data-online"), { timeout: 30_000 })
        .toBe("1");
      expect(await item.locator(tid("m-device-connect")).isEnabled()).toBe(true);
      await shot(page, "enterprise-devices-en");
      await page.click(tid("m-tab-alarms"));
      await expect.poll(() => page.getAttribute(tid("m-alarms"), "data-eid")).toBe(String(eid));
      await page.click(tid("m-tab-me"));
      await page.click(tid("m-lang-cn"));
      await page.click(tid("m-tab-devices"));
      await page.click(tid("m-devices-type-2"));
      await item.waitFor();
      await shot(page, "enterprise-devices-zh");

      // The chooser: personal devices again.
      await page.click(tid("m-context"));
      await shot(page, "context-sheet-zh");
      await page.click(tid("m-context-0"));
      await expect.poll(() => page.getAttribute(tid("m-devices"), "data-eid")).toBe(null);
      await page.locator(tid(`m-device-${demo.machineCode}`)).waitFor();
      await page.click(tid("m-tab-alarms"));
      await expect.poll(() => page.getAttribute(tid("m-alarms"), "data-eid")).toBe("0");
    } finally {
      await context.close();
    }
  });

  it("opens a scanned 4G card QR on the card's phone view", async () => {
    const [context, page] = await phone();
    try {
      await logIn(page, DEMO_ACCOUNTS.user);
      // What the card's QR holds: the desktop card page, taken to its phone view.
      await page.goto(platform.url(`/iotCard/${DEMO_ICCID}?language=en`));
      await page.waitForURL(new RegExp(`/mobile/iotCard/${DEMO_ICCID}`));
      await expect.poll(() => page.textContent(tid("m-iot-iccid"))).toBe(DEMO_ICCID);
      expect(await page.getAttribute(tid("m-iot-state"), "data-state")).toBeTruthy();
      expect(await page.textContent(tid("m-iot-used"))).toMatch(/of/);
      await shot(page, "iot-card-en");
      await page.goto(platform.url(`/iotCard/${DEMO_ICCID}/?language=cn`));
      await page.waitForURL(new RegExp(`/mobile/iotCard/${DEMO_ICCID}`));
      await expect.poll(() => page.textContent(tid("m-iot-iccid"))).toBe(DEMO_ICCID);
      await shot(page, "iot-card-zh");
      // A card the user does not see: not found.
      await page.goto(platform.url("/iotCard/89860400000000009999?language=en"));
      await page.locator(tid("m-iot-card-empty")).waitFor();
    } finally {
      await context.close();
    }
  });
});
