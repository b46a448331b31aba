import { deviceTopic } from "@keyway/protocol";
import { API, HW, type ProvisionedDevice, pathOf } from "@keyway/shared";
import mqtt from "mqtt";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerOf, startPlatform, tid, waitForFocus, waitToSee } from "./browser.ts";

/**
 * Issue 5 in a real browser: the owner adds a provisioned device; a second user adds the same
 * code, is told it is already added and asks to visit it; the owner's unread badge and
 * message centre follow by push (no reload), the owner approves with a visit time; the
 * visitor's outbox shows the result live; a login of the visitor elsewhere ends the first
 * session with the re-login prompt. Screenshots of the message centre, the authority centre
 * and the request dialog in both languages go to /tmp/kw-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let device: ProvisionedDevice;

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

/** POST /api/operator/v1/devices/provision as the seeded operator (its own terminal type). */
async function provisionThroughOperatorApi() {
  const form = (body: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  const login = await fetch(
    platform.url(pathOf(API.accounts.login)),
    form({
      loginName: "operator@keyway.local",
      loginPwd: "operator123",
      terminalType: "ops",
      terminalName: "e2e",
    }),
  ).then((r) => r.json());
  expect(login.hwcode).toBe(0);
  const token: string = login.hwdata.result.token;
  const res = await fetch(platform.url(pathOf(API.devices.provision)), {
    ...form({ count: "1", model: "MT8071iE" }),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cloudtoken: token,
    },
  }).then((r) => r.json());
  expect(res.hwcode).toBe(0);
  return res.hwdata.list[0] as ProvisionedDevice;
}

/**
 * Logged in, and each wait of this file's long workflows (240 s each) allowed 40 s: in full
 * runs on a loaded 2-core machine a step took over 20 s now here, now there.
 */
async function logIn(page: Page, person: { email: string; password: string }) {
  await platform.logIn(page, person, "en", 40_000);
}

async function newPage(): Promise<[BrowserContext, Page]> {
  const context = await platform.browser.newContext({ viewport: { width: 1440, height: 900 } });
  return [context, await context.newPage()];
}

/**
 * Someone else's device in the add dialog: its code alone is looked up as it is typed and the
 * dialog offers the requests (no password, no name).
 */
async function typeTakenCode(page: Page, which: ProvisionedDevice = device, standing = "taken") {
  await page.click(tid("device-add"));
  await waitForFocus(page, "device-add-code");
  await page.fill(tid("device-add-code"), which.machineCode);
  await page.locator(`${tid("device-add-taken")}[data-standing="${standing}"]`).waitFor();
}

async function addDevice(page: Page, name: string, which: ProvisionedDevice = device) {
  await page.click(tid("device-add"));
  await waitForFocus(page, "device-add-code");
  await page.fill(tid("device-add-code"), which.machineCode);
  await page.fill(tid("device-add-password"), which.devicePassword);
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
    await waitToSee(row);
    const machineId = await row.getAttribute("data-row-key");
    await owner.click(tid("nav-msgCenter"));
    await owner.waitForSelector(tid("msg-page"));
    await owner.locator(tid("msg-empty")).waitFor();
    expect(await owner.locator(tid("nav-unread")).count()).toBe(0);

    // The visitor types the same code: someone else's device → ask to visit with a message.
    const [visitorContext, visitor] = await newPage();
    await logIn(visitor, VISITOR);
    await visitor.goto(platform.url("/index?listType=list&language=en"));
    await typeTakenCode(visitor);
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
    // A white-list visitor now: still someone else's device, a bind can be asked for.
    await typeTakenCode(visitor);
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

  it("runs the authority centre, the password mode, the black list and the alarm pop-up", async () => {
    const people = {
      alice: { email: "alice@example.com", password: "alice123", name: "Alice" },
      bob: { email: "bob@example.com", password: "bob12345", name: "Bob" },
      carol: { email: "carol@example.com", password: "carol123", name: "Carol" },
      dave: { email: "dave@example.com", password: "dave1234", name: "Dave" },
    };
    for (const person of Object.values(people)) {
      await platform.app.services.accounts.createActivatedUser({
        account: { channel: "email", email: person.email },
        password: person.password,
        name: person.name,
      });
    }
    const press = await provisionThroughOperatorApi();

    // Alice owns the device and opens its authority centre.
    const [aliceContext, alice] = await newPage();
    await logIn(alice, people.alice);
    await alice.goto(platform.url("/index?listType=list&language=en"));
    await addDevice(alice, "Line 2 PLC", press);
    const row = alice.locator(tid(`device-row-${press.machineCode}`));
    await waitToSee(row);
    const machineId = await row.getAttribute("data-row-key");
    const openAuthority = async () => {
      await alice.click(tid(`device-detail-${machineId}`));
      await alice.click(tid("device-authority-open"));
      await alice.locator(tid("auth-members")).waitFor();
    };
    // Escape closes the drawer that has the focus.
    const closeAuthority = async () => {
      await alice.click(tid("auth-tab-members"));
      await alice.keyboard.press("Escape");
      await alice.locator(tid("auth-members")).waitFor({ state: "detached" });
      await alice.click(tid("device-detail-tab-info"));
      await alice.keyboard.press("Escape");
      await alice.locator(tid("device-detail-tab-info")).waitFor({ state: "detached" });
    };
    await openAuthority();

    // Add a Bkey: an unknown account is refused on the field, Bob is added.
    await alice.fill(tid("auth-bkey-account"), "nobody@example.com");
    await alice.click(tid("auth-bkey-submit"));
    await alice.locator(".ant-form-item-explain-error", { hasText: /not found/i }).waitFor();
    await alice.fill(tid("auth-bkey-account"), people.bob.email);
    await alice.click(tid("auth-bkey-submit"));
    const bobRow = alice.locator('[data-testid^="auth-member-"][data-role="bkey"]');
    await bobRow.waitFor();
    expect(await bobRow.textContent()).toContain("Bob");
    const bobId = (await bobRow.getAttribute("data-testid"))?.replace("auth-member-", "");
    // A Bkey always reads and writes; his alarms can be turned off and on.
    expect(await alice.locator(tid(`auth-write-${bobId}`)).isDisabled()).toBe(true);
    const alarm = alice.locator(tid(`auth-alarm-${bobId}`));
    expect(await alarm.getAttribute("aria-checked")).toBe("true");
    await alarm.click();
    await expect.poll(() => alarm.getAttribute("aria-checked")).toBe("false");
    await alarm.click();
    await expect.poll(() => alarm.getAttribute("aria-checked")).toBe("true");
    await closeAuthority();

    // Bob, a Bkey, sees the authority centre but not the Akey's settings.
    const [bobContext, bob] = await newPage();
    await logIn(bob, people.bob);
    await bob.goto(platform.url("/index?listType=list&language=en"));
    await bob.click(tid(`device-detail-${machineId}`));
    await bob.click(tid("device-authority-open"));
    await bob.click(tid("auth-tab-settings"));
    await bob.locator(tid("authority-no-permission")).waitFor();
    expect(await bob.textContent(tid("authority-no-permission"))).toContain(
      "User has no permission",
    );
    await settle(bob);
    await bob.screenshot({ path: "/tmp/kw-authority-bkey-denied-en.png" });
    await bobContext.close();

    // Dave asks to visit; Alice refuses and black-lists him from the message centre.
    const [daveContext, dave] = await newPage();
    await logIn(dave, people.dave);
    await dave.goto(platform.url("/index?listType=list&language=en"));
    const askVisit = async (page: Page, message: string) => {
      await typeTakenCode(page, press);
      await page.click(tid("device-add-request-visit"));
      await page.fill(tid("request-message"), message);
    };
    await askVisit(dave, "Need access");
    await dave.click(tid("request-submit"));
    await waitToSee(dave.locator(`${tid("request-result")}[data-outcome="sent"]`));
    await dave.click(tid("request-close"));

    await alice.click(tid("nav-msgCenter"));
    const daveRequest = alice
      .locator(`${tid("msg-list-inbox")} [data-testid^="msg-row-"]`, { hasText: "Dave" })
      .first();
    await daveRequest.click();
    await alice.click(tid("reply-blacklist"));
    await alice.click(tid("reply-blacklist-confirm"));
    await alice
      .locator(`${tid("msg-detail-request")} ${tid("audit-state")}[data-state="3"]`)
      .waitFor();
    await alice.keyboard.press("Escape");

    // Typing the code again: the add dialog says at once he is on the black list, no request.
    await typeTakenCode(dave, press, "blacklisted");
    expect(await dave.textContent(tid("device-add-taken"))).toContain("black list");
    expect(await dave.locator(tid("device-add-request-visit")).count()).toBe(0);
    await settle(dave);
    await dave.screenshot({ path: "/tmp/kw-request-blacklisted-en.png" });
    await daveContext.close();

    // Alice takes Dave off the black list.
    await alice.click(tid("nav-index"));
    await openAuthority();
    await alice.click(tid("auth-tab-black"));
    await alice.locator('[data-testid^="auth-black-row-"]', { hasText: "Dave" }).waitFor();
    await alice.click('[data-testid^="auth-unblock-"]');
    await alice.click(tid("auth-unblock-confirm"));
    await alice.locator('[data-testid^="auth-black-row-"]').first().waitFor({ state: "detached" });

    // Akey + password mode: a wrong password is refused on the field, the right one switches.
    await alice.click(tid("auth-tab-settings"));
    await alice.click(tid("auth-check-type-1"));
    await alice.fill(tid("auth-mode-password"), "not-the-password");
    expect(await answerOf(alice, "auth-mode-submit", API.access.updateDeviceInfo)).toBe(
      HW.DEVICE_PASSWORD_ERROR.code,
    );
    await alice.locator(".ant-modal .ant-form-item-explain-error").waitFor();
    await alice.fill(tid("auth-mode-password"), press.devicePassword);
    await alice.click(tid("auth-mode-submit"));
    await expect
      .poll(() => alice.textContent(tid("auth-settings")))
      .toContain("gets access at once");
    await closeAuthority();

    // Carol visits with the device password: wrong first, then granted at once.
    const [carolContext, carol] = await newPage();
    await logIn(carol, people.carol);
    await carol.goto(platform.url("/index?listType=list&language=en"));
    await askVisit(carol, "Hi");
    await carol.locator(tid("request-password")).waitFor();
    await carol.fill(tid("request-password"), "wrong-one");
    expect(await answerOf(carol, "request-submit", API.access.requestVisit)).toBe(
      HW.VISIT_PASSWORD_ERROR.code,
    );
    await carol.locator(".ant-modal .ant-form-item-explain-error").waitFor();
    await settle(carol);
    await carol.screenshot({ path: "/tmp/kw-request-password-en.png" });
    await carol.fill(tid("request-password"), press.devicePassword);
    await carol.click(tid("request-submit"));
    await carol.locator(`${tid("request-result")}[data-outcome="granted"]`).waitFor();
    await carol.click(tid("request-close"));
    await carolContext.close();

    // Carol's grant: a custom time of 30 minutes, then cleared.
    await openAuthority();
    await alice.click(tid("auth-tab-valid"));
    const carolGrant = alice.locator('[data-testid^="auth-valid-row-"]', { hasText: "Carol" });
    await carolGrant.waitFor();
    const grantId = (await carolGrant.getAttribute("data-testid"))?.replace("auth-valid-row-", "");
    await alice.click(tid(`auth-visit-set-${grantId}`));
    await alice.fill(tid("auth-visit-time-amount"), "5");
    await alice.click(tid("auth-visit-time-unit"));
    await alice.click(tid("auth-visit-time-unit-minute"));
    // The form holds what was typed before it is sent: if the refusal does not come, the
    // failure says which of the two did not take (once, under a full check's load, it did not).
    await expect.poll(() => alice.inputValue(tid("auth-visit-time-amount"))).toBe("5");
    await expect.poll(() => alice.textContent(tid("auth-visit-time-unit"))).toContain("Minutes");
    await alice.click(tid("auth-visit-submit"));
    // Below 10 minutes: the shared rule refuses it.
    await alice.locator(".ant-modal .ant-form-item-explain-error", { hasText: "10" }).waitFor();
    await alice.fill(tid("auth-visit-time-amount"), "30");
    await alice.click(tid("auth-visit-submit"));
    await expect.poll(() => carolGrant.textContent()).toMatch(/30 min|29 min/);
    await alice.click(tid(`auth-visit-clear-${grantId}`));
    await alice.click(tid("auth-visit-clear-confirm"));
    await carolGrant.waitFor({ state: "detached" });
    await alice.click(tid("auth-tab-white"));
    await alice.locator('[data-testid^="auth-white-row-"]', { hasText: "Carol" }).waitFor();
    await settle(alice);
    await alice.screenshot({ path: "/tmp/kw-authority-white-en.png" });
    await closeAuthority();

    // The device raises an alarm: Alice gets the pop-up and goes to the device's alarms.
    await alice.click(tid("nav-msgCenter"));
    await alice.waitForSelector(tid("msg-page"));
    const port = await platform.app.services.gateway.listenTcp(0, "127.0.0.1");
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      username: press.machineCode,
      password: press.deviceSecret,
      clientId: `${press.machineCode}-e2e`,
      reconnectPeriod: 0,
    });
    await client.publishAsync(
      deviceTopic(press.machineCode, "alarm"),
      JSON.stringify({
        id: "e2e-1",
        type: "HMI",
        variable: "TEMP_1",
        level: 3,
        content: "Oven temperature high",
        time: Date.now(),
        timeZone: "UTC",
      }),
      { qos: 1 },
    );
    await alice.locator(tid("alarm-popup")).waitFor();
    await settle(alice);
    await alice.screenshot({ path: "/tmp/kw-alarm-popup-en.png" });
    await alice.click(tid("alarm-popup-view"));
    await alice.waitForURL(/\/index/);
    await alice.locator('[data-testid^="device-alarm-row-"]').first().waitFor();
    expect(await alice.textContent(tid("device-alarm-table"))).toContain("Oven temperature high");
    await alice.click(tid("device-alarm-confirm-all"));
    await alice.click(tid("device-alarm-confirm-all-ok"));
    await alice.locator(".ant-message", { hasText: "All alarms confirmed" }).waitFor();
    await settle(alice);
    await alice.screenshot({ path: "/tmp/kw-alarms-confirmed-en.png" });
    await aliceContext.close();

    // Left alone, the pop-up opens the alarms by itself after ALARM_POPUP_JUMP_MINUTES.
    const [laterContext, later] = await newPage();
    await later.clock.install();
    await logIn(later, people.alice);
    await later.goto(platform.url("/msgCenter?language=en"));
    await later.waitForSelector(tid("msg-page"));
    await client.publishAsync(
      deviceTopic(press.machineCode, "alarm"),
      JSON.stringify({
        id: "e2e-2",
        type: "HMI",
        variable: "PRESSURE",
        level: 2,
        content: "Pressure low",
        time: Date.now(),
        timeZone: "UTC",
      }),
      { qos: 1 },
    );
    await later.locator(tid("alarm-popup")).waitFor();
    expect(later.url()).toContain("/msgCenter");
    await later.clock.fastForward("03:01");
    await later.waitForURL(/\/index/);
    await expect.poll(() => later.textContent(tid("device-alarm-table"))).toContain("Pressure low");
    await client.endAsync();

    // Alice hands the device to Bob; she stays as a Bkey without the Akey's settings.
    await later.click(tid("device-authority-open"));
    await later.click(tid("auth-tab-settings"));
    await later.fill(tid("auth-transfer-account"), people.bob.email);
    await later.click(tid("auth-transfer-submit"));
    // The server's answer first: a failure here says whether the hand-over was refused or
    // never sent (this step timed out once in a full check, and passed alone).
    expect(await answerOf(later, "auth-transfer-confirm", API.access.transfer)).toBe(0);
    await waitToSee(later.locator(tid("authority-no-permission")));
    await later.click(tid("auth-tab-members"));
    await expect
      .poll(() => later.locator('[data-testid^="auth-member-"][data-role="akey"]').textContent())
      .toContain("Bob");
    await laterContext.close();
  }, 240_000);
});
