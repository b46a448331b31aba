import { API, pathOf } from "@keyway/shared";
import { and, desc, eq } from "drizzle-orm";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifications } from "../../apps/server/src/db/schema.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * The account routes of SPEC §2 beyond the security centre: /main, /userInfo and the
 * standalone change pages a phone app's web view opens (/modifyPhone, /modifyEmail,
 * /deleteAccount, login shell), and /recoverPwd in the main layout. Logged out, each sends to
 * /login and comes back after the login. Screenshots in /tmp/kw-account-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform?.close());

const PASSWORD = "factory42";
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/kw-account-${name}.png`, fullPage: true });

async function makeUser(email: string, name: string) {
  await platform.app.services.accounts.createActivatedUser({
    account: { channel: "email", email },
    password: PASSWORD,
    name,
  });
}

/** Fills the login form the app is showing (we were sent there) and submits it. */
async function logInHere(page: Page, email: string, password = PASSWORD) {
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), email);
  await page.fill(tid("login-password"), password);
  await page.click(tid("login-submit"));
}

/** The newest SMS code to `recipient` (country code + number), from the outbox. */
async function smsCode(recipient: string): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(async () => {
      const [row] = await platform.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.recipient, recipient), eq(notifications.channel, "sms")))
        .orderBy(desc(notifications.id))
        .limit(1);
      code = row?.body.match(/\b(\d{6})\b/)?.[1];
      return code !== undefined;
    })
    .toBe(true);
  return code!;
}

describe("account pages", () => {
  let context: BrowserContext;
  let page: Page;
  const email = "pages@example.com";

  beforeAll(async () => {
    await makeUser(email, "Page Tester");
    context = await platform.browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
  });
  afterAll(() => context?.close());

  it("/main sends a logged-out visitor to /login", async () => {
    await page.goto(platform.url("/main?language=en"));
    await page.waitForURL(/\/login\?language=en$/);
  });

  it("/userInfo asks for the login first and comes back to it", async () => {
    await page.goto(platform.url("/userInfo?language=en"));
    await page.waitForURL(/\/login\?.*redirect=%2FuserInfo/);
    await logInHere(page, email);
    await page.waitForURL(/\/userInfo/);
    await expect.poll(() => page.textContent(tid("userinfo-name"))).toBe("Page Tester");
    expect(await page.textContent(tid("userinfo-account"))).toBe(email);
    expect(await page.textContent(tid("userinfo-page"))).toContain("Not set");
    await shot(page, "userinfo-en");
    await page.click(tid("lang-cn"));
    await expect.poll(() => page.textContent(tid("userinfo-page"))).toContain("未设置");
    await shot(page, "userinfo-cn");
    await page.click(tid("lang-en"));
  });

  it("/main takes a logged-in user to the device list", async () => {
    await page.goto(platform.url("/main?language=en"));
    await page.waitForURL(/\/index\?listType=list/);
    await page.waitForSelector(tid("side-nav"));
  });

  it("/userInfo changes the name with the shared rule", async () => {
    await page.goto(platform.url("/userInfo?language=en"));
    await page.click(tid("userinfo-edit-name"));
    await page.fill(tid("change-name-input"), "x");
    await page.click(tid("change-name-submit"));
    await page.getByText("Name must be 2-10 characters without special characters").waitFor();
    await page.fill(tid("change-name-input"), "Renamed");
    await page.click(tid("change-name-submit"));
    await expect.poll(() => page.textContent(tid("userinfo-name"))).toBe("Renamed");
  });

  it("/modifyPhone adds a phone with the code sent to it", async () => {
    await page.click(tid("userinfo-phone-change"));
    await page.waitForURL(/\/modifyPhone/);
    await page.waitForSelector(tid("modify-phone-page"));
    await shot(page, "modify-phone-en");
    // A number the shared rule refuses is stopped before any code is sent.
    await page.fill(tid("change-phone-input"), "12345");
    await page.click(tid("change-phone-send-code"));
    await page.getByText("Wrong phone format").waitFor();
    await page.fill(tid("change-phone-input"), "13700137000");
    await page.click(tid("change-phone-send-code"));
    await page.fill(tid("change-phone-code"), await smsCode("8613700137000"));
    await page.click(tid("change-phone-submit"));
    await page.waitForSelector(tid("change-phone-done"));
    await page.click(tid("account-done-back"));
    await page.waitForURL(/\/userInfo/);
    await expect.poll(() => page.textContent(tid("userinfo-phone"))).toBe("+86 13700137000");
  });

  it("/modifyEmail changes the e-mail with the code sent to the new address", async () => {
    await page.goto(platform.url("/modifyEmail?language=cn"));
    await page.waitForSelector(tid("modify-email-page"));
    await expect.poll(() => page.textContent(tid("modify-email-page"))).toContain("验证码");
    await shot(page, "modify-email-cn");
    await page.click(tid("lang-en"));
    await page.fill(tid("change-email-input"), "moved@example.com");
    await page.click(tid("change-email-send-code"));
    const mail = await platform.smtp.waitFor("moved@example.com");
    await page.fill(tid("change-email-code"), mail.text.match(/\b(\d{6})\b/)?.[1] ?? "");
    await page.click(tid("change-email-submit"));
    await page.waitForSelector(tid("change-email-done"));
    await shot(page, "modify-email-done-en");
    await page.click(tid("account-done-back"));
    await expect.poll(() => page.textContent(tid("userinfo-email"))).toBe("moved@example.com");
  });

  it("/recoverPwd changes the password inside the main layout", async () => {
    await page.click(tid("userinfo-password-change"));
    await page.waitForURL(/\/recoverPwd/);
    await page.waitForSelector(tid("side-nav"));
    await page.waitForSelector(tid("recover-pwd-page"));
    await shot(page, "recover-pwd-en");
    await page.fill(tid("change-password-old"), "not-mine-1");
    await page.fill(tid("change-password-new"), "newfactory9");
    await page.fill(tid("change-password-confirm"), "newfactory8");
    await page.click(tid("change-password-submit"));
    await page.getByText("The two passwords do not match").waitFor();
    await page.fill(tid("change-password-confirm"), "newfactory9");
    await page.click(tid("change-password-submit"));
    await expect.poll(() => page.locator(".ant-message").textContent()).toContain("Password error");
    await page.fill(tid("change-password-old"), PASSWORD);
    await page.click(tid("change-password-submit"));
    await page.waitForSelector(tid("change-password-done"));
    await page.click(tid("lang-cn"));
    await expect.poll(() => page.textContent(tid("recover-pwd-page"))).toContain("密码已修改");
    await shot(page, "recover-pwd-done-cn");
  });

  it("/deleteAccount needs the password and the explicit confirmation", async () => {
    await page.goto(platform.url("/deleteAccount?language=en"));
    await page.waitForSelector(tid("delete-account-page"));
    await page.fill(tid("delete-account-password"), "newfactory9");
    expect(await page.isDisabled(tid("delete-account-submit"))).toBe(true);
    // Enter in the password field does not get round the confirmation either.
    await page.press(tid("delete-account-password"), "Enter");
    expect(page.url()).toContain("/deleteAccount");
    await shot(page, "delete-account-en");
    await page.click(tid("delete-account-confirm"));
    await page.click(tid("delete-account-submit"));
    await page.waitForURL(/\/login/);

    // The account is gone: the old credentials no longer log in.
    await logInHere(page, "moved@example.com", "newfactory9");
    await page.waitForSelector(tid("login-error"));
  });
});

describe("in a phone app's web view", () => {
  it("opens /deleteAccount itself (not the mobile UI), after the login and back", async () => {
    await makeUser("phoneview@example.com", "Phone View");
    const context = await platform.browser.newContext({ ...devices["Pixel 7"] });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    // The app's web view already holds the session: log in through the API like the app.
    const response = await fetch(platform.url(pathOf(API.accounts.login)), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        loginName: "phoneview@example.com",
        loginPwd: PASSWORD,
        terminalType: "android",
      }),
    });
    const token = ((await response.json()) as { hwdata: { result: { token: string } } }).hwdata
      .result.token;
    await context.addCookies([{ name: "token", value: token, url: platform.url("/") }]);
    await page.goto(platform.url("/deleteAccount?language=cn"));
    await page.waitForSelector(tid("delete-account-page"));
    expect(page.url()).toContain("/deleteAccount");
    await expect.poll(() => page.textContent(tid("delete-account-page"))).toContain("密码");
    await shot(page, "delete-account-phone-cn");
    await context.close();
  });
});
