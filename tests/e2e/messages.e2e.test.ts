import { API, type ProvisionedDevice, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, tid } from "./browser.ts";

/**
 * Issue 17: logins elsewhere do not flood the inbox. The owner has a visit request waiting,
 * then logs in again and again in new browsers (each login ends the one before) and on an
 * Android phone twice: the message centre shows one "logged in elsewhere" message per kind of
 * terminal, naming the latest, and the request stays on the first page, unread.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;

const OWNER = { email: "olivia@example.com", password: "owner123", name: "Olivia" };
const VISITOR = { email: "victor@example.com", password: "visitor123", name: "Victor" };

/** A form POST to the API, as the phone app sends it; the envelope's hwdata. */
async function api(pathname: string, body: Record<string, string>, token?: string) {
  const res = await fetch(platform.url(pathname), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(token ? { cloudtoken: token } : {}),
    },
    body: new URLSearchParams(body).toString(),
  });
  const envelope = await res.json();
  expect(envelope.hwcode, `${pathname}: ${envelope.msg}`).toBe(0);
  return envelope.hwdata;
}

const apiLogin = async (who: { email: string; password: string }, terminalType: string) =>
  (
    await api(pathOf(API.accounts.login), {
      loginName: who.email,
      loginPwd: who.password,
      terminalType,
      terminalName: `e2e ${terminalType}`,
    })
  ).result.token as string;

beforeAll(async () => {
  platform = await startPlatform();
  for (const person of [OWNER, VISITOR]) {
    await platform.app.services.accounts.createActivatedUser({
      account: { channel: "email", email: person.email },
      password: person.password,
      name: person.name,
    });
  }
});
afterAll(() => platform?.close());

/** The inbox rows whose title says the account logged in elsewhere. */
const elsewhereRows = (page: Page) =>
  page.locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`, {
    hasText: "logged in elsewhere",
  });

describe("logged in elsewhere, in the message centre", () => {
  it("keeps one message per kind of terminal and the request above the fold", async () => {
    const operator = await apiLogin(
      { email: "operator@keyway.local", password: "operator123" },
      "ops",
    );
    const [device] = (
      await api(pathOf(API.devices.provision), { count: "1", model: "MT8071iE" }, operator)
    ).list as ProvisionedDevice[];
    // The owner adds the device (phone app); the visitor asks to visit it by its code alone.
    const ownerApp = await apiLogin(OWNER, "android");
    await api(
      pathOf(API.devices.add),
      {
        machineCode: device.machineCode,
        machinePwd: device.devicePassword,
        machineName: "Line 3 HMI",
      },
      ownerApp,
    );
    const visitorToken = await apiLogin(VISITOR, "web");
    const found = await api(
      pathOf(API.access.scanCode),
      { machineCode: device.machineCode },
      visitorToken,
    );
    await api(
      pathOf(API.access.requestVisit),
      { machineID: String(found.machine_id), message: "May I look?" },
      visitorToken,
    );

    // Five browser logins, each ending the one before, and a second Android login.
    const pages: Page[] = [];
    for (let i = 0; i < 5; i++) {
      const context = await platform.browser.newContext({
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      await platform.logIn(page, OWNER);
      pages.push(page);
    }
    await apiLogin(OWNER, "android");

    const page = pages[4];
    await page.goto(platform.url("/msgCenter?language=en"));
    await page.waitForSelector(tid("msg-list-inbox"));
    const inbox = page.locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`);
    await expect.poll(() => inbox.count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => elsewhereRows(page).count()).toBe(2);
    const elsewhere = (await elsewhereRows(page).allTextContents()).join(" | ");
    expect(elsewhere).toContain("Web");
    expect(elsewhere).toContain("Android");
    const request = inbox.filter({ hasText: "Victor asks to visit" });
    await expect.poll(() => request.count()).toBe(1);
    expect(await request.getAttribute("data-read")).toBe("0");

    // A message closed before its text arrives was still read: its row turns read. The
    // detail's answer is held back so that the reader is always quicker than it.
    const detailPath = "**/api/msg/v1/detail/*";
    let answered = 0;
    await page.route(detailPath, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
      answered++;
    });
    const webRow = elsewhereRows(page).filter({ hasText: "Web" });
    await webRow.click();
    await page.waitForSelector(tid("msg-detail"));
    await page.keyboard.press("Escape");
    await page.waitForSelector(tid("msg-detail"), { state: "hidden" });
    expect(answered).toBe(0);
    await expect.poll(() => webRow.getAttribute("data-read")).toBe("1");
    await page.unroute(detailPath);

    // Another web login brings the web message back to the top, unread, without a new one.
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const latest = await context.newPage();
    await platform.logIn(latest, OWNER);
    await latest.goto(platform.url("/msgCenter?language=en"));
    const latestInbox = latest.locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`);
    await expect.poll(() => latestInbox.count(), { timeout: 20_000 }).toBe(3);
    const top = latestInbox.first();
    expect(await top.textContent()).toContain("logged in elsewhere (Web");
    expect(await top.getAttribute("data-read")).toBe("0");
    expect(await elsewhereRows(latest).count()).toBe(2);
  });
});
