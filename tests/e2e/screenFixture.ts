import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { systemClock } from "../../apps/server/src/infra/clock.ts";
import { DEMO_ACCOUNTS, type DemoDevice, seedDemoDevice } from "../../apps/server/src/seed.ts";
import { until as untilHolds } from "../../apps/server/src/testing/until.ts";
import { startVnc, type VncOptions } from "../../apps/server/src/testing/vnc.ts";
import { startSimulatedAgent } from "./agent.ts";
import { startPlatform, tid } from "./browser.ts";

/**
 * The screen tests' set-up (issue 20): the real platform with the demo device, a real Xvnc
 * running the known-colour X program (apps/server/src/testing/vnc.ts), and a real
 * `keyway-agent run --simulate --vnc` process offering that screen through its tunnel. With
 * `maintained`, the device is also maintained by "Acme Plastics" whose maintenance team
 * holds the demo user (as tests/e2e/agent.ts startMaintainedDemo).
 */
export async function startScreenDemo(
  label: string,
  vncOptions: VncOptions = {},
  options: { maintained?: boolean } = {},
) {
  const platform = await startPlatform();
  const dataDir = mkdtempSync(path.join(tmpdir(), `kw-e2e-${label}-`));
  const demo: DemoDevice = await seedDemoDevice({
    db: platform.db,
    clock: systemClock,
    accounts: platform.app.services.accounts,
    devices: platform.app.services.devices,
    dataDir,
  });
  let eid = 0;
  if (options.maintained) {
    const { accounts, enterprises } = platform.app.services;
    const ops = await accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.operator.email });
    const operator = { userId: ops?.id ?? 0, role: "operator" as const };
    eid = (await enterprises.create(operator, { name: "Acme Plastics", enableProject: 0 })).eid;
    await enterprises.addMember(operator, {
      eid,
      account: { channel: "email", email: DEMO_ACCOUNTS.user.email },
      kind: "maintenance",
      isAdmin: false,
    });
    await enterprises.assignDevice(operator, { eid, code: demo.machineCode, type: 2 });
  }
  const vnc = await startVnc({ width: 800, height: 600, ...vncOptions });
  // The simulated HMI agent with `--vnc` (its consent prompt answers at hmiPort/api/consent).
  const agent = await startSimulatedAgent({
    server: `ws://127.0.0.1:${platform.port}/mqtt`,
    machineCode: demo.machineCode,
    deviceSecret: demo.deviceSecret,
    vnc: `127.0.0.1:${vnc.port}`,
  });
  const owner = await apiLogin(platform.url(""), DEMO_ACCOUNTS.user);
  return {
    platform,
    demo,
    vnc,
    agent,
    owner,
    eid,
    dataDir,
    /** An API call as someone (envelope's hwdata; a non-zero hwcode fails the test). */
    call: (token: string, route: Route, body: Record<string, string | number>) =>
      apiCall(platform.url(""), token, route, body),
    async close() {
      await agent.stop();
      await vnc.stop();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Route = { method: string; path: string };

async function apiCall(
  base: string,
  token: string,
  route: Route,
  body: Record<string, string | number>,
) {
  const query = new URLSearchParams(
    Object.entries(body).map(([k, v]) => [k, String(v)]),
  ).toString();
  const get = route.method === "GET";
  const res = await fetch(`${base}${route.path}${get ? `?${query}` : ""}`, {
    method: route.method,
    headers: {
      cloudtoken: token,
      ...(get ? {} : { "content-type": "application/x-www-form-urlencoded" }),
    },
    body: get ? undefined : query,
  });
  const envelope = await res.json();
  expect(envelope.hwcode, `${route.path}: ${envelope.msg}`).toBe(0);
  return envelope.hwdata;
}

/** Logs in through the API as a phone app (a terminal of its own) and returns the token. */
export async function apiLogin(base: string, who: { email: string; password: string }) {
  const res = await fetch(`${base}${pathOf(API.accounts.login)}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      loginName: who.email,
      loginPwd: who.password,
      // Not "web": the browser's own logins would end this session (one per kind).
      terminalType: "android",
      terminalName: "e2e api",
    }).toString(),
  });
  const envelope = await res.json();
  expect(envelope.hwcode, envelope.msg).toBe(0);
  const { token, userid } = envelope.hwdata.result;
  return { token: String(token), userId: Number(userid) };
}

/**
 * The share (0-1) of a region of what the page shows (a real screenshot) that is within a
 * few levels of `colour` ("#rrggbb"); decoded by the browser itself.
 */
export async function colourShare(
  page: Page,
  clip: { x: number; y: number; width: number; height: number },
  colour: string,
): Promise<number> {
  const png = (await page.screenshot({ clip })).toString("base64");
  const want = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
  return page.evaluate(
    async ({ png, want }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${png}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext("2d");
      if (!context) return 0;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      let near = 0;
      for (let i = 0; i < data.length; i += 4) {
        const d =
          Math.abs(data[i] - want[0]) +
          Math.abs(data[i + 1] - want[1]) +
          Math.abs(data[i + 2] - want[2]);
        if (d <= 24) near++;
      }
      return near / (data.length / 4);
    },
    { png, want },
  );
}

/** The middle of the noVNC canvas on the page (a region well inside the device's screen). */
export async function canvasMiddle(page: Page) {
  const box = await page.locator(`${tid("screen-canvas")} canvas`).boundingBox();
  if (!box) throw new Error("no canvas");
  return {
    x: Math.round(box.x + box.width * 0.3),
    y: Math.round(box.y + box.height * 0.2),
    width: Math.round(box.width * 0.4),
    height: Math.round(box.height * 0.4),
  };
}

/** Waits (outside a test: set-up) until `check` holds, or fails after `timeoutMs`. */
export const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) =>
  untilHolds(check, timeoutMs, what);
