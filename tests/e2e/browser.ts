import path from "node:path";
import { pathOf } from "@keyway/shared";
import {
  type Browser,
  type ConsoleMessage,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { buildApp } from "../../apps/server/src/app.ts";
import { type Config, testConfig } from "../../apps/server/src/config.ts";
import { createTestDatabase } from "../../apps/server/src/db/testing.ts";
import { createSenders } from "../../apps/server/src/infra/senders.ts";
import { DEMO_ACCOUNTS, seedDemo } from "../../apps/server/src/seed.ts";
import { freePort } from "../../apps/server/src/testing/ports.ts";
import { startSmtpServer } from "../../apps/server/src/testing/smtp.ts";

/**
 * The built web app the browser tests serve: apps/web/dist, or KEYWAY_TEST_WEB_DIST (a build of
 * one's own, e.g. `vite build --outDir`, so that parallel work does not rebuild it under a run).
 */
export const WEB_DIST =
  process.env.KEYWAY_TEST_WEB_DIST ?? path.resolve(import.meta.dirname, "../../apps/web/dist");

export { freePort };

/** Debian's Chromium with the flags this sandbox needs (no background network). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.on("page", clickWhenStill);
    return context;
  };
  return browser;
}

/**
 * Every click, `page.click` or a locator's, first waits for its target, then for Ant Design's
 * motion to end. Playwright clicks a button once it holds still for two frames, which a
 * dialog's can do just before its zoom starts; under load the button then moves between the
 * press and the release, the click goes to the dialog's backdrop, and nothing happens while
 * the click "succeeded". Patched once, on Playwright's own classes (the first page's).
 */
let clicksWaitForStill = false;
function clickWhenStill(page: Page) {
  if (clicksWaitForStill) return;
  clicksWaitForStill = true;
  const pages = Object.getPrototypeOf(page) as Page;
  const pageClick = pages.click;
  pages.click = async function (this: Page, selector, options) {
    await this.waitForSelector(selector, { state: "attached", timeout: options?.timeout });
    await untilStill(this).catch(() => {});
    return pageClick.call(this, selector, options);
  };
  const locators = Object.getPrototypeOf(page.locator("html")) as Locator;
  const locatorClick = locators.click;
  locators.click = async function (this: Locator, options) {
    await this.waitFor({ state: "attached", timeout: options?.timeout });
    await untilStill(this.page()).catch(() => {});
    return locatorClick.call(this, options);
  };
}

/**
 * Resolves once no Ant Design motion is under way: rc-motion marks an element that zooms,
 * slides or fades with `<motion>-appear`, `-enter` or `-leave` from its first step to its end.
 * A motion lasts 0.1 to 0.3 s; a click waits at most `timeout` for it and then clicks anyway.
 */
function untilStill(page: Page, timeout = 5_000) {
  return page.waitForFunction(
    () => {
      const moving = document.querySelectorAll(
        '[class*="-appear"], [class*="-enter"], [class*="-leave"]',
      );
      return !Array.from(moving).some((element) =>
        Array.from(element.classList).some((name) =>
          /^ant-[\w-]+-(appear|enter|leave)$/.test(name),
        ),
      );
    },
    undefined,
    { timeout, polling: 50 },
  );
}

/**
 * The real platform on a free port: built web app, real database, real SMTP server that
 * receives the codes, and Chromium. PUBLIC_URL is `http://localhost:<port>`, so links and
 * visit hosts (`<visit-id>.visit.localhost:<port>`, loopback in Chromium) point at it.
 */
/** A CSS selector for a `data-testid`. */
export const tid = (id: string) => `[data-testid="${id}"]`;

/**
 * Clicks `submit` and waits for the answer of the API `route` it sends, both together (a
 * click that fails is the failure reported, not a wait left unawaited); the answer's hwcode.
 * A test that then looks for the refusal on screen says, when it fails, whether the request
 * went out and what came back.
 */
export async function answerOf(
  page: Page,
  submit: string,
  route: { path: string },
  timeout = 40_000,
) {
  const apiPath = pathOf(route);
  // What the page said meanwhile: an uncaught error or a console error explains a click that
  // landed and sent nothing.
  const said: string[] = [];
  const onError = (error: Error) => said.push(`page error: ${error.message}`);
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === "error") said.push(`console: ${message.text()}`);
  };
  page.on("pageerror", onError);
  page.on("console", onConsole);
  // The request and its answer are waited for apart, so that a failure under a full check's
  // load says which did not come: the click sent nothing, or the server did not answer.
  const [sent, clicked] = await Promise.allSettled([
    page.waitForRequest((r) => r.url().endsWith(apiPath), { timeout }),
    page.click(tid(submit), { timeout }),
  ]).finally(() => {
    page.off("pageerror", onError);
    page.off("console", onConsole);
  });
  if (sent.status === "rejected") {
    // Playwright's call log says why a click did not land (hidden, moving, covered).
    const click = clicked.status === "rejected" ? `the click failed: ${clicked.reason}` : "clicked";
    const shown = await page
      .locator(".ant-form-item-explain-error, .ant-message-notice, .ant-modal-title")
      .allTextContents()
      .catch(() => []);
    throw new Error(
      `${submit}: ${click}; no ${apiPath} was sent within ${timeout} ms; on screen: ${JSON.stringify(shown)}; ${said.join("; ") || "no page error"}`,
    );
  }
  const request = sent.value;
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([
    request.response(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${apiPath} was sent, no answer in ${timeout} ms`)),
        timeout,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  if (!answer) throw new Error(`${apiPath} was sent and failed: ${request.failure()?.errorText}`);
  return ((await answer.json()) as { hwcode: unknown }).hwcode;
}

/**
 * Waits until the element of `testId` has the focus: a dialog focuses its first field once
 * it has opened, and text filled into another field before then can land in that one.
 */
export async function waitForFocus(page: Page, testId: string) {
  await page.waitForFunction(
    (id) => document.activeElement?.getAttribute("data-testid") === id,
    testId,
  );
}

/**
 * Waits for what a user waits for after an action (a new row after a dialog's submit, or a
 * deleted one gone: `state`), up to `timeout`; when it does not come, the error carries what
 * the page showed instead (its text, a screenshot in /tmp), so that a failure on a loaded CI
 * machine says why.
 */
export async function waitToSee(
  locator: Locator,
  timeout = 40_000,
  state: "visible" | "detached" = "visible",
) {
  try {
    await locator.waitFor({ timeout, state });
  } catch (error) {
    const page = locator.page();
    const shot = `/tmp/kw-e2e-failed-${Date.now()}.png`;
    await page.screenshot({ path: shot }).catch(() => {});
    const text = await page
      .locator("body")
      .innerText({ timeout: 2_000 })
      .catch(() => "(no text)");
    throw new Error(
      `${(error as Error).message}\nThe page at ${page.url()} (${shot}) showed:\n${text.slice(0, 2_000)}`,
    );
  }
}

export async function startPlatform(
  options: {
    config?: Partial<Config>;
    /**
     * A host name of its own for the platform (e.g. `keyway.test`), resolved to loopback by
     * Chromium together with its sub-domains: visit hosts are then the same site as Keyway,
     * as on a real domain (`*.visit.localhost` is another site than `localhost`).
     */
    host?: string;
  } = {},
) {
  const host = options.host ?? "localhost";
  const smtp = await startSmtpServer();
  const database = await createTestDatabase();
  const port = await freePort();
  const app = await buildApp({
    config: testConfig({
      SMTP_URL: smtp.url,
      WEB_DIST,
      PUBLIC_URL: `http://${host}:${port}`,
      ...options.config,
    }),
    db: database.db,
    senders: createSenders({ smtpUrl: smtp.url, mailFrom: "Keyway <no-reply@keyway.local>" }),
    logger: false,
  });
  await seedDemo(app.services.accounts);
  await app.listen({ port, host: "127.0.0.1" });
  const browser = await launchChromium(
    options.host ? [`--host-resolver-rules=MAP ${host} 127.0.0.1, MAP *.${host} 127.0.0.1`] : [],
  );
  return {
    app,
    db: database.db,
    smtp,
    browser,
    port,
    url: (pathname: string, at = host) => `http://${at}:${port}${pathname}`,
    /**
     * Logs in on the desktop login page by e-mail (the demo user unless told) and waits for
     * the side navigation (shown on a wide window, collapsed on a narrow one); each wait up
     * to `timeout`, the page's default from then on.
     */
    async logIn(
      page: Page,
      who: { email: string; password: string } = DEMO_ACCOUNTS.user,
      language = "en",
      timeout = 20_000,
    ) {
      page.setDefaultTimeout(timeout);
      await page.goto(`http://${host}:${port}/login?language=${language}`);
      // A login page that does not come says what came instead.
      await waitToSee(page.locator(tid("login-tab-email")), timeout);
      await page.click(tid("login-tab-email"));
      await page.fill(tid("login-email"), who.email);
      await page.fill(tid("login-password"), who.password);
      await page.click(tid("login-submit"));
      // Below Ant Design's "lg" breakpoint (992 px) the side nav is mounted but collapsed to
      // nothing, so on a phone-sized window only its presence says the login landed.
      const wide = (page.viewportSize()?.width ?? 1280) >= 992;
      await page.waitForSelector(tid("side-nav"), { state: wide ? "visible" : "attached" });
    },
    /** Logs in on the phone's login page by e-mail (the demo user unless told); lands on its device list. */
    async logInPhone(
      page: Page,
      who: { email: string; password: string } = DEMO_ACCOUNTS.user,
      language = "en",
    ) {
      await page.goto(`http://${host}:${port}/mobile/login?language=${language}`);
      await page.click(tid("m-login-tab-email"));
      await page.fill(`${tid("m-login-email")} input`, who.email);
      await page.fill(`${tid("m-login-password")} input`, who.password);
      await page.click(tid("m-login-submit"));
      await page.waitForSelector(tid("m-devices"));
    },
    async close() {
      await browser.close();
      await app.close();
      await database.close();
      await smtp.close();
    },
  };
}
