import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { type SimulatedAgent, startSimulatedAgent } from "./agent.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * Issue 4 in a real browser with a real agent: the demo device (keyway-agent --simulate)
 * shows online; an alarm raised on the simulated HMI's own page appears in the device's
 * alarm tab.
 */
let platform: Awaited<ReturnType<typeof startPlatform>>;
let agent: SimulatedAgent;
let demo: DemoDevice;

beforeAll(async () => {
  platform = await startPlatform();
  const mqttPort = await platform.app.services.gateway.listenTcp(0, "127.0.0.1");
  const dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-gw-"));
  demo = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  agent = await startSimulatedAgent({
    server: `mqtt://127.0.0.1:${mqttPort}`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
  });
});
afterAll(async () => {
  await agent?.stop();
  await platform?.close();
});

const logIn = (page: Page) => platform.logIn(page);

describe("a live device in the browser", () => {
  it("shows the demo device online and its HMI's alarm in the alarm tab", async () => {
    const page = await (await platform.browser.newContext()).newPage();
    await logIn(page);
    await page.goto(platform.url("/index?listType=list&language=en"));
    const row = page.locator(tid(`device-row-${demo.machineCode}`));
    await row.waitFor();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Online");

    // Raise an alarm on the simulated HMI's own web page.
    const hmi = await (await platform.browser.newContext()).newPage();
    await hmi.goto(`http://127.0.0.1:${agent.hmiPort}/`);
    await expect
      .poll(() => hmi.textContent(tid("hmi-state")), { timeout: 10_000 })
      .toMatch(/online/i);
    await hmi.fill(tid("hmi-alarm-text"), "Door 3 open");
    await hmi.click(tid("hmi-raise"));

    const id = await row.getAttribute("data-row-key");
    await page.click(tid(`device-detail-${id}`));
    await page.click(tid("device-detail-tab-alarms"));
    const table = page.locator(tid("device-alarm-table"));
    await expect
      .poll(
        async () => {
          const text = await table.textContent();
          if (!text?.includes("Door 3 open")) {
            // Re-open the tab to fetch again, as a user would.
            await page.click(tid("device-detail-tab-alarms"));
          }
          return text;
        },
        { timeout: 20_000 },
      )
      .toContain("Door 3 open");
  });
});
