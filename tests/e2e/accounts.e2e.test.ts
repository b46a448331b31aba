import { BRANDS } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, tid } from "./browser.ts";

/**
 * A newcomer's first minutes, in a real browser: register by e-mail with the code from a
 * real SMTP server, log in, see the main layout, switch languages, see another brand on
 * another host name, log out, and log in again with keep-login.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform?.close());

const EMAIL = "newcomer@example.com";
const PASSWORD = "factory42";

async function logIn(page: Page, opts: { keepLogin: boolean }) {
  await page.goto(platform.url("/login?language=en"));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), EMAIL);
  await page.fill(tid("login-password"), PASSWORD);
  const keep = page.locator(tid("login-keep"));
  if ((await keep.isChecked()) !== opts.keepLogin) await keep.click();
  await page.click(tid("login-submit"));
  await page.waitForSelector(tid("side-nav"));
}

async function logOut(page: Page) {
  await page.click(tid("user-avatar"));
  await page.locator(tid("user-panel")).waitFor({ state: "visible" });
  await page.click(tid("logout"));
  await page.waitForURL(/\/login/);
}

describe("accounts in the browser", () => {
  it("registers by e-mail with the mailed code, logs in, switches language and logs out", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();

    await page.goto(platform.url("/registerByEmail?language=en"));
    await page.fill(tid("register-email"), EMAIL);
    await page.fill(tid("register-name"), "Newcomer");
    await page.fill(tid("register-password"), PASSWORD);
    await page.fill(tid("register-confirm"), PASSWORD);
    await page.click(tid("register-submit"));

    const mail = await platform.smtp.waitFor(EMAIL);
    expect(mail.subject).toBe("[Keyway Cloud] Your verification code");
    const code = mail.text.match(/\b(\d{6})\b/)?.[1];
    expect(code).toBeDefined();
    await page.fill(tid("activate-code"), code!);
    await page.click(tid("activate-submit"));
    // Activation logs the newcomer straight in.
    await page.waitForSelector(tid("side-nav"));
    await expect.poll(() => page.textContent(tid("user-name"))).toContain("Newcomer");
    await logOut(page);

    await logIn(page, { keepLogin: false });
    await expect.poll(() => page.textContent(tid("user-name"))).toContain("Newcomer");
    expect(await page.textContent(tid("side-nav"))).toContain("Security center");

    // Language: to Chinese and back; the navigation follows.
    await page.click(tid("lang-cn"));
    await expect.poll(() => page.textContent(tid("side-nav"))).toContain("安全中心");
    await page.click(tid("lang-en"));
    await expect.poll(() => page.textContent(tid("side-nav"))).toContain("Security center");

    // Without keep-login the token is a session cookie.
    const sessionToken = (await context.cookies()).find((c) => c.name === "token");
    expect(sessionToken?.expires).toBe(-1);

    await logOut(page);
    expect((await context.cookies()).find((c) => c.name === "token")).toBeUndefined();
    // The old page cannot come back without logging in.
    await page.goto(platform.url("/safety?language=en"));
    await page.waitForURL(/\/login/);
    await context.close();
  });

  it("keeps the login for 30 days with keep-login, across a browser restart", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logIn(page, { keepLogin: true });
    const token = (await context.cookies()).find((c) => c.name === "token");
    const days = ((token?.expires ?? 0) * 1000 - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThanOrEqual(30);

    const state = await context.storageState();
    await context.close();
    const again = await platform.browser.newContext({ storageState: state });
    const page2 = await again.newPage();
    await page2.goto(platform.url("/safety?language=en"));
    await page2.waitForSelector(tid("side-nav"));
    await expect.poll(() => page2.textContent(tid("user-name"))).toContain("Newcomer");
    await again.close();
  });

  it("shows the brand of the host name, and the default on an unknown host", async () => {
    const vantage = BRANDS.find((b) => b.id === "vantage")!;
    const context = await platform.browser.newContext();
    const page = await context.newPage();

    await page.goto(platform.url("/login?language=en", "vantage.localhost"));
    await expect.poll(() => page.textContent(tid("brand-name"))).toBe(vantage.en.name);
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe(vantage.en.name);
    await page.click(tid("lang-cn"));
    await expect.poll(() => page.textContent(tid("brand-name"))).toBe(vantage.zh.name);

    await page.goto(platform.url("/login?language=en", "unknown-brand.localhost"));
    await expect.poll(() => page.textContent(tid("brand-name"))).toBe("Keyway Cloud");
    await context.close();
  });
});
