import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform } from "./browser.ts";

/**
 * Issue 5 in a real browser: the owner adds a provisioned device; a second user adds the same
 * code, is told it is already added and asks to visit it; the owner's unread badge and
 * message centre follow by push (no reload), the owner approves with a visit time; the
 * visitor's outbox shows the result live; a login of the visitor elsewhere ends the first
 * session with the re-login prompt. Screenshots of the message centre, the authority centre
 * and the request dialog in both languages go to /tmp/kw-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let device: { machineCode: string; devicePassword: string };

const OWNER = { email: "owner@example.com", password: "owner123", name: "Olivia" };
const VISITOR = { email: "visitor@example.com", password: "visitor123", name: "Victor" };

beforeAll(async () => {
  platform = await startPlatform();
  for (const person of [OWNER, VISITOR]) {
    await platform.app.services.accounts.createActivatedUser({
      account: { channel: "email", email: person.email },
      password: person.password,
      name: person.name,
    });
  }
  device = await provisionThroughOperatorApi();
});
afterAll(() => platform?.close());

const tid = (id: string) => `[data-testid="${id}"]`;

/** POST /api/operator/v1/devices/provision as the seeded operator (its own terminal type). */
async function provisionThroughOperatorApi() {
  const form = (body: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  const login = await fetch(
    platform.url("/api/user/login"),
    form({
      loginName: "operator@keyway.local",
      loginPwd: "operator123",
      terminalType: "ops",
      terminalName: "e2e",
    }),
  ).then((r) => r.json());
  expect(login.hwcode).toBe(0);
  const token: string = login.hwdata.result.token;
  const res = await fetch(platform.url("/api/operator/v1/devices/provision"), {
    ...form({ count: "1", model: "MT8071iE" }),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cloudtoken: token,
    },
  }).then((r) => r.json());
  expect(res.hwcode).toBe(0);
  return res.hwdata.list[0] as { machineCode: string; devicePassword: string };
}

async function logIn(page: Page, person: { email: string; password: string }) {
  await page.goto(platform.url("/login?language=en"));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), person.email);
  await page.fill(tid("login-password"), person.password);
  await page.click(tid("login-submit"));
  await page.waitForSelector(tid("side-nav"));
}

async function newPage(): Promise<[BrowserContext, Page]> {
  const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
  return [context, await context.newPage()];
}

async function addDevice(page: Page, name: string) {
  await page.click(tid("device-add"));
  await page.fill(tid("device-add-code"), device.machineCode);
  await page.fill(tid("device-add-password"), device.devicePassword);
  await page.fill(tid("device-add-name"), name);
  await page.click(tid("device-add-submit"));
}

/** Lets animations settle before a screenshot. */
const settle = (page: Page) => page.waitForTimeout(600);

describe("access workflow, message centre and authority centre in the browser", () => {
  it("asks to visit, is approved by push, and is logged out by a login elsewhere", async () => {
    // The owner adds the device and keeps the message centre open.
    const [ownerContext, owner] = await newPage();
    await logIn(owner, OWNER);
    await owner.goto(platform.url("/index?listType=list&language=en"));
    await addDevice(owner, "Press 7 HMI");
    const row = owner.locator(tid(`device-row-${device.machineCode}`));
    await row.waitFor();
    const machineId = await row.getAttribute("data-row-key");
    await owner.click(tid("nav-msgCenter"));
    await owner.waitForSelector(tid("msg-page"));
    await owner.locator(tid("msg-empty")).waitFor();
    expect(await owner.locator(tid("nav-unread")).count()).toBe(0);

    // The visitor adds the same code: already added → ask to visit with a message.
    const [visitorContext, visitor] = await newPage();
    await logIn(visitor, VISITOR);
    await visitor.goto(platform.url("/index?listType=list&language=en"));
    await addDevice(visitor, "Their press");
    await visitor.locator(tid("device-add-taken")).waitFor();
    await visitor.click(tid("device-add-request-visit"));
    await visitor.locator(tid("request-dialog")).waitFor();
    await visitor.fill(tid("request-message"), "May I visit?");
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-request-dialog-en.png" });
    await visitor.click(tid("request-submit"));
    const result = visitor.locator(tid("request-result"));
    await result.waitFor();
    expect(await result.getAttribute("data-outcome")).toBe("sent");
    const requestId = await result.getAttribute("data-request-id");
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-request-sent-en.png" });
    await visitor.click(tid("request-close"));

    // The visitor watches the outbox.
    await visitor.click(tid("nav-msgCenter"));
    await visitor.click(tid("msg-tab-outbox"));
    const outbox = visitor.locator(tid("msg-list-outbox"));
    await expect.poll(() => outbox.textContent()).toContain(`#${requestId}`);
    expect(await outbox.locator(tid("audit-state")).first().getAttribute("data-state")).toBe("0");

    // The owner's badge rises and the request appears without a reload.
    await expect.poll(() => owner.locator(tid("nav-unread")).textContent()).toBe("1");
    const inboxRow = owner.locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`).first();
    await inboxRow.waitFor();
    expect(await inboxRow.getAttribute("data-read")).toBe("0");
    expect(await inboxRow.textContent()).toContain(device.machineCode);
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-msgcenter-inbox-en.png" });

    // The owner reads it and approves for 2 hours.
    await inboxRow.click();
    await owner.locator(tid("reply-panel")).waitFor();
    await expect.poll(() => owner.textContent(tid("msg-detail-request"))).toContain("May I visit?");
    await owner.fill(tid("reply-visit-time-amount"), "2");
    await owner.fill(tid("reply-message"), "Welcome");
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-msgcenter-detail-en.png" });
    await owner.click(tid("reply-agree"));
    await owner
      .locator(`${tid("msg-detail-request")} ${tid("audit-state")}[data-state="5"]`)
      .waitFor();
    await expect.poll(() => owner.locator(tid("nav-unread")).count()).toBe(0);
    await owner.keyboard.press("Escape");

    // The visitor's outbox follows live: approved.
    await outbox
      .locator(`${tid("audit-state")}[data-state="5"]`)
      .first()
      .waitFor();
    await visitor.click(tid("msg-tab-inbox"));
    await visitor
      .locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`)
      .first()
      .waitFor();
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-msgcenter-visitor-en.png" });

    // The audit result query finds the request with its steps.
    await visitor.click(tid("msg-audit-query"));
    await visitor.fill(tid("audit-query-id"), String(requestId));
    await visitor.click(tid("audit-query-submit"));
    await visitor
      .locator(`${tid("audit-query-result")} ${tid("audit-step")}`)
      .nth(1)
      .waitFor();
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-audit-query-en.png" });
    await visitor.keyboard.press("Escape");

    // The owner's authority centre: the visitor is on the white list with a valid visit time.
    await owner.click(tid("nav-index"));
    await owner.click(tid(`device-detail-${machineId}`));
    await owner.click(tid("device-authority-open"));
    await owner.locator(tid("auth-members")).waitFor();
    await expect.poll(() => owner.textContent(tid("auth-members"))).toContain("Olivia");
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-authority-bkey-en.png" });
    await owner.click(tid("auth-tab-white"));
    await expect.poll(() => owner.textContent(tid("auth-white"))).toContain("Victor");
    await owner.click(tid("auth-tab-valid"));
    await expect.poll(() => owner.textContent(tid("auth-valid"))).toContain("Victor");
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-authority-valid-en.png" });
    await owner.click(tid("auth-tab-settings"));
    await owner.locator(tid("auth-settings")).waitFor();
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-authority-settings-en.png" });

    // The same screens in Chinese.
    await owner.keyboard.press("Escape");
    await owner.locator(tid("auth-members")).waitFor({ state: "detached" });
    await owner.keyboard.press("Escape");
    await owner.click(tid("lang-cn"));
    await owner.click(tid(`device-detail-${machineId}`));
    await owner.click(tid("device-authority-open"));
    await expect.poll(() => owner.textContent(tid("auth-members"))).toContain("Olivia");
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-authority-bkey-zh.png" });
    await owner.click(tid("auth-tab-valid"));
    await expect.poll(() => owner.textContent(tid("auth-valid"))).toContain("Victor");
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-authority-valid-zh.png" });
    await owner.keyboard.press("Escape");
    await owner.locator(tid("auth-valid")).waitFor({ state: "detached" });
    await owner.keyboard.press("Escape");
    await owner.click(tid("nav-msgCenter"));
    await owner
      .locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`)
      .first()
      .waitFor();
    await settle(owner);
    await owner.screenshot({ path: "/tmp/kw-msgcenter-inbox-zh.png" });

    await visitor.click(tid("lang-cn"));
    await visitor.click(tid("msg-tab-outbox"));
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-msgcenter-outbox-zh.png" });
    await visitor.click(tid("nav-index"));
    await addDevice(visitor, "Their press");
    await visitor.locator(tid("device-add-taken")).waitFor();
    await visitor.click(tid("device-add-request-bind"));
    await visitor.fill(tid("request-message"), "请绑定");
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-request-dialog-zh.png" });
    await visitor.click(tid("request-submit"));
    await visitor.locator(tid("request-result")).waitFor();
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-request-result-zh.png" });
    await visitor.click(tid("request-close"));

    // The visitor logs in elsewhere: the first session is told to log in again.
    const [elsewhereContext, elsewhere] = await newPage();
    await logIn(elsewhere, VISITOR);
    await visitor.locator(tid("push-logout-modal")).waitFor();
    await settle(visitor);
    await visitor.screenshot({ path: "/tmp/kw-relogin-zh.png" });
    await visitor.click(tid("push-relogin"));
    await visitor.waitForURL(/\/login/);

    await elsewhereContext.close();
    await visitorContext.close();
    await ownerContext.close();
  }, 240_000);
});
