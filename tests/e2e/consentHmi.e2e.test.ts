import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HW } from "@keyway/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  kill9,
  spawnSimulatedDevice,
  until,
} from "../../apps/agent/src/testing.ts";
import { seedDemo } from "../../apps/server/src/seed.ts";
import { createHarness, type Harness } from "../../apps/server/src/testing/harness.ts";
import { freePort, launchChromium, tid } from "./browser.ts";

/**
 * On-site consent at the machine, in Chromium: the simulated HMI's own page (opened on the
 * device, http://127.0.0.1:<hmi port>/) shows the visitor's request with their name, what
 * they want and a countdown; its Accept button lets the visit in (the held visit URL call
 * answers), its Refuse button refuses one, and "Remote session by … — End" ends a running
 * visit. Screenshots go to /tmp/kw-consent-hmi-*.png. Keyway's own screens (the visitor's
 * "waiting for on-site approval") are tested by the web's consent tests.
 */

let h: Harness;
let agent: AgentProcess;
let browser: Browser;
let dataDir: string;
let owner: { token: string };
let machineID: number;

const visitUrl = () =>
  h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID, terminalID: "t" },
    token: owner.token,
    lang: "en",
  });

async function hmiPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  await page.goto(`http://127.0.0.1:${agent.httpPort}/`);
  await page.locator(tid("hmi-state")).filter({ hasText: "online" }).waitFor();
  return page;
}

beforeAll(async () => {
  const port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const [device] = await h.provision(operator, 1);
  owner = { token: await h.signUp("wang@example.com", "secret123", "王工程师") };
  machineID = (await h.addDevice(owner.token, device, "Press line")).id;
  const on = await h.call("POST", "/api/device/v1/remoteSettings", {
    json: { deviceId: machineID, onsite_consent: true },
    token: owner.token,
  });
  expect(on.body.hwcode).toBe(0);
  dataDir = mkdtempSync(path.join(tmpdir(), "kw-e2e-consent-"));
  agent = await spawnSimulatedDevice({
    server: `ws://127.0.0.1:${port}/mqtt`,
    device,
    dataDir,
    extra: ["--location-every", "0"],
  });
  await until(() => Boolean(h.app.services.tunnels.hello(machineID)), { timeoutMs: 60_000 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (agent) await kill9(agent);
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the simulated HMI's consent prompt", { timeout: 90_000 }, () => {
  it("Accept lets the visit in; End in the running session ends it", async () => {
    const page = await hmiPage();
    const asked = visitUrl();
    const prompt = page.locator(tid("consent-ask"));
    await prompt.waitFor();
    await expect.poll(() => prompt.locator(tid("consent-visitor")).textContent()).toBe("王工程师");
    expect(await prompt.locator(tid("consent-kind")).textContent()).toBe("the web page");
    expect(await prompt.locator(tid("consent-view-only")).getAttribute("data-view-only")).toBe("0");
    await expect
      .poll(() => prompt.locator(tid("consent-countdown")).textContent())
      .toMatch(/^\d+ s$/);
    await page.screenshot({ path: "/tmp/kw-consent-hmi-ask.png" });
    await prompt.locator(tid("consent-accept")).click();
    const issued = await asked;
    expect(issued.body.hwdata).toMatchObject({ consent: "accepted" });
    await prompt.waitFor({ state: "detached" });
    const running = page.locator(tid("consent-running"));
    await running.waitFor();
    expect(await running.textContent()).toContain("Remote session by 王工程师");
    await page.screenshot({ path: "/tmp/kw-consent-hmi-running.png" });
    await running.locator(tid("consent-end")).click();
    await running.waitFor({ state: "detached" });
    const log = await h.call("GET", `/api/device/v1/visits?deviceId=${machineID}`, {
      token: owner.token,
    });
    expect(log.body.hwdata.list[0]).toMatchObject({
      visit_id: issued.body.hwdata.visit_id,
      end_reason: "ended_on_site",
    });
    await page.close();
  });

  it("Refuse refuses the visit", async () => {
    const page = await hmiPage();
    const asked = visitUrl();
    await page.locator(tid("consent-refuse")).click();
    const refused = await asked;
    expect(refused.body).toMatchObject({
      hwcode: HW.CONSENT_REFUSED.code,
      msg: HW.CONSENT_REFUSED.en,
    });
    await page.locator(tid("consent-panel")).waitFor({ state: "hidden" });
    await page.close();
  });
});
