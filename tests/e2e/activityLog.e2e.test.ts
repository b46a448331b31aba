import { mkdirSync, readFileSync } from "node:fs";
import { VISIT_ACTIVITY_DAYS } from "@keyway/shared";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMaintainedDemo } from "./agent.ts";
import { tid } from "./browser.ts";

/**
 * Visit activity in the browser (issue 20): a visit that loads the simulated HMI (once with a
 * secret in its query string) and presses its "Raise alarm" button shows those requests in
 * the visit's Activity drawer — method, path without the query, status, bytes — and in the
 * CSV the drawer and the visit log download (nothing of the query or the body in either).
 * Screenshots: /tmp/kw-activity/*.png.
 */
const SHOTS = "/tmp/kw-activity";
const SECRET = "s3cr3t-query";
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let context: BrowserContext;
let page: Page;
let deviceId = 0;
let visitId = "";

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startMaintainedDemo("activity");
  context = await fixture.platform.browser.newContext({
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  await fixture.platform.logIn(page);
});
afterAll(async () => {
  await context?.close();
  await fixture?.close();
});

async function shot(p: Page, name: string) {
  await p.waitForTimeout(600);
  await p.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** Opens the device's visit log in its detail drawer (in `language`). */
async function openVisitLog(language: string) {
  await page.goto(fixture.platform.url(`/index?listType=list&language=${language}`));
  await page.click(tid(`device-detail-${deviceId}`));
  // A narrow window lays the tabs out again while the drawer opens: click until it holds.
  const selected = page.locator(
    `[role="tab"][aria-selected="true"] ${tid("device-detail-tab-visits")}`,
  );
  await expect
    .poll(async () => {
      await page.click(tid("device-detail-tab-visits"));
      return selected.count();
    })
    .toBe(1);
}

/** Saves what a click downloads and returns its name and text. */
async function download(click: () => Promise<void>) {
  const done = page.waitForEvent("download");
  await click();
  const file = await done;
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, "utf8") };
}

describe("visit activity", () => {
  it("lists the requests of a visit that pressed an HMI button, without query or body", async () => {
    await page.goto(fixture.platform.url("/index?listType=list&language=en"));
    const row = page.locator(tid(`device-row-${fixture.demo.machineCode}`));
    await row.waitFor();
    deviceId = Number(await row.getAttribute("data-row-key"));
    const connect = page.locator(tid(`device-connect-${deviceId}`));
    await expect.poll(() => connect.getAttribute("data-online"), { timeout: 60_000 }).toBe("1");
    const opened = context.waitForEvent("page");
    await connect.click();
    const hmi = await opened;
    await hmi.waitForURL(/\.visit\.localhost:\d+\//, { timeout: 30_000 });
    visitId = new URL(hmi.url()).host.split(".")[0] ?? "";
    await expect
      .poll(() => hmi.textContent(tid("hmi-link")), { timeout: 15_000 })
      .toBe("connected");
    // The page again with a secret in its query: the log keeps the path only.
    await hmi.goto(`${new URL(hmi.url()).origin}/?token=${SECRET}`);
    await hmi.fill(tid("hmi-alarm-text"), "Valve 9 stuck");
    await hmi.click(tid("hmi-raise"));
    await expect
      .poll(() => hmi.textContent(tid("hmi-alarms")), { timeout: 15_000 })
      .toContain("Valve 9 stuck");
    // The page asks its status a dozen times at once: identical requests, one row with a count.
    const statuses = await hmi.evaluate(() =>
      Promise.all(Array.from({ length: 12 }, () => fetch("/api/status").then((r) => r.status))),
    );
    expect(statuses).toEqual(Array(12).fill(200));
    await hmi.close();

    await openVisitLog("en");
    const visitRow = page.locator(tid(`device-visit-row-${visitId}`));
    await visitRow.waitFor();
    expect(await visitRow.locator(tid("device-visit-kind")).getAttribute("data-kind")).toBe("web");
    await page.click(tid(`device-visit-activity-${visitId}`));
    const drawer = page.locator(tid("activity-drawer"));
    const raised = drawer.locator('[data-method="POST"][data-path="/api/alarms"]');
    await expect
      .poll(
        async () => {
          await drawer.locator(tid("activity-refresh")).click();
          return raised.count();
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
    expect(await raised.first().getAttribute("data-status")).toMatch(/^2\d\d$/);
    expect(await drawer.locator('[data-method="GET"][data-path="/"]').count()).toBeGreaterThan(0);
    const counts = await drawer
      .locator(`[data-path="/api/status"] ${tid("activity-requests")}`)
      .evaluateAll((tags) => tags.map((tag) => Number(tag.getAttribute("data-value"))));
    expect(Math.max(0, ...counts)).toBeGreaterThan(1);
    expect(await drawer.textContent()).not.toContain(SECRET);
    expect(await drawer.textContent()).toContain(`${VISIT_ACTIVITY_DAYS} days`);
    await shot(page, "drawer-en");

    // The visit's CSV: the same requests, the path without its query, no body.
    const csv = await download(() => drawer.locator(tid("activity-export")).click());
    expect(csv.name).toMatch(/\.csv$/);
    expect(csv.text).toContain("/api/alarms");
    expect(csv.text).toContain("POST");
    expect(csv.text).toContain(visitId);
    expect(csv.text).not.toContain(SECRET);
    expect(csv.text).not.toContain("Valve 9 stuck");
  });

  it("downloads the device's whole activity from the visit log, in the page's language", async () => {
    await openVisitLog("cn");
    const csv = await download(() => page.click(tid("device-visits-export")));
    expect(csv.text).toContain(visitId);
    expect(csv.text).toContain("/api/alarms");
    // A header in Chinese: the CSV follows the page's language.
    expect(csv.text.split("\n")[0]).toMatch(/[\u4e00-\u9fff]/);
    await page.click(tid(`device-visit-activity-${visitId}`));
    await page.locator(tid("activity-drawer")).locator('[data-method="POST"]').first().waitFor();
    await shot(page, "drawer-zh");
  });

  it("shows the drawer on a TV-sized and a phone-sized screen in both languages", async () => {
    const screens = { tv: { width: 1920, height: 1080 }, phone: { width: 390, height: 844 } };
    for (const [name, size] of Object.entries(screens)) {
      await page.setViewportSize(size);
      for (const language of ["en", "cn"]) {
        await openVisitLog(language);
        const lang = language === "cn" ? "zh" : "en";
        // On a phone the detail's actions wrap above its body, clear of the device's name.
        if (name === "phone") {
          const title = page.locator(`${tid("device-detail-drawer")} .ant-drawer-title`);
          const connect = await page.locator(tid("device-detail-connect")).boundingBox();
          const titleBox = await title.boundingBox();
          expect(connect?.y ?? 0).toBeGreaterThan((titleBox?.y ?? 0) + (titleBox?.height ?? 0));
          await shot(page, `detail-phone-${lang}`);
        }
        await page.click(tid(`device-visit-activity-${visitId}`));
        const drawer = page.locator(tid("activity-drawer"));
        await drawer.locator('[data-method="POST"]').first().waitFor();
        // The drawer takes the whole of a phone's width, its request counts in view.
        const box = await drawer.boundingBox();
        if (name === "phone") expect(Math.round(box?.width ?? 0)).toBe(size.width);
        await shot(page, `drawer-${name}-${lang}`);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
