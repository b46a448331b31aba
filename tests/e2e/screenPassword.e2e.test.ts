import { mkdirSync } from "node:fs";
import { API } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RED } from "../../apps/server/src/testing/vnc.ts";
import { tid } from "./browser.ts";
import { canvasMiddle, colourShare, startScreenDemo, until } from "./screenFixture.ts";

/**
 * A device whose VNC server asks a password (Xvnc with VNC authentication): the viewer asks
 * it in Keyway's own dialog, a wrong one says so and offers to reconnect, the right one shows
 * the screen — and the password is nowhere afterwards (storage, cookies, address).
 * Screenshots: /tmp/kw-screen/password-*.png.
 */
const SHOTS = "/tmp/kw-screen";
const PASSWORD = "s3cret";
let fixture: Awaited<ReturnType<typeof startScreenDemo>>;
let deviceId = 0;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startScreenDemo("screen-password", { password: PASSWORD });
  const list = await fixture.call(fixture.owner.token, API.devices.select, {});
  deviceId = list.list[0].machine_id;
  await until("the agent's tunnel with its screen", () =>
    Boolean(fixture.platform.app.services.tunnels.hello(deviceId)?.vnc),
  );
});
afterAll(async () => {
  await fixture?.close();
});

const status = (page: Page) => page.locator(tid("screen-status")).getAttribute("data-state");

async function shot(page: Page, name: string) {
  await page.waitForTimeout(600);
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

describe("a VNC password asked in Keyway's page", () => {
  it("refuses a wrong password, shows the screen with the right one and keeps neither", async () => {
    const context = await fixture.platform.browser.newContext({
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await fixture.platform.logIn(page);
    await page.goto(fixture.platform.url(`/screen/${deviceId}?language=en`));
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("password");
    const input = page.locator(tid("screen-password-input"));
    await input.waitFor();
    // Empty is not sent.
    await page.click(tid("screen-password-submit"));
    await page.locator(".ant-form-item-explain-error").waitFor();
    await shot(page, "password-en");

    await input.fill("wrong");
    await page.click(tid("screen-password-submit"));
    await expect.poll(() => status(page), { timeout: 15_000 }).toBe("failed");
    expect(await page.locator(tid("screen-status")).getAttribute("data-end")).toBe("security");
    await shot(page, "password-refused-en");

    // Reconnect: a new visit, the password asked again.
    await page.click(tid("screen-reconnect"));
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("password");
    await page.locator(tid("screen-password-input")).fill(PASSWORD);
    await page.keyboard.press("Enter");
    await expect.poll(() => status(page), { timeout: 15_000 }).toBe("online");
    await expect
      .poll(async () => colourShare(page, await canvasMiddle(page), RED), { timeout: 15_000 })
      .toBeGreaterThan(0.9);

    // Nothing of it kept: not in storage, cookies, the address or the page.
    const kept = await page.evaluate(() =>
      JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href]),
    );
    expect(kept).not.toContain(PASSWORD);
    expect(await page.content()).not.toContain(PASSWORD);
    const cookies = await context.cookies();
    expect(JSON.stringify(cookies)).not.toContain(PASSWORD);
    await context.close();
  });

  it("asks it in Chinese too", async () => {
    const context = await fixture.platform.browser.newContext({
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await fixture.platform.logIn(page, undefined, "cn");
    await page.goto(fixture.platform.url(`/screen/${deviceId}?language=cn`));
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("password");
    expect(await page.locator(".ant-modal-title").textContent()).toContain("VNC 密码");
    await shot(page, "password-zh");
    await context.close();
  });
});
