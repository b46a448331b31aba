import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { startReportReceiver } from "../../apps/server/src/testing/reportReceiver.ts";
import { type SimulatedAgent, startSimulatedAgent } from "./agent.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * Issue 8's project pages in a real browser: in an enterprise with projects enabled, the
 * owner creates a maintenance project (its key shown once), adds a user and the enterprise's device,
 * turns reporting on towards a local HTTP receiver that checks the signature with the key
 * copied from the page, sees the simulated device's points arrive there and the delivery tab
 * follow; the added
 * user (level 2) sees no owner actions and leaves. Screenshots go to /tmp/kw-projects-*.png.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let demo: DemoDevice;
let dataDir: string;
let eid = 0;
let receiver: Awaited<ReturnType<typeof startReportReceiver>>;
let receiverUrl = "";
let projectKey = "";
let agent: SimulatedAgent;

const COLLEAGUE = { email: "line-lead@example.com", password: "linelead1", name: "Line Lead" };

beforeAll(async () => {
  platform = await startPlatform();
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-projects-"));
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  const { accounts, enterprises } = platform.app.services;
  await accounts.createActivatedUser({
    account: { channel: "email", email: COLLEAGUE.email },
    password: COLLEAGUE.password,
    name: COLLEAGUE.name,
  });
  const ops = await accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.operator.email });
  const operator = { userId: ops?.id ?? 0, role: "operator" as const };
  eid = (await enterprises.create(operator, { name: "Acme Plastics", enableProject: 1 })).eid;
  for (const email of [DEMO_ACCOUNTS.user.email, COLLEAGUE.email]) {
    await enterprises.addMember(operator, {
      eid,
      account: { channel: "email", email },
      kind: "maintenance",
      isAdmin: false,
    });
  }
  await enterprises.assignDevice(operator, { eid, code: demo.machineCode, type: 2 });
  // The customer's own server: checks each batch's signature with the key the owner copies
  // from the page, and keeps the points.
  receiver = await startReportReceiver({ key: () => projectKey });
  receiverUrl = receiver.url;
  // The device itself, reporting its tags every second.
  agent = await startSimulatedAgent({
    server: `ws://127.0.0.1:${platform.port}/mqtt`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
    dataEvery: 1,
  });
});
afterAll(async () => {
  await agent?.stop();
  await receiver?.close();
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const settle = (page: Page) => page.waitForTimeout(600);

const logIn = (page: Page, email: string, password: string) =>
  platform.logIn(page, { email, password });

async function toProjects(page: Page) {
  await page.click(tid("context-switch"));
  await page.click(tid(`context-option-${eid}`));
  await page.click(tid("nav-project-2"));
  await page.waitForSelector(tid("project-page-2"));
}

describe("projects in the browser", () => {
  it("creates a project, adds a user and a device, reports; a user sees no owner actions and leaves", async () => {
    const context = await platform.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    try {
      await logIn(page, DEMO_ACCOUNTS.user.email, DEMO_ACCOUNTS.user.password);
      // No enterprise chosen yet: the user's only enterprise is selected without asking.
      await page.goto(platform.url("/project?type=2&language=en"));
      await page.locator(tid("project-page-2")).waitFor();
      expect(await page.textContent(tid("context-switch"))).toContain("Acme Plastics");
      await toProjects(page);
      await page.locator(tid("project-empty")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-empty-en.png" });

      // New project: the shared rules refuse a bad server first.
      await page.click(tid("project-create"));
      await page.fill(tid("project-create-name"), "Line 3 packaging");
      await page.fill(tid("project-create-description"), "Bottling line");
      await page.fill(tid("project-create-server"), "ftp://files.example.com");
      await page.click(tid("project-create-submit"));
      await page.locator(".ant-form-item-explain-error", { hasText: "mqtt://" }).waitFor();
      // Plain HTTP only on this machine: a remote http:// address is refused too.
      await page.fill(tid("project-create-server"), "http://mes.example.com/ingest");
      await page.click(tid("project-create-submit"));
      await page
        .locator(".ant-form-item-explain-error", { hasText: "mqtts:// or https://" })
        .waitFor();
      // The local receiver (loopback) may speak plain HTTP.
      await page.fill(tid("project-create-server"), receiverUrl);
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-create-en.png" });
      await page.click(tid("project-create-submit"));

      // The key, once.
      const key = page.locator(tid("project-key-value"));
      await key.waitFor();
      projectKey = (await key.textContent())?.trim() ?? "";
      expect(projectKey).toMatch(/^[\w-]{32}$/);
      expect(await page.textContent(tid("project-key-modal"))).toContain(
        "this key will not be shown again",
      );
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-key-en.png" });
      await page.click(tid("project-key-done"));
      const row = page.locator('[data-testid^="project-row-"]', { hasText: "Line 3 packaging" });
      await row.waitFor();
      expect(await row.textContent()).toContain("Owner");
      await row.click();
      await page.locator(tid("project-drawer")).waitFor();

      // Users: the colleague by e-mail; a second time the server's 08011007 on the field.
      await page.fill(tid("project-user-account"), COLLEAGUE.email);
      await page.click(tid("project-user-submit"));
      const colleagueRow = page.locator('[data-testid^="project-user-"][data-level="2"]');
      await colleagueRow.waitFor();
      expect(await colleagueRow.textContent()).toContain(COLLEAGUE.name);
      await page.fill(tid("project-user-account"), COLLEAGUE.email);
      await page.click(tid("project-user-submit"));
      await page
        .locator(".ant-form-item-explain-error", { hasText: "User already in project" })
        .waitFor();
      await page.fill(tid("project-user-account"), "nobody@example.com");
      await page.click(tid("project-user-submit"));
      await page
        .locator(".ant-form-item-explain-error", { hasText: "User does not exist" })
        .waitFor();
      await expect.poll(() => page.textContent(tid("project-user-length"))).toBe("2");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-users-en.png" });

      // Machines: the enterprise's device; +1 machine, +100,000 data count.
      await page.click(tid("project-tab-machines"));
      await page.click(tid("project-machine-add"));
      await page.click(tid("project-machine-select"));
      await page.locator(".ant-select-item-option", { hasText: demo.machineCode }).click();
      // The pick shows in the field (the list drops away as it closes) before the submit.
      const addModal = page.locator(".ant-modal", {
        has: page.locator(tid("project-machine-select")),
      });
      await expect.poll(() => addModal.textContent()).toContain(demo.machineCode);
      await page.click(tid("project-machine-submit"));
      await page.locator(tid(`project-machine-${demo.machineCode}`)).waitFor();
      await expect.poll(() => page.textContent(tid("project-machine-length"))).toBe("1");
      expect(await page.textContent(tid("project-report-count"))).toBe((100000).toLocaleString());
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-machines-en.png" });

      // Report settings: reporting on.
      await page.click(tid("project-tab-settings"));
      expect(await page.inputValue(tid("project-settings-server"))).toBe(receiverUrl);
      await page.click(tid("project-settings-report"));
      await page.click(tid("project-settings-submit"));
      await page.locator(".ant-message", { hasText: "Report settings saved" }).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-settings-en.png" });

      // Delivery: the device's tags reach the receiver, signed; the tab follows by itself.
      await page.click(tid("project-tab-delivery"));
      await page.locator(tid("project-delivery")).waitFor();
      expect(await page.textContent(tid("project-delivery-server"))).toBe(receiverUrl);
      await expect.poll(() => receiver.points.length, { timeout: 20_000 }).toBeGreaterThan(2);
      expect(receiver.state.refused).toBe(0);
      const first = receiver.points[0];
      expect(first.machineCode).toBe(demo.machineCode);
      expect(Object.keys(first.values).sort()).toEqual([
        "Line.Temperature",
        "Pump1.Speed",
        "Tank1.Level",
      ]);
      const seqs = receiver.points.map((p) => p.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      await expect
        .poll(
          async () => Number(await page.getAttribute(tid("project-delivery"), "data-delivered")),
          {
            timeout: 15_000,
          },
        )
        .toBeGreaterThan(2);
      expect(await page.textContent(tid("project-delivery-last-success"))).not.toBe("Never");
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-delivery-en.png" });

      // In Chinese (the drawer covers the header's language switch).
      await page.locator(".ant-drawer-close").click();
      await page.click(tid("lang-cn"));
      await expect.poll(() => page.textContent(tid("project-page-2"))).toContain("运维项目");
      await row.click();
      await page.click(tid("project-tab-machines"));
      await page.locator(tid(`project-machine-${demo.machineCode}`)).waitFor();
      await page.waitForTimeout(1200);
      await page.screenshot({ path: "/tmp/kw-projects-machines-cn.png" });
      await page.click(tid("project-tab-delivery"));
      await page.locator(tid("project-delivery")).waitFor();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-delivery-cn.png" });
      await page.locator(".ant-drawer-close").click();
      await settle(page);
      await page.screenshot({ path: "/tmp/kw-projects-list-cn.png" });

      // The colleague (level 2): no owner actions, read-only settings; leaves.
      const other = await context
        .browser()
        ?.newContext({ viewport: { width: 1440, height: 1000 } });
      if (!other) throw new Error("no browser");
      const lead = await other.newPage();
      await logIn(lead, COLLEAGUE.email, COLLEAGUE.password);
      await toProjects(lead);
      const leadRow = lead.locator('[data-testid^="project-row-"]', {
        hasText: "Line 3 packaging",
      });
      await leadRow.waitFor();
      expect(await leadRow.textContent()).toContain("User");
      await leadRow.click();
      await lead.locator('[data-testid^="project-user-"][data-level="3"]').waitFor();
      expect(await lead.locator(tid("project-user-form")).count()).toBe(0);
      expect(await lead.locator('[data-testid^="project-transfer-"]').count()).toBe(0);
      expect(await lead.locator(tid("project-delete")).count()).toBe(0);
      await lead.click(tid("project-tab-machines"));
      await lead.locator(tid(`project-machine-${demo.machineCode}`)).waitFor();
      expect(await lead.locator(tid("project-machine-add")).count()).toBe(0);
      expect(await lead.locator('[data-testid^="project-machine-remove-"]').count()).toBe(0);
      await lead.click(tid("project-tab-settings"));
      expect(await lead.isDisabled(tid("project-settings-server"))).toBe(true);
      expect(await lead.locator(tid("project-settings-submit")).count()).toBe(0);
      expect(await lead.locator(tid("project-key-reset")).count()).toBe(0);
      await settle(lead);
      await lead.screenshot({ path: "/tmp/kw-projects-user-en.png" });
      await lead.click(tid("project-leave"));
      await lead.click(tid("project-leave-confirm"));
      await lead.locator(".ant-message", { hasText: "You left the project" }).waitFor();
      await leadRow.waitFor({ state: "detached" });
      await lead.locator(tid("project-empty")).waitFor();
      await other.close();

      // The owner sees one user left.
      await page.reload();
      await row.click();
      await expect.poll(() => page.textContent(tid("project-user-length"))).toBe("1");
    } finally {
      await context.close();
    }
  }, 180_000);
});
