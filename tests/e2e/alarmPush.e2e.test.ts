import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../apps/server/src/seed.ts";
import { startPlatform, tid, waitToSee } from "./browser.ts";

/**
 * Issue 7 in a real browser: the data center's SMS / e-mail push pages. A user changes the
 * personal push settings and finds them after a reload; adds a mail receiver (after the form
 * refused a bad address) and deletes it; the operator sells SMS to an enterprise, whose
 * administrator allocates some to a member and sees the allocation in the records.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let eid = 0;

const ADMIN = { email: "ops-lead@example.com", password: "opslead1", name: "Ops Lead" };
const MEMBER = { email: "technician@example.com", password: "technic1", name: "Technician" };

beforeAll(async () => {
  platform = await startPlatform();
  const { accounts, enterprises } = platform.app.services;
  for (const who of [ADMIN, MEMBER]) {
    await accounts.createActivatedUser({
      account: { channel: "email", email: who.email },
      password: who.password,
      name: who.name,
    });
  }
  const operator = await accounts.findUser({
    channel: "email",
    email: DEMO_ACCOUNTS.operator.email,
  });
  const viewer = { userId: operator!.id, role: "operator" as const };
  const created = await enterprises.create(viewer, { name: "Acme Plastics", enableProject: 0 });
  eid = created.eid;
  for (const [who, isAdmin] of [
    [ADMIN, true],
    [MEMBER, false],
  ] as const) {
    await enterprises.addMember(viewer, {
      eid,
      account: { channel: "email", email: who.email },
      kind: "member",
      isAdmin,
    });
  }
});
afterAll(() => platform?.close());

const logIn = (page: Page, email: string, password: string) =>
  platform.logIn(page, { email, password });

describe("SMS / e-mail alarm pushes in the browser", () => {
  it("keeps the personal push settings across a reload", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logIn(page, MEMBER.email, MEMBER.password);
    await page.click(tid("nav-dataCenter"));
    await page.waitForSelector(tid("push-config-user"));

    const sms = page.locator(tid("push-sms-switch"));
    const email = page.locator(tid("push-email-switch"));
    const smsBefore = await sms.getAttribute("aria-checked");
    const emailBefore = await email.getAttribute("aria-checked");
    await sms.click();
    await waitToSee(page.locator(".ant-message", { hasText: "Settings saved" }));
    await email.click();
    await expect
      .poll(() => email.getAttribute("aria-checked"))
      .toBe(emailBefore === "true" ? "false" : "true");

    await page.fill(tid("push-user-cap"), "7");
    await page.fill(tid("push-machine-cap"), "3");
    const saved = page.waitForResponse((r) => r.url().includes("/setUserMsgConfig"));
    await page.click(tid("push-caps-save"));
    await saved;

    await page.reload();
    await page.waitForSelector(tid("push-config-user"));
    await expect
      .poll(() => page.locator(tid("push-sms-switch")).getAttribute("aria-checked"))
      .toBe(smsBefore === "true" ? "false" : "true");
    await expect
      .poll(() => page.locator(tid("push-email-switch")).getAttribute("aria-checked"))
      .toBe(emailBefore === "true" ? "false" : "true");
    await expect.poll(() => page.inputValue(tid("push-user-cap"))).toBe("7");
    await expect.poll(() => page.inputValue(tid("push-machine-cap"))).toBe("3");

    // A cap the shared rules refuse is not saved.
    await page.fill(tid("push-user-cap"), "");
    await page.click(tid("push-caps-save"));
    await page.locator(".ant-form-item-explain-error").first().waitFor();
    await page.reload();
    await expect.poll(() => page.inputValue(tid("push-user-cap"))).toBe("7");
    await context.close();
  });

  it("adds a mail receiver after the form refused a bad address, then deletes it", async () => {
    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logIn(page, MEMBER.email, MEMBER.password);
    await page.goto(platform.url("/dataCenter?tab=contacts&language=en"));
    await page.waitForSelector(tid("contacts-mails"));
    await expect.poll(() => page.textContent(tid("contacts-mails"))).toContain("No mail receivers");

    await page.click(tid("contact-add-email"));
    await page.fill(tid("contact-name"), "Night shift");
    await page.fill(tid("contact-email"), "night-shift.example.com");
    await page.click(tid("contact-submit"));
    await expect
      .poll(() => page.textContent(".ant-modal-container"))
      .toContain("Wrong e-mail format");
    // SPEC §5: at most 30 characters.
    await page.fill(tid("contact-email"), "night-shift-supervisors@example.com");
    await page.click(tid("contact-submit"));
    await expect.poll(() => page.textContent(".ant-modal-container")).toContain("1-30 characters");

    await page.fill(tid("contact-email"), "night@example.com");
    await page.click(tid("contact-submit"));
    const row = page.locator(tid("contact-row-email"), { hasText: "night@example.com" });
    await row.waitFor();
    expect(await row.textContent()).toContain("Night shift");
    await page.reload();
    await row.waitFor();

    await row.locator('[data-testid^="contact-delete-"]').click();
    await page.click(tid("contact-delete-confirm"));
    await expect.poll(() => row.count()).toBe(0);
    await expect.poll(() => page.textContent(tid("contacts-mails"))).toContain("No mail receivers");
    await context.close();
  });

  it("the operator sells SMS, the enterprise admin allocates some to a member and sees the record", async () => {
    // The operator records a sale of 100 SMS to the enterprise in the back office.
    const opsContext = await platform.browser.newContext();
    const ops = await opsContext.newPage();
    await logIn(ops, DEMO_ACCOUNTS.operator.email, DEMO_ACCOUNTS.operator.password);
    await ops.goto(platform.url("/backManage?tab=enterprises&language=en"));
    await ops.click(tid(`bo-enterprise-row-${eid}`));
    await ops.click(tid("bo-enterprise-tab-sms"));
    await ops.fill(tid("bo-sale-amount"), "100");
    await ops.fill(tid("bo-sale-remark"), "Order 2024-117");
    await ops.click(tid("bo-sale-submit"));
    await ops.locator(tid("bo-sale-row"), { hasText: "Order 2024-117" }).waitFor();
    await opsContext.close();

    const context = await platform.browser.newContext();
    const page = await context.newPage();
    await logIn(page, ADMIN.email, ADMIN.password);
    await page.click(tid("context-switch"));
    await page.click(tid(`context-option-${eid}`));
    await page.click(tid("nav-dataCenter"));
    await page.click(tid("dc-tab-stock"));
    await expect.poll(() => page.textContent(tid("stock-pool"))).toContain("100");

    // More than the pool is refused by the form.
    const memberRow = page.locator(`${tid("stock-admin")} tr`, { hasText: MEMBER.name });
    const memberId = (await memberRow.getAttribute("data-row-key")) ?? "";
    await page.click(tid(`stock-allocate-${memberId}`));
    await page.fill(tid("allocate-amount"), "150");
    await page.click(tid("allocate-submit"));
    await expect
      .poll(() => page.textContent(".ant-modal-container"))
      .toContain("Not more than the pool's 100");
    await page.fill(tid("allocate-amount"), "30");
    await page.click(tid("allocate-submit"));
    await waitToSee(page.locator(".ant-message", { hasText: "30 SMS allocated" }));
    await expect.poll(() => page.textContent(tid("stock-pool"))).toContain("70");
    await expect.poll(() => memberRow.textContent()).toContain("30");

    // A transfer between members is confirmed before it happens.
    await page.click(tid(`stock-transfer-${memberId}`));
    await page.click(tid("transfer-to"));
    await page
      .locator(".ant-select-dropdown:visible .ant-select-item-option", { hasText: ADMIN.name })
      .click();
    await page.fill(tid("transfer-amount"), "10");
    await page.click(tid("transfer-submit"));
    await page.click(tid("transfer-confirm"));
    await waitToSee(page.locator(".ant-message", { hasText: "SMS transferred" }));
    const adminRow = page.locator(`${tid("stock-admin")} tr`, { hasText: ADMIN.name });
    await expect.poll(() => memberRow.textContent()).toContain("20");
    await expect.poll(() => adminRow.textContent()).toContain("10");

    await page.click(tid("dc-tab-records"));
    await page.click(tid("records-kind-allocation"));
    // Newest first: the transfer, then the allocation from the pool.
    const rows = page.locator(tid("record-row-allocation"));
    await expect.poll(() => rows.count()).toBe(2);
    const [transfer, allocation] = await rows.allTextContents();
    expect(allocation).toContain("Allocation");
    expect(allocation).toContain("Enterprise pool");
    expect(allocation).toContain(MEMBER.name);
    expect(allocation).toContain("30");
    expect(transfer).toContain("Transfer");
    expect(transfer).toContain(ADMIN.name);
    expect(transfer).toContain("10");
    await page.click(tid("records-kind-sales"));
    await page.locator(tid("record-row-sales"), { hasText: "Order 2024-117" }).waitFor();
    await context.close();
  });
});
