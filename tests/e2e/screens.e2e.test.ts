import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, pathOf } from "@keyway/shared";
import { type BrowserContext, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, DEMO_ICCID, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * Issue 17's layout defects, walked in Chromium on one platform (the demo user with the demo
 * device and its 4G card, two unread messages): TV mode's page headings readable (WCAG
 * contrast from computed styles) and below the header on every TV page; /iotCard's fixed
 * Action column covering no column; the alarm centre's Refresh on one line; "Mark all read"
 * enabled while messages are unread; the data centre's tab following the section shown (by
 * click, address and back button); the mail receiver's placeholder; the 4G plan name in one
 * language on the phone and the desktop. en and zh, 1440×900, 1280×720, a 390×844 phone and
 * the TV (?tv=1, 1920×1080). Screenshots: /tmp/shots-layout/*.png.
 */
const SHOTS = "/tmp/shots-layout";
let platform: Awaited<ReturnType<typeof startPlatform>>;
let dataDir: string;

const LANGS = ["en", "cn"] as const;
type Language = (typeof LANGS)[number];
const DESKTOPS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;
const TV = { width: 1920, height: 1080 };
/** A 390×844 phone (Chromium's Pixel 7 touch and agent, the brief's viewport). */
const PHONE = { ...devices["Pixel 7"], viewport: { width: 390, height: 844 } };

/** A form POST to the API, as the phone app sends it; the envelope's hwdata. */
async function api(pathname: string, body: Record<string, string>) {
  const res = await fetch(platform.url(pathname), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  const envelope = await res.json();
  expect(envelope.hwcode, `${pathname}: ${envelope.msg}`).toBe(0);
  return envelope.hwdata;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  platform = await startPlatform();
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-screens-"));
  await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  // The demo device's card, read once from the simulator carrier ("1 GB 月包 monthly").
  await platform.app.services.iotCards.sync();
  await platform.app.services.iotCards.refreshDue();
  // Two unread inbox messages: a second login of two phone-app kinds ends the first of each
  // ("logged in elsewhere"); the browser's web sessions are not touched.
  for (const terminalType of ["android", "android", "ios", "ios"]) {
    await api(pathOf(API.accounts.login), {
      loginName: DEMO_ACCOUNTS.user.email,
      loginPwd: DEMO_ACCOUNTS.user.password,
      terminalType,
      terminalName: `e2e ${terminalType}`,
    });
  }
});
afterAll(async () => {
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Animations settle, then the screenshot (kept for a look). */
async function shot(page: Page, name: string) {
  await page.waitForTimeout(600);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, timeout: 60_000 });
}

async function desktop(
  viewport: { width: number; height: number },
  language: Language,
): Promise<[BrowserContext, Page]> {
  const context = await platform.browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await platform.logIn(page, DEMO_ACCOUNTS.user, language);
  return [context, page];
}

/**
 * WCAG 2 contrast of an element's text against what is behind it, from computed styles: the
 * text colour over the first opaque background up its ancestors (translucent ones blended in
 * on the way), white at the top.
 */
function contrastOf(page: Page, selector: string) {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => {
      type Rgba = [number, number, number, number];
      const parse = (value: string): Rgba => {
        const n = value.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
        return [n[0], n[1], n[2], n.length > 3 ? n[3] : 1];
      };
      const over = (top: Rgba, bottom: Rgba): Rgba => [
        top[0] * top[3] + bottom[0] * (1 - top[3]),
        top[1] * top[3] + bottom[1] * (1 - top[3]),
        top[2] * top[3] + bottom[2] * (1 - top[3]),
        1,
      ];
      const layers: Rgba[] = [];
      for (let at: Element | null = element; at; at = at.parentElement) {
        const bg = parse(getComputedStyle(at).backgroundColor);
        if (bg[3] === 0) continue;
        layers.push(bg);
        if (bg[3] >= 1) break;
      }
      let background: Rgba = [255, 255, 255, 1];
      for (const layer of layers.reverse()) background = over(layer, background);
      const text = over(parse(getComputedStyle(element).color), background);
      const luminance = ([r, g, b]: Rgba) => {
        const c = [r, g, b].map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
      };
      const [hi, lo] = [luminance(text), luminance(background)].sort((a, b) => b - a);
      return {
        ratio: (hi + 0.05) / (lo + 0.05),
        color: getComputedStyle(element).color,
        background: `rgb(${background.slice(0, 3).map(Math.round).join(",")})`,
        text: element.textContent ?? "",
      };
    });
}

/** A page's heading: the first heading (or result title) of the content area. */
const HEADING =
  ".kw-content :is(h1, h2, h3, h4, .ant-result-title, .ant-card-head-title):not(:empty)";

// Eleven pages in a row on a loaded machine.
describe("TV mode's pages", { timeout: 300_000 }, () => {
  // Every page of the main layout (the device list is the wall in TV mode).
  const PAGES = [
    "/cloudmap",
    "/index?listType=list",
    "/device?type=1",
    "/project?type=1",
    "/safety",
    "/ezviz",
    "/msgCenter",
    "/dataCenter",
    "/alarmCenter",
    "/iotCard",
    `/iotCard/${DEMO_ICCID}`,
    "/recoverPwd",
  ];

  for (const language of LANGS) {
    it(`shows every page heading readable and below the header (${language})`, async () => {
      const [context, page] = await desktop(TV, language);
      try {
        await page.goto(platform.url("/index?listType=list&tv=1"));
        await page.locator(tid("tv-wall")).waitFor();
        for (const pathname of PAGES) {
          await page.goto(platform.url(pathname));
          await page.locator("[data-tv='1']").waitFor();
          await page.locator(HEADING).first().waitFor();
          const heading = await contrastOf(page, HEADING);
          expect(heading.text.trim(), pathname).not.toBe("");
          expect(
            heading.ratio,
            `${pathname}: "${heading.text}" ${heading.color} on ${heading.background}`,
          ).toBeGreaterThanOrEqual(4.5);
          const box = await page.locator(HEADING).first().boundingBox();
          const header = await page.locator(".kw-header").boundingBox();
          expect(box && header, pathname).toBeTruthy();
          if (box && header)
            expect(box.y, pathname).toBeGreaterThanOrEqual(header.y + header.height);
          await shot(page, `tv-${language}${pathname.replace(/[/?=&]+/g, "-")}`);
        }
      } finally {
        await context.close();
      }
    });
  }
});

describe("desktop screens at 1440 and 1280", { timeout: 180_000 }, () => {
  for (const language of LANGS) {
    for (const viewport of DESKTOPS) {
      const size = `${viewport.width}x${viewport.height}`;
      it(`lays out /iotCard and the alarm filter bar (${language}, ${size})`, async () => {
        const [context, page] = await desktop(viewport, language);
        try {
          // /iotCard: the fixed Action column covers no column.
          await page.goto(platform.url("/iotCard"));
          await page.locator(tid(`iot-row-${DEMO_ICCID}`)).waitFor();
          const table = page.locator(`${tid("iot-list")} .ant-table-content`);
          const columns = () =>
            page.locator(`${tid("iot-list")} .ant-table-thead th`).evaluateAll((cells) =>
              cells.map((cell) => {
                const r = cell.getBoundingClientRect();
                return { text: cell.textContent ?? "", left: r.left, right: r.right };
              }),
            );
          const overlap = async () => {
            const cells = await columns();
            const action = cells.find((c) => c.text === (language === "en" ? "Action" : "操作"));
            const read = cells.find(
              (c) => c.text === (language === "en" ? "Last read" : "最近读取"),
            );
            expect(action && read).toBeTruthy();
            return (read?.right ?? 0) - (action?.left ?? 0);
          };
          const scroll = await table.evaluate((el) => ({
            width: el.scrollWidth,
            visible: el.clientWidth,
          }));
          if (viewport.width >= 1440) {
            // All columns fit beside the navigation: nothing scrolls, nothing is covered.
            expect(scroll.width).toBeLessThanOrEqual(scroll.visible);
            expect(await overlap()).toBeLessThanOrEqual(0.5);
          } else {
            // Narrower the table scrolls sideways; scrolled to the end, Last read is clear.
            expect(scroll.width).toBeGreaterThan(scroll.visible);
            await table.evaluate((el) => {
              el.scrollLeft = el.scrollWidth;
            });
            await expect.poll(overlap).toBeLessThanOrEqual(0.5);
            await table.evaluate((el) => {
              el.scrollLeft = 0;
            });
          }
          await shot(page, `iotCard-${language}-${size}`);

          // The alarm centre: Refresh stays one line, also with a device chosen (its Confirm
          // all / Reset buttons join the bar).
          await page.goto(platform.url("/alarmCenter"));
          const refresh = page.locator(tid("alarm-refresh"));
          await refresh.waitFor();
          const oneLine = () =>
            refresh.evaluate((button) => {
              const label = Array.from(button.children).find(
                (c) => !c.classList.contains("ant-btn-icon"),
              );
              const reset = document.querySelector('[data-testid="alarm-filter-reset"]');
              return {
                lines: label ? label.getClientRects().length : 0,
                height: button.getBoundingClientRect().height,
                single: reset?.getBoundingClientRect().height ?? 0,
              };
            });
          const check = async () => {
            const line = await oneLine();
            expect(line.lines).toBe(1);
            expect(line.height).toBe(line.single);
          };
          await check();
          await page.click(tid("alarm-filter-device"));
          await page.locator(".ant-select-item-option").first().click();
          await page.locator(".kw-alarm-device-actions").waitFor();
          await check();
          await shot(page, `alarmCenter-${language}-${size}`);
        } finally {
          await context.close();
        }
      });
    }
  }

  /** The navigation's unread badge (0 without one). */
  const unreadBadge = async (page: Page) => {
    const badge = page.locator(tid("nav-unread"));
    return (await badge.count()) === 0 ? 0 : Number(await badge.textContent());
  };

  it("keeps Mark all read enabled while messages are unread, and marks them read", async () => {
    // The two phone-app messages, and "logged in elsewhere (Web)" from this file's own
    // browser logins (each ends the one before).
    // zh at 1280: the filtered page is empty, the two unread messages are not.
    const [zhContext, zh] = await desktop(DESKTOPS[1], "cn");
    try {
      await zh.goto(platform.url("/msgCenter"));
      await zh.locator(tid("msg-list-inbox")).waitFor();
      await expect.poll(() => unreadBadge(zh)).toBeGreaterThanOrEqual(2);
      await zh.click(tid("msg-type-filter"));
      await zh.locator(".ant-select-item-option").nth(2).click();
      await zh.locator(tid("msg-empty")).waitFor();
      await expect.poll(() => zh.locator(tid("msg-read-all")).isEnabled()).toBe(true);
      await shot(zh, "msgCenter-cn-1280x720");
    } finally {
      await zhContext.close();
    }

    const [context, page] = await desktop(DESKTOPS[0], "en");
    try {
      await page.goto(platform.url("/msgCenter"));
      const rows = page.locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`);
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
      await expect.poll(() => unreadBadge(page)).toBeGreaterThanOrEqual(2);
      // A type with no messages: the page is empty, the box still has two unread.
      await page.click(tid("msg-type-filter"));
      await page.locator(".ant-select-item-option").nth(2).click();
      await page.locator(tid("msg-empty")).waitFor();
      const readAll = page.locator(tid("msg-read-all"));
      await expect.poll(() => readAll.isEnabled()).toBe(true);
      await shot(page, "msgCenter-en-1440x900");
      await readAll.click();
      await page.locator(tid("nav-unread")).waitFor({ state: "detached" });
      await expect.poll(() => readAll.isEnabled()).toBe(false);
      // All types again (the page anew): every message read.
      await page.reload();
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
      await expect
        .poll(() => rows.evaluateAll((all) => all.filter((r) => r.dataset.read !== "1").length))
        .toBe(0);
      await shot(page, "msgCenter-en-1440x900-read");
    } finally {
      await context.close();
    }
  });

  for (const language of LANGS) {
    for (const viewport of DESKTOPS) {
      const size = `${viewport.width}x${viewport.height}`;
      it(`highlights the data centre section shown, and words the receiver fields (${language}, ${size})`, async () => {
        const [context, page] = await desktop(viewport, language);
        try {
          /** The highlighted tab (class and ink bar) and the section shown. */
          const shown = () =>
            page.evaluate(() => {
              const active = document.querySelector(".ant-tabs-tab-active");
              const key = active
                ?.querySelector("[data-testid^='dc-tab-']")
                ?.getAttribute("data-testid")
                ?.slice("dc-tab-".length);
              const ink = document.querySelector(".ant-tabs-ink-bar")?.getBoundingClientRect();
              const tab = active?.getBoundingClientRect();
              const inkOnTab =
                ink && tab
                  ? Math.abs(ink.left - tab.left) < 2 && Math.abs(ink.width - tab.width) < 2
                  : false;
              const section = document.querySelector('[data-testid="records"]')
                ? "records"
                : document.querySelector('[data-testid="contacts"]')
                  ? "contacts"
                  : "other";
              return { key, inkOnTab, section };
            });
          const expectShown = (key: string) =>
            expect
              .poll(shown, { timeout: 20_000 })
              .toEqual({ key, inkOnTab: true, section: key === "pushStats" ? "other" : key });

          // By address, then by clicks; back and forward walk the sections.
          await page.goto(platform.url("/dataCenter?tab=contacts"));
          await expectShown("contacts");
          await page.click(tid("dc-tab-records"));
          await expectShown("records");
          expect(new URL(page.url()).searchParams.get("tab")).toBe("records");
          await shot(page, `dataCenter-records-${language}-${size}`);
          await page.goBack();
          await expectShown("contacts");
          expect(new URL(page.url()).searchParams.get("tab")).toBe("contacts");
          await page.goForward();
          await expectShown("records");
          await page.click(tid("dc-tab-contacts"));
          await expectShown("contacts");
          await page.goto(platform.url("/dataCenter?tab=pushStats"));
          await expectShown("pushStats");
          await page.goBack();
          await expectShown("contacts");
          await shot(page, `dataCenter-contacts-${language}-${size}`);

          // The mail receiver and alarm phone forms ask for someone else's address / number.
          await page.click(tid("contact-add-email"));
          const email = page.locator(tid("contact-email"));
          await email.waitFor();
          expect(await email.getAttribute("placeholder")).toBe(
            language === "en" ? "Recipient's e-mail address" : "接收人的邮箱地址",
          );
          await shot(page, `mailReceiver-${language}-${size}`);
          await page.keyboard.press("Escape");
          await email.waitFor({ state: "detached" });
          await page.click(tid("contact-add-phone"));
          const phone = page.locator(tid("contact-phone"));
          await phone.waitFor();
          expect(await phone.getAttribute("placeholder")).toBe(
            language === "en" ? "Recipient's phone number" : "接收人的手机号码",
          );
          await page.keyboard.press("Escape");
        } finally {
          await context.close();
        }
      });
    }
  }
});

describe("the 4G plan name", { timeout: 180_000 }, () => {
  /** What a plan name may not contain in each language: the other language's words. */
  const FOREIGN: Record<Language, RegExp> = {
    en: /[\u3400-\u9fff]/,
    cn: /\b(?!(?:[KMGT]B)\b)[A-Za-z]{2,}\b/,
  };
  const EXPECTED: Record<Language, string> = { en: "1 GB monthly", cn: "1 GB 月包" };

  for (const language of LANGS) {
    it(`is in the UI language on the phone and the desktop (${language})`, async () => {
      const context = await platform.browser.newContext({ ...PHONE });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      try {
        await platform.logInPhone(page, DEMO_ACCOUNTS.user, language);
        await page.goto(platform.url(`/mobile/iotCard/${DEMO_ICCID}`));
        const plan = page.locator(`${tid("m-iot-card")} ${tid("iot-plan-name")}`);
        await plan.waitFor();
        const phoneText = (await plan.textContent()) ?? "";
        expect(phoneText).not.toMatch(FOREIGN[language]);
        expect(phoneText).toBe(EXPECTED[language]);
        await shot(page, `phone-iotCard-${language}-390x844`);
      } finally {
        await context.close();
      }

      // The desktop's card page names it the same.
      const [desk, deskPage] = await desktop(DESKTOPS[0], language);
      try {
        await deskPage.goto(platform.url(`/iotCard/${DEMO_ICCID}`));
        const plan = deskPage.locator(`${tid("iot-detail-page")} ${tid("iot-plan-name")}`);
        await plan.waitFor();
        expect(await plan.textContent()).toBe(EXPECTED[language]);
        await shot(deskPage, `iotCardDetail-${language}-1440x900`);
      } finally {
        await desk.close();
      }
    });
  }
});
