import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { freePort, startPlatform, tid } from "./browser.ts";

/**
 * Issue 9's camera cloud accounts in a real browser, against a local stand-in of the EZVIZ
 * open platform: the demo user checks a wrong and a right AppKey/Secret, adds the account
 * (the Secret shown masked), binds it to their device from the device detail, releases it
 * and deletes the account. Screenshots go to /tmp/kw-ezviz-*.png.
 */
const APP_KEY = "7f139f95ccab4ad0be82630b443edb0b";
const SECRET = "68309273efbb8cbe20bca9155cb225d5";

let platform: Awaited<ReturnType<typeof startPlatform>>;
let demo: DemoDevice;
let deviceId = 0;
let dataDir: string;
let ezviz: Server;
const tokenRequests: Array<Record<string, string>> = [];

beforeAll(async () => {
  // EZVIZ as documented: form posts, code "200" with a token, 10030 for a wrong Secret.
  const port = await freePort();
  ezviz = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      const send = (payload: object) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
      if (req.url === "/api/lapp/token/get") {
        tokenRequests.push(form);
        if (form.appKey !== APP_KEY) return send({ code: "10017", msg: "appKey不存在" });
        if (form.appSecret !== SECRET)
          return send({ code: "10030", msg: "appkey和appSecret不匹配" });
        return send({ code: "200", data: { accessToken: "at.e2e", expireTime: Date.now() } });
      }
      if (req.url === "/api/lapp/device/list" && form.accessToken === "at.e2e")
        return send({ code: "200", page: { total: 4, page: 0, size: 1 }, data: [] });
      send({ code: "10002", msg: "accessToken异常或过期" });
    });
  });
  await new Promise<void>((done) => ezviz.listen(port, "127.0.0.1", done));
  platform = await startPlatform({ config: { EZVIZ_API_URL: `http://127.0.0.1:${port}` } });
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-ezviz-"));
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  deviceId = (await platform.app.services.devices.findByCode(demo.machineCode))?.id ?? 0;
});
afterAll(async () => {
  await platform?.close();
  if (ezviz) await new Promise((done) => ezviz.close(done));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const settle = (page: Page) => page.waitForTimeout(600);

const logIn = (page: Page, email: string, password: string, language = "en") =>
  platform.logIn(page, { email, password }, language);

describe("camera cloud accounts in the browser", () => {
  it("checks, adds, binds, releases and deletes an account; the Secret never shows", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await logIn(page, DEMO_ACCOUNTS.user.email, DEMO_ACCOUNTS.user.password);
      await page.click(tid("nav-ezviz"));
      await page.locator(tid("ezviz-page")).waitFor();
      await page.getByText("No camera cloud accounts yet").waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-empty-en.png" });

      // The shared rules refuse empty fields before anything is sent.
      await page.click(tid("ezviz-add"));
      await page.click(tid("ezviz-account-submit"));
      await page.locator(".ant-form-item-explain-error", { hasText: "required" }).first().waitFor();
      expect(tokenRequests).toHaveLength(0);

      // A wrong Secret: EZVIZ's refusal lands on the Secret field.
      await page.fill(tid("ezviz-name"), "Workshop cameras");
      await page.fill(tid("ezviz-appkey"), APP_KEY);
      await page.fill(tid("ezviz-secret"), "not-the-secret");
      await page.click(tid("ezviz-check"));
      await page
        .locator(".ant-form-item-explain-error", { hasText: "do not match" })
        .first()
        .waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-check-failed-en.png" });

      // The right one: accepted, with the account's camera count.
      await page.fill(tid("ezviz-secret"), SECRET);
      await page.click(tid("ezviz-check"));
      await page.locator(tid("ezviz-check-ok"), { hasText: "4 cameras" }).waitFor();
      await page.fill(tid("ezviz-remark"), "Hall A and the gate");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-check-ok-en.png" });
      expect(tokenRequests.at(-1)).toEqual({ appKey: APP_KEY, appSecret: SECRET });
      await page.click(tid("ezviz-account-submit"));
      await page.getByText("Account added").waitFor();

      const table = page.locator(tid("ezviz-table"));
      await table.getByText("Workshop cameras").waitFor();
      await expect(table.locator(tid("ezviz-secret-cell")).textContent()).resolves.toBe(
        `********${SECRET.slice(-4)}`,
      );
      // The first account is the default one.
      await table.locator('[data-testid^="ezviz-default-"]').waitFor();
      expect(await page.content()).not.toContain(SECRET);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-list-en.png" });

      // Editing starts with an empty Secret (the browser never holds the stored one).
      await page.locator('[data-testid^="ezviz-edit-"]').click();
      await expect(page.locator(tid("ezviz-secret")).inputValue()).resolves.toBe("");
      await page.keyboard.press("Escape");

      // Bind it to the demo device from the device detail.
      await page.click(tid("nav-index"));
      await page.click(tid(`device-detail-${deviceId}`));
      const drawer = page.locator(tid("device-detail-drawer"));
      await drawer.locator(tid("device-ezviz-select")).click();
      await page.locator(".ant-select-item-option", { hasText: "Workshop cameras" }).click();
      await drawer.locator(tid("device-ezviz-bind")).click();
      await page.getByText("Camera account bound").waitFor();
      await drawer.locator(tid("device-ezviz-release")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-bound-en.png" });

      // The list counts the bound device.
      await page.keyboard.press("Escape");
      await page.click(tid("nav-ezviz"));
      await table.locator("td", { hasText: /^1$/ }).first().waitFor();

      // Release from the device detail (asked first).
      await page.click(tid("nav-index"));
      await page.click(tid(`device-detail-${deviceId}`));
      await drawer.locator(tid("device-ezviz-release")).click();
      await page.click(tid("device-ezviz-release-ok"));
      await page.getByText("Camera account released").waitFor();
      // The toast comes with the answer; the drawer re-renders after its refetch.
      await drawer.locator(tid("device-ezviz-release")).waitFor({ state: "detached" });
      await page.keyboard.press("Escape");

      // Delete (asked first).
      await page.click(tid("nav-ezviz"));
      await page.locator('[data-testid^="ezviz-delete-"]').click();
      await page.click(tid("ezviz-delete-confirm"));
      await page.getByText("Account deleted").waitFor();
      await page.getByText("No camera cloud accounts yet").waitFor();
    } finally {
      await context.close();
    }
  });

  it("shows the page in Chinese", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await logIn(page, DEMO_ACCOUNTS.user.email, DEMO_ACCOUNTS.user.password, "cn");
      await page.click(tid("nav-ezviz"));
      await page.getByText("暂无摄像头云账号").waitFor();
      await page.click(tid("ezviz-add"));
      await page.fill(tid("ezviz-name"), "车间摄像头");
      await page.fill(tid("ezviz-appkey"), "nosuchkey");
      await page.fill(tid("ezviz-secret"), SECRET);
      await page.click(tid("ezviz-check"));
      await page.locator(".ant-form-item-explain-error", { hasText: "AppKey 不存在" }).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-ezviz-add-zh.png" });
    } finally {
      await context.close();
    }
  });
});
