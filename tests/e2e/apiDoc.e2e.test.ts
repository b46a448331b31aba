import { API, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_DOC_TEXTS } from "../../apps/server/src/http/apiDoc.ts";
import { startPlatform } from "./browser.ts";

/**
 * /apiDoc in Chromium (issue 17): Swagger UI renders the operations whatever the page's
 * query (`?language=en` used to make it fetch `/apiDoc?language=en/./json`), with our title
 * and tag descriptions in the requested language, and nothing refused by the CSP.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.close();
});

/** Opens a page of the documentation; returns what it fetched and any error it met. */
async function open(page: Page, pathname: string) {
  const specs: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/apiDoc/json")) specs.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(platform.url(pathname));
  await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
  return { specs, errors };
}

describe("/apiDoc in the browser", () => {
  it("renders the operations in English with ?language=en", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    try {
      const { specs, errors } = await open(page, "/apiDoc?language=en");
      expect(specs).toEqual([platform.url("/apiDoc/json?language=en")]);
      expect(await page.textContent(".info .title")).toContain("Keyway API");
      // The first tag with our description (Swagger UI renders the list as it scrolls).
      await page.getByText(API_DOC_TEXTS.tags.account.en).waitFor();
      await page
        .locator(".opblock-summary-path", { hasText: pathOf(API.accounts.login) })
        .waitFor();
      expect(await page.content()).not.toContain("Unable to render");
      expect(await page.locator(".errors-wrapper").count()).toBe(0);
      expect(errors).toEqual([]);
      await page.screenshot({ path: "/tmp/kw-apidoc-en.png" });
    } finally {
      await context.close();
    }
  });

  it("renders the operations in Chinese with ?language=cn, over an English cookie", async () => {
    const context = await platform.browser.newContext();
    await context.addCookies([{ name: "lang", value: "en", url: platform.url("/") }]);
    const page = await context.newPage();
    try {
      const { specs, errors } = await open(page, "/apiDoc?language=cn");
      expect(specs).toEqual([platform.url("/apiDoc/json?language=cn")]);
      expect(await page.textContent(".info .title")).toContain("Keyway 接口文档");
      await page.getByText(API_DOC_TEXTS.tags.account.zh).waitFor();
      await page
        .locator(".opblock-summary-path", { hasText: pathOf(API.accounts.login) })
        .waitFor();
      expect(await page.content()).not.toContain("Unable to render");
      expect(errors).toEqual([]);
      await page.screenshot({ path: "/tmp/kw-apidoc-cn.png" });
    } finally {
      await context.close();
    }
  });

  it("renders without a query, and with a trailing slash, in the cookie's language", async () => {
    const context = await platform.browser.newContext();
    await context.addCookies([{ name: "lang", value: "en", url: platform.url("/") }]);
    const page = await context.newPage();
    try {
      for (const pathname of ["/apiDoc", "/apiDoc/"]) {
        const { specs, errors } = await open(page, pathname);
        expect(specs).toEqual([platform.url("/apiDoc/json")]);
        expect(await page.textContent(".info .title")).toContain("Keyway API");
        expect(errors).toEqual([]);
        page.removeAllListeners();
      }
    } finally {
      await context.close();
    }
  });
});
