import { API, BRANDS, pathOf, REMEMBER_ACCOUNT_DAYS } from "@keyway/shared";
import { and, desc, eq, gt } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifications, terminals } from "../../apps/server/src/db/schema.ts";
import { hashToken } from "../../apps/server/src/infra/crypto.ts";
import { answerOf, startPlatform, tid, waitToSee } from "./browser.ts";

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
const DAY_S = 86_400;

/** The newest SMS code to `recipient` (country code + number) in the outbox, newer than `after`. */
async function smsCode(recipient: string, after = 0): Promise<{ code: string; id: number }> {
  let found: { code: string; id: number } | undefined;
  // Up to 30 s: in a full run on a loaded 2-core machine the send took over 10 s once.
  await expect
    .poll(
      async () => {
        const [row] = await platform.db
          .select()
          .from(notifications)
          .where(
            and(
              eq(notifications.recipient, recipient),
              eq(notifications.channel, "sms"),
              gt(notifications.id, after),
            ),
          )
          .orderBy(desc(notifications.id))
          .limit(1);
        const code = row?.body.match(/\b(\d{6})\b/)?.[1];
        found = code && row ? { code, id: row.id } : undefined;
        return found !== undefined;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return found!;
}

/** The newest mailed code to `to` that differs from `previous`. */
async function mailCode(to: string, previous?: string): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(async () => {
      const mail = platform.smtp.received.filter((m) => m.to === to).at(-1);
      code = mail?.text.match(/\b(\d{6})\b/)?.[1];
      return code !== undefined && code !== previous;
    })
    .toBe(true);
  return code!;
}

/** An activated e-mail account made on the server side (no code to spend). */
async function makeUser(email: string, password: string, name: string) {
  await platform.app.services.accounts.createActivatedUser({
    account: { channel: "email", email },
    password,
    name,
  });
}

/** POST /api/user/login as a client would; the envelope back. */
async function apiLogin(loginName: string, loginPwd: string, terminalType = "web") {
  const response = await fetch(platform.url(pathOf(API.accounts.login)), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      loginName,
      loginPwd,
      terminalType,
      terminalUUID: `t-${terminalType}`,
    }),
  });
  return (await response.json()) as {
    hwcode: number | string;
    hwdata: { result?: { token: string } };
  };
}

async function logInAs(page: Page, email: string, password: string, language = "en") {
  await page.goto(platform.url(`/login?language=${language}`));
  await waitToSee(page.locator(tid("login-tab-email")));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), email);
  await page.fill(tid("login-password"), password);
  await page.click(tid("login-submit"));
  await page.waitForSelector(tid("side-nav"));
}
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
  // The server's answer first: if the login page does not come, the failure says whether the
  // click sent the logout at all (once, under a full check's load, nothing came in 30 s).
  expect(await answerOf(page, "logout", API.accounts.logout)).toBe(0);
  await waitToSee(page.locator(tid("login-submit")));
  expect(page.url()).toMatch(/\/login/);
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

    // Up to 30 s, as the SMS codes: a send under a full check's load can take over 10 s.
    const mail = await platform.smtp.waitFor(EMAIL, 30_000);
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

describe("registration, recovery and the login page", () => {
  it("registers by phone with another country from the picker and the SMS code", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await page.goto(platform.url("/register?language=en"));
    // Default country code 86; pick the United Kingdom by searching the picker.
    expect(await page.textContent(tid("register-country"))).toContain("+86");
    await page.click(tid("register-country"));
    await page.keyboard.type("United Kingdom");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.textContent(tid("register-country"))).toContain("+44");
    await page.fill(tid("register-phone"), "7700900123");
    await page.fill(tid("register-name"), "Phone User");
    await page.fill(tid("register-password"), PASSWORD);
    await page.fill(tid("register-confirm"), PASSWORD);
    await page.click(tid("register-submit"));

    const { code } = await smsCode("447700900123");
    await page.fill(tid("activate-code"), code);
    await page.click(tid("activate-submit"));
    await page.waitForSelector(tid("side-nav"));
    await expect.poll(() => page.textContent(tid("user-name"))).toContain("Phone User");
    await context.close();
  });

  it("resets a forgotten password in the wizard (account, code, new password)", async () => {
    await makeUser("forgetful@example.com", "oldpass1", "Forgetful");
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await page.goto(platform.url("/login?language=en"));
    await page.click(tid("login-forgot"));
    await page.waitForURL(/\/forgetPwd/);
    await page.click(tid("forget-tab-email"));
    await page.fill(tid("forget-email"), "forgetful@example.com");
    await page.click(tid("forget-next"));
    await page.click(tid("forget-send-code"));
    const code = await mailCode("forgetful@example.com");
    await page.fill(tid("forget-code"), code);
    await page.click(tid("forget-verify"));
    await page.fill(tid("forget-password"), "newpass2");
    await page.fill(tid("forget-confirm"), "newpass2");
    await page.click(tid("forget-submit"));
    await page.waitForSelector(tid("forget-login"));

    expect((await apiLogin("forgetful@example.com", "oldpass1")).hwcode).toBe("07010110");
    expect((await apiLogin("forgetful@example.com", "newpass2")).hwcode).toBe(0);
    await context.close();
  });

  it("remembers the account for 3 days with remember-me, and keeps the lang cookie", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await page.goto(platform.url("/login?language=en"));
    await page.click(tid("login-tab-email"));
    await page.fill(tid("login-email"), EMAIL);
    await page.fill(tid("login-password"), PASSWORD);
    await page.check(tid("login-remember"));
    await page.click(tid("login-submit"));
    await page.waitForSelector(tid("side-nav"));

    const cookies = await context.cookies();
    const remembered = cookies.find((c) => c.name === "rememberAccount");
    const days = ((remembered?.expires ?? 0) - Date.now() / 1000) / DAY_S;
    expect(days).toBeGreaterThan(REMEMBER_ACCOUNT_DAYS - 0.01);
    expect(days).toBeLessThanOrEqual(REMEMBER_ACCOUNT_DAYS);
    expect(decodeURIComponent(remembered?.value ?? "")).not.toContain(PASSWORD);
    expect(cookies.find((c) => c.name === "lang")?.value).toBe("en");

    // Next time the account is filled in already.
    await context.clearCookies({ name: "token" });
    await page.goto(platform.url("/login?language=en"));
    await expect.poll(() => page.inputValue(tid("login-email"))).toBe(EMAIL);
    await page.click(tid("lang-cn"));
    await expect
      .poll(async () => (await context.cookies()).find((c) => c.name === "lang")?.value)
      .toBe("cn");
    await context.close();
  });

  it("shows a wrong password as such, and other refusals as a format error", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await page.goto(platform.url("/login?language=en"));
    await page.click(tid("login-tab-email"));
    await page.fill(tid("login-email"), EMAIL);
    await page.fill(tid("login-password"), "wrong-one");
    await page.click(tid("login-submit"));
    await expect.poll(() => page.textContent(tid("login-error"))).toBe("Password error");

    // A refusal the page has no own text for (here: the server's format check).
    await page.route(`**${pathOf(API.accounts.login)}`, (route) =>
      route.fulfill({
        contentType: "application/json",
        body: JSON.stringify({ hwcode: 400, hwdata: null, msg: "Invalid request" }),
      }),
    );
    await page.click(tid("login-submit"));
    await expect
      .poll(() => page.textContent(tid("login-error")))
      .toBe("The account or password format is incorrect");
    await context.close();
  });

  it("sets the page title to the brand name after navigating, not at once", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await page.goto(platform.url("/login?language=en"));
    await expect.poll(() => page.title()).toBe("Keyway Cloud");
    // Inside the page: mark the title, navigate in the app, and read the title the moment
    // the new page has rendered.
    const right = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.title = "before";
          (document.querySelector('[data-testid="login-forgot"]') as HTMLElement).click();
          const check = () => {
            if (document.querySelector('[data-testid="forget-next"]')) resolve(document.title);
            else requestAnimationFrame(check);
          };
          check();
        }),
    );
    expect(right).toBe("before");
    await page.waitForURL(/\/forgetPwd/);
    await expect.poll(() => page.title()).toBe("Keyway Cloud");
    await context.close();
  });
});

describe("the login-timeout page", () => {
  it("tells an expired session apart and leads back to the login", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await makeUser("expiring@example.com", PASSWORD, "Expiring");
    await logInAs(page, "expiring@example.com", PASSWORD);
    // The session runs out on the server while the browser keeps its token (the same value:
    // a cookie replaced by another is not this app's and reads as signed out).
    const token = (await context.cookies()).find((c) => c.name === "token")?.value ?? "";
    await platform.db
      .update(terminals)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(terminals.tokenHash, hashToken(token)));
    await page.goto(platform.url("/safety?language=en"));
    await expect
      .poll(() => page.locator(".ant-notification").textContent())
      .toContain("Please log in again");
    await page.waitForURL(/\/loginTimeout/);
    await page.click(tid("relogin"));
    await page.waitForURL(/\/login/);
    expect((await context.cookies()).find((c) => c.name === "token")).toBeUndefined();
    await context.close();
  });
});

describe("the security centre", () => {
  it("signs another terminal out, and its token stops working", async () => {
    await makeUser("terminals@example.com", PASSWORD, "Two Screens");
    const phone = await apiLogin("terminals@example.com", PASSWORD, "android");
    const phoneToken = phone.hwdata.result!.token;
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logInAs(page, "terminals@example.com", PASSWORD);
    await page.goto(platform.url("/safety?language=en"));
    const rows = page.locator(tid("terminal-row"));
    await expect.poll(() => rows.count()).toBe(2);
    const other = page.locator(`${tid("terminal-row")}[data-current="false"]`);
    await other.locator('[data-testid^="terminal-delete-"]').click();
    // The confirmation comes first.
    await page.locator(".ant-popconfirm").getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-current")).toBe("true");

    const refused = await fetch(platform.url(pathOf(API.accounts.userInfo)), {
      headers: { cloudtoken: phoneToken },
    });
    expect(refused.status).toBe(401);
    await context.close();
  });

  it("changes name, password, phone and e-mail, then deletes the account after confirming", async () => {
    const email = "changer@example.com";
    await makeUser(email, PASSWORD, "Changer");
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logInAs(page, email, PASSWORD);
    await page.goto(platform.url("/safety?language=en"));

    // Name: a name the shared rule refuses, then a good one.
    await page.click(tid("safety-edit-name"));
    await page.fill(tid("change-name-input"), "#");
    await page.click(tid("change-name-submit"));
    await page.getByText("Name must be 2-10 characters without special characters").waitFor();
    expect(await page.textContent(tid("safety-name"))).toBe("Changer");
    await page.fill(tid("change-name-input"), "Renamed");
    await page.click(tid("change-name-submit"));
    await expect.poll(() => page.textContent(tid("safety-name"))).toBe("Renamed");
    await expect.poll(() => page.textContent(tid("user-name"))).toContain("Renamed");

    // Password: the wrong current one is refused, the right one changes it.
    await page.click(tid("safety-change-password"));
    await page.fill(tid("change-password-old"), "not-it-1");
    await page.fill(tid("change-password-new"), "brandnew7");
    await page.fill(tid("change-password-confirm"), "brandnew7");
    await page.click(tid("change-password-submit"));
    await expect.poll(() => page.locator(".ant-message").textContent()).toContain("Password error");
    await page.fill(tid("change-password-old"), PASSWORD);
    await page.click(tid("change-password-submit"));
    await expect
      .poll(() => page.locator(".ant-message").textContent())
      .toContain("Password changed");
    expect((await apiLogin(email, "brandnew7", "tv")).hwcode).toBe(0);

    // Phone: the code goes to the new number (SMS outbox).
    await page.click(tid("safety-change-phone"));
    await page.fill(tid("change-phone-input"), "13900139000");
    await page.click(tid("change-phone-send-code"));
    const sms = await smsCode("8613900139000");
    await page.fill(tid("change-phone-code"), sms.code);
    await page.click(tid("change-phone-submit"));
    await expect.poll(() => page.textContent(tid("safety-phone"))).toBe("+86 13900139000");

    // E-mail: the code goes to the new address.
    await page.click(tid("safety-change-email"));
    await page.fill(tid("change-email-input"), "changed@example.com");
    await page.click(tid("change-email-send-code"));
    const mailed = await mailCode("changed@example.com");
    await page.fill(tid("change-email-code"), mailed);
    await page.click(tid("change-email-submit"));
    await expect.poll(() => page.textContent(tid("safety-email"))).toBe("changed@example.com");

    // Deleting needs the password AND the explicit confirmation.
    await page.click(tid("delete-account"));
    await page.fill(tid("delete-account-password"), "brandnew7");
    expect(await page.isDisabled(tid("delete-account-submit"))).toBe(true);
    await page.click(tid("delete-account-confirm"));
    await page.click(tid("delete-account-submit"));
    await page.waitForURL(/\/login/);
    expect((await apiLogin("changed@example.com", "brandnew7")).hwcode).not.toBe(0);
    await context.close();
  });
});
