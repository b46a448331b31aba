import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, HW, machineCodeField, type ProvisionedDevice, pathOf } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { devices as deviceTable } from "../../apps/server/src/modules/devices/schema.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { answerOf, startPlatform, tid, waitToSee } from "./browser.ts";

/**
 * Issue 17 "request access" in a real browser: someone who has only the demo device's
 * machine code asks for access without ever typing its password. On the desktop the add
 * dialog says at once (debounced lookup as the code is typed) that the device belongs to
 * someone else and offers the requests instead of the password and name; the visit request
 * reaches the owner's message centre and is approved. While a code is being looked up, the
 * password the user has gone on to type stays in its field. "Request access" on the device list
 * takes a code alone (unknown code, nobody's device, someone else's). On a phone (390×844,
 * /mobile) the same by code without a password. Refusals: an unknown code and a black-listed
 * user are told so at once. The leave message stops at 15 characters. Screenshots go to
 * /tmp/kw-reqacc-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let demo: DemoDevice;
let demoId: number;
let freeDevice: ProvisionedDevice;
let dataDir: string;

const ASKER = { email: "asker@example.com", password: "asker1234", name: "Ana" };
const BINDER = { email: "binder@example.com", password: "binder123", name: "Ben" };
const PHONE_USER = { email: "phone.user@example.com", password: "phone1234", name: "Pia" };
const BARRED = { email: "barred@example.com", password: "barred123", name: "Bart" };
const TYPIST = { email: "typist@example.com", password: "typist123", name: "Tia" };
const UNKNOWN_CODE = "KW-NOPE-0000";
const { defaultBrowserType: _webkit, ...IPHONE } = devices["iPhone 13"];

beforeAll(async () => {
  platform = await startPlatform();
  const { accounts, access } = platform.app.services;
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-reqacc-"));
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  [freeDevice] = await platform.app.services.devices.provision(1, "MT8071iE");
  const [row] = await platform.db
    .select({ id: deviceTable.id })
    .from(deviceTable)
    .where(eq(deviceTable.code, demo.machineCode));
  demoId = row.id;
  for (const who of [ASKER, BINDER, PHONE_USER, BARRED, TYPIST]) {
    await accounts.createActivatedUser({
      account: { channel: "email", email: who.email },
      password: who.password,
      name: who.name,
    });
  }
  // The owner has put Bart on the demo device's black list.
  const owner = await accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.user.email });
  const barred = await accounts.findUser({ channel: "email", email: BARRED.email });
  await access.blacklistAdd({ userId: owner?.id ?? 0, terminalId: 0 }, demoId, barred?.id ?? 0);
});
afterAll(async () => {
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function desktop(): Promise<[BrowserContext, Page]> {
  const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
  return [context, await context.newPage()];
}

async function phone(): Promise<[BrowserContext, Page]> {
  // iPhone 13's touch, user agent and scale on its whole 390×844 screen.
  const context = await platform.browser.newContext({
    ...IPHONE,
    viewport: { width: 390, height: 844 },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return [context, page];
}

/** The device list, signed in on the desktop. */
async function deviceList(page: Page, who: { email: string; password: string }) {
  await platform.logIn(page, who);
  await page.goto(platform.url("/index?listType=list&language=en"));
  await page.waitForSelector(tid("device-page"));
}

/** Counts the page's machine code lookups (POST /api/v1/cloudSet/scanCodeCheck). */
function countLookups(page: Page) {
  const seen: string[] = [];
  page.on("request", (request) => {
    if (request.url().endsWith(pathOf(API.access.scanCode))) seen.push(request.postData() ?? "");
  });
  return seen;
}

const mobileLogIn = (page: Page, who: { email: string; password: string }) =>
  platform.logInPhone(page, who);

/** Lets animations settle before a screenshot. */
const settle = (page: Page) => page.waitForTimeout(600);

/** Types past the leave message's 15 characters: it stops there, the counter says 15 / 15. */
async function leaveMessageStopsAt15(page: Page, input: string, counter: string) {
  await page.locator(input).pressSequentially("Checking the line 2 panel today");
  expect(await page.inputValue(input)).toBe("Checking the li");
  await expect.poll(() => page.textContent(counter)).toMatch(/15\s*\/\s*15/);
}

describe("request access by machine code, without the device password", () => {
  it("desktop add dialog: someone else's device is said at once; the owner approves the visit", async () => {
    const [askerContext, asker] = await desktop();
    const [ownerContext, owner] = await desktop();
    try {
      await deviceList(asker, ASKER);
      const lookups = countLookups(asker);
      await asker.click(tid("device-add"));
      const code = asker.locator(tid("device-add-code"));
      // An incomplete code: the shared rule answers, nothing is looked up.
      await code.pressSequentially("kw-1");
      await asker
        .locator(".ant-form-item-explain-error", { hasText: "Wrong machine code format" })
        .waitFor();
      await asker.waitForTimeout(500);
      expect(lookups).toEqual([]);
      // The whole code typed key by key (lower case): one lookup once typing stops.
      await code.fill("");
      await code.pressSequentially(demo.machineCode.toLowerCase(), { delay: 40 });
      const taken = asker.locator(`${tid("device-add-taken")}[data-standing="taken"]`);
      await taken.waitFor();
      // Typing pauses (a loaded machine stalls keystrokes past the debounce) may look up a
      // well-formed prefix on the way; never a code the shared rule refuses, never one a key.
      const typed = new URLSearchParams(lookups.at(-1) ?? "").get("machineCode");
      expect(typed).toBe(demo.machineCode);
      for (const body of lookups) {
        const looked = new URLSearchParams(body).get("machineCode") ?? "";
        expect(machineCodeField.safeParse(looked).success, looked).toBe(true);
      }
      expect(lookups.length).toBeLessThan(demo.machineCode.length / 3);
      expect(await taken.textContent()).toContain("This device belongs to someone else");
      // No password, no name: a requester cannot know them; Add is off.
      expect(await asker.locator(tid("device-add-password")).count()).toBe(0);
      expect(await asker.locator(tid("device-add-name")).count()).toBe(0);
      expect(await asker.locator(tid("device-add-submit")).isDisabled()).toBe(true);
      await settle(asker);
      await asker.screenshot({ path: "/tmp/kw-reqacc-add-taken-en.png" });

      // Another code (unknown): said under the field; the password field comes back.
      await code.fill(UNKNOWN_CODE);
      const unknown = asker.locator(tid("device-add-lookup-error"));
      await unknown.waitFor();
      expect(await unknown.textContent()).toContain("No device has this machine code");
      expect(await unknown.getAttribute("data-hwcode")).toBe("04010102");
      await asker.locator(tid("device-add-password")).waitFor();
      await settle(asker);
      await asker.screenshot({ path: "/tmp/kw-reqacc-add-unknown-en.png" });

      // Back to the demo code: answered at once (looked up before), then the visit request.
      await code.fill(demo.machineCode);
      await taken.waitFor();
      await asker.click(tid("device-add-request-visit"));
      await asker.locator(tid("request-dialog")).waitFor();
      expect(await asker.locator(tid("request-password")).count()).toBe(0);
      await leaveMessageStopsAt15(asker, tid("request-message"), tid("request-dialog"));
      await settle(asker);
      await asker.screenshot({ path: "/tmp/kw-reqacc-request-message-en.png" });
      await asker.click(tid("request-submit"));
      const result = asker.locator(tid("request-result"));
      await result.waitFor();
      expect(await result.getAttribute("data-outcome")).toBe("sent");
      await asker.click(tid("request-close"));

      // The owner sees it in the message centre and approves it.
      await platform.logIn(owner, DEMO_ACCOUNTS.user);
      await owner.click(tid("nav-msgCenter"));
      const row = owner
        .locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`, { hasText: ASKER.name })
        .first();
      await row.click();
      await owner.locator(tid("reply-panel")).waitFor();
      await expect
        .poll(() => owner.textContent(tid("msg-detail-request")))
        .toContain("Checking the li");
      await owner.click(tid("reply-agree"));
      await owner
        .locator(`${tid("msg-detail-request")} ${tid("audit-state")}[data-state="5"]`)
        .waitFor();
      await settle(owner);
      await owner.screenshot({ path: "/tmp/kw-reqacc-owner-approved-en.png" });

      // The visitor has the device in their list now.
      await asker.goto(platform.url("/index?listType=list&language=en"));
      await asker.locator(tid(`device-row-${demo.machineCode}`)).waitFor();
    } finally {
      await askerContext.close();
      await ownerContext.close();
    }
  }, 180_000);

  it("desktop add dialog: a password typed while the code is looked up stays in its field", async () => {
    const [context, page] = await desktop();
    try {
      await deviceList(page, TYPIST);
      // A slow network: each lookup is answered a second late (by the server, as ever).
      await page.route(`**${pathOf(API.access.scanCode)}`, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await route.continue();
      });
      await page.click(tid("device-add"));
      await page.fill(tid("device-add-code"), freeDevice.machineCode);
      // The user goes on to the password at once and types on while the code is looked up.
      await page.click(tid("device-add-password"));
      const checking = page.locator(tid("device-add-lookup-checking"));
      await checking.waitFor();
      await page.keyboard.type("pass");
      await page.screenshot({ path: "/tmp/kw-reqacc-add-checking-en.png" });
      await checking.waitFor({ state: "detached" });
      await page.keyboard.type("word");
      expect(await page.inputValue(tid("device-add-password"))).toBe("password");
      expect(await page.inputValue(tid("device-add-code"))).toBe(freeDevice.machineCode);
      const focused = await page.evaluate(() =>
        document.activeElement?.getAttribute("data-testid"),
      );
      expect(focused).toBe("device-add-password");
    } finally {
      await context.close();
    }
  }, 120_000);

  it("desktop 'Request access': a code alone, unknown, nobody's, then someone else's (bind)", async () => {
    const [context, page] = await desktop();
    try {
      await deviceList(page, BINDER);
      await page.click(tid("device-request-access"));
      await page.locator(tid("request-code-dialog")).waitFor();
      const code = page.locator(tid("request-code-code"));

      await code.fill(UNKNOWN_CODE);
      await page.locator(tid("request-code-lookup-error")).waitFor();
      expect(await page.textContent(tid("request-code-lookup-error"))).toContain(
        "No device has this machine code",
      );
      expect(await page.locator(tid("request-code-request-visit")).count()).toBe(0);

      // Nobody owns it yet: the way is to add it, with its code filled in.
      await code.fill(freeDevice.machineCode);
      await page.locator(tid("request-code-free")).waitFor();
      expect(await page.locator(tid("request-code-request-visit")).count()).toBe(0);
      await page.click(tid("request-code-add"));
      await page.locator(tid("device-add-password")).waitFor();
      expect(await page.inputValue(tid("device-add-code"))).toBe(freeDevice.machineCode);
      await page.click(`.ant-modal-footer button:has-text("Cancel")`);
      await page.locator(tid("device-add-code")).waitFor({ state: "detached" });

      // Someone else's device: the requests, straight into the request dialog.
      await page.click(tid("device-request-access"));
      await page.fill(tid("request-code-code"), demo.machineCode);
      await page.locator(`${tid("request-code-taken")}[data-standing="taken"]`).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-reqacc-request-code-en.png" });
      await page.click(tid("request-code-request-bind"));
      await page.locator(tid("request-dialog")).waitFor();
      await page.locator(".ant-modal-title", { hasText: "Request to bind the device" }).waitFor();
      await page.fill(tid("request-remarks"), "Line 2 panel");
      await page.fill(tid("request-message"), "Bind me please");
      await page.click(tid("request-submit"));
      await page.locator(`${tid("request-result")}[data-outcome="sent"]`).waitFor();
      await page.click(tid("request-close"));

      // Asked again within 5 minutes: the server's refusal is told.
      await page.click(tid("device-request-access"));
      await page.fill(tid("request-code-code"), demo.machineCode);
      await page.click(tid("request-code-request-bind"));
      // The server's answer first: if the refusal is not shown, the failure says whether the
      // request went out and what came back (once, at load 7, nothing showed within 20 s).
      expect(await answerOf(page, "request-submit", API.access.requestBind)).toBe(
        HW.TOO_FREQUENT.code,
      );
      const refused = page.locator(`${tid("request-result")}[data-outcome="refused"]`);
      await waitToSee(refused);
      expect(await refused.getAttribute("data-hwcode")).toBe("507");
      await page.click(tid("request-close"));
    } finally {
      await context.close();
    }
  }, 180_000);

  it("desktop: a black-listed user is told at once and offered no request", async () => {
    const [context, page] = await desktop();
    try {
      await deviceList(page, BARRED);
      await page.click(tid("device-add"));
      await page.fill(tid("device-add-code"), demo.machineCode);
      const barred = page.locator(`${tid("device-add-taken")}[data-standing="blacklisted"]`);
      await barred.waitFor();
      expect(await barred.textContent()).toContain("black list");
      expect(await page.locator(tid("device-add-request-visit")).count()).toBe(0);
      expect(await page.locator(tid("device-add-password")).count()).toBe(0);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-reqacc-add-blacklisted-en.png" });
      await page.keyboard.press("Escape");
      await page.locator(tid("device-add-code")).waitFor({ state: "detached" });

      await page.click(tid("device-request-access"));
      await page.fill(tid("request-code-code"), demo.machineCode);
      await page.locator(`${tid("request-code-taken")}[data-standing="blacklisted"]`).waitFor();
      expect(await page.locator(tid("request-code-request-visit")).count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("phone (390×844): request access by code without a password; unknown code and black list", async () => {
    const [context, page] = await phone();
    try {
      expect(page.viewportSize()).toEqual({ width: 390, height: 844 });
      await mobileLogIn(page, PHONE_USER);
      // An empty list says what to do: request access by machine code.
      await page.click(tid("m-devices-empty-request"));
      await page.locator(tid("m-request")).waitFor();
      const code = `${tid("m-request-code")} input`;

      // The shared code rule first, then an unknown code.
      await page.fill(code, "kw-1");
      await page.click(tid("m-request-lookup"));
      await page.locator(".adm-form-item-feedback-error", { hasText: "machine code" }).waitFor();
      await page.fill(code, UNKNOWN_CODE);
      await page.click(tid("m-request-lookup"));
      await expect
        .poll(() => page.textContent(tid("m-request-lookup-error")))
        .toContain("No device has this machine code");

      // The demo device: no password anywhere, the message stops at 15.
      await page.fill(code, demo.machineCode.toLowerCase());
      await page.click(tid("m-request-lookup"));
      await expect.poll(() => page.textContent(tid("m-request-device"))).toBe(demo.machineCode);
      expect(await page.locator(tid("m-request-password")).count()).toBe(0);
      await leaveMessageStopsAt15(
        page,
        `${tid("m-request-message")} input`,
        tid("m-request-message-count"),
      );
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-reqacc-phone-request-en.png" });
      await page.click(tid("m-request-submit"));
      const result = page.locator(tid("m-request-result"));
      await result.waitFor();
      expect(await result.getAttribute("data-outcome")).toBe("sent");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-reqacc-phone-sent-en.png" });
      await page.click(tid("m-request-close"));

      // The owner has it to answer.
      const owner = await platform.app.services.accounts.findUser({
        channel: "email",
        email: DEMO_ACCOUNTS.user.email,
      });
      const inbox = await platform.app.services.messages.page(owner?.id ?? 0, "en", {
        box: "inbox",
        page: 1,
        pageSize: 20,
      });
      expect(
        inbox.list.some((m) => m.canReply && m.request?.requester_name === PHONE_USER.name),
      ).toBe(true);
    } finally {
      await context.close();
    }

    // Black-listed: the sheet says so at once and offers no request.
    const [barredContext, barred] = await phone();
    try {
      await mobileLogIn(barred, BARRED);
      await barred.click(tid("m-request-open"));
      await barred.fill(`${tid("m-request-code")} input`, demo.machineCode);
      await barred.click(tid("m-request-lookup"));
      await barred.locator(tid("m-request-blacklisted")).waitFor();
      expect(await barred.locator(tid("m-request-submit")).count()).toBe(0);
      await settle(barred);
      await barred.screenshot({ path: "/tmp/kw-reqacc-phone-blacklisted-en.png" });
    } finally {
      await barredContext.close();
    }
  }, 180_000);
});
