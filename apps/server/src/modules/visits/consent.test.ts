import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_FEATURE_CONTROL } from "@keyway/protocol";
import { HW, maskEmail } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, kill9, spawnSimulatedDevice } from "../../../../agent/src/testing.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";
import { openVisit, openWebSocket, request, until } from "./consentTesting.ts";

/**
 * On-site consent end to end (issue 20): the real server listening on a port, the real agent
 * CLI with its simulated HMI, and the HMI's own consent API (what its Accept / Refuse / End
 * buttons call; tests/e2e/consentHmi.e2e.test.ts clicks them in Chromium). The visit URL call
 * is held until the person at the machine answers: accepted, refused, timed out (a short
 * wait injected here), and a running visit ended from the device side.
 */

const TIMEOUT_MS = 8000;

let h: Harness;
let port: number;
let agent: AgentProcess;
let dataDir: string;
let owner: Awaited<ReturnType<Harness["person"]>>;
let bkey: Awaited<ReturnType<Harness["person"]>>;
let machineID: number;

interface Ask {
  visit: string;
  visitor: string;
  account: string;
  kind: string;
  viewOnly: boolean;
  remainingMs: number;
}
interface ConsentState {
  asks: Ask[];
  running: Array<{ visit: string; visitor: string }>;
}

const hmi = (path: string) => `http://127.0.0.1:${agent.httpPort}${path}`;
const consentState = async () =>
  JSON.parse((await request(hmi("/api/consent"))).body) as ConsentState;
/** What the HMI's buttons do: POST /api/consent/<visit>/accept|refuse|end. */
const press = (visit: string, action: "accept" | "refuse" | "end") =>
  request(hmi(`/api/consent/${visit}/${action}`), { method: "POST", json: {} });

async function nextAsk(): Promise<Ask> {
  let ask: Ask | undefined;
  await until(
    async () => {
      ask = (await consentState()).asks[0];
      return ask !== undefined;
    },
    20_000,
    "the ask",
  );
  return ask as Ask;
}

const visitUrl = (token: string, lang?: "cn" | "en") =>
  h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID, terminalID: "t" },
    token,
    lang,
  });

const setConsent = (token: string, on: boolean) =>
  h.call("POST", "/api/device/v1/remoteSettings", {
    json: { deviceId: machineID, onsite_consent: on },
    token,
  });

async function logOf(visitId: string) {
  const log = await h.call("GET", `/api/device/v1/visits?deviceId=${machineID}&pageSize=50`, {
    token: owner.token,
  });
  // biome-ignore lint/suspicious/noExplicitAny: one row of the log
  return log.body.hwdata.list.find((v: any) => v.visit_id === visitId);
}

/** The owner asks, the HMI's Accept answers: the visit, opened. */
async function acceptedVisit() {
  const asked = visitUrl(owner.token);
  const ask = await nextAsk();
  expect((await press(ask.visit, "accept")).status).toBe(200);
  const issued = await asked;
  expect(issued.body.hwcode).toBe(0);
  return { ask, issued: issued.body.hwdata, ...(await openVisit(issued.body.hwdata.url)) };
}

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({
    config: { PUBLIC_URL: `http://localhost:${port}` },
    consentTimeoutMs: TIMEOUT_MS,
  });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const [device] = await h.provision(operator, 1);
  owner = await h.person("Owner");
  bkey = await h.person("Helper");
  machineID = (await h.addDevice(owner.token, device, "Press line")).id;
  const pushed = await h.call("POST", "/api/admin/push", {
    form: { account: bkey.email, machineID },
    token: owner.token,
  });
  expect(pushed.body.hwcode).toBe(0);
  dataDir = mkdtempSync(join(tmpdir(), "kw-consent-"));
  agent = await spawnSimulatedDevice({
    server: `ws://127.0.0.1:${port}/mqtt`,
    device,
    dataDir,
    extra: ["--vnc", "127.0.0.1:5900", "--location-every", "0"],
  });
  await until(() => Boolean(h.app.services.tunnels.hello(machineID)), 60_000, "the tunnel");
}, 120_000);

afterAll(async () => {
  if (agent) await kill9(agent);
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("on-site consent through the simulated HMI", { timeout: 60_000 }, () => {
  it("is announced by the agent, with its screen, and is off by default: no ask", async () => {
    const hello = h.app.services.tunnels.hello(machineID);
    expect(hello?.features).toEqual([AGENT_FEATURE_CONTROL]);
    expect(hello?.vnc).toBe("127.0.0.1:5900");
    expect(hello?.allow).toContain("127.0.0.1:5900");
    const issued = await visitUrl(owner.token);
    expect(issued.body.hwcode).toBe(0);
    expect(issued.body.hwdata.consent).toBe("none");
    expect((await consentState()).asks).toEqual([]);
  });

  it("is turned on by the Akey only", async () => {
    const refused = await setConsent(bkey.token, true);
    expect(refused.body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
    const on = await setConsent(owner.token, true);
    expect(on.body.hwdata).toMatchObject({ onsite_consent: true, consent_supported: true });
    // The Bkey reads it, cannot change it.
    const read = await h.call("GET", `/api/device/v1/remoteSettings?deviceId=${machineID}`, {
      token: bkey.token,
    });
    expect(read.body.hwdata).toMatchObject({ onsite_consent: true, can_edit: false });
  });

  it("accepted at the machine: the visit opens and reaches the device's page", async () => {
    const { ask, issued, origin, cookie } = await acceptedVisit();
    expect(ask).toMatchObject({
      visitor: "Owner",
      account: maskEmail(owner.email),
      kind: "web",
      viewOnly: false,
    });
    expect(issued).toMatchObject({ visit_id: ask.visit, consent: "accepted" });
    const page = await request(`${origin}/`, { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Simulated HMI");
    // The HMI lists it as running, with an End control.
    expect((await consentState()).running).toMatchObject([{ visit: ask.visit, visitor: "Owner" }]);
    // The visitor, on the HMI's own page, neither sees nor answers the consent API.
    expect((await request(`${origin}/api/consent`, { cookie })).status).toBe(403);
    const hijack = await request(`${origin}/api/consent/${ask.visit}/end`, {
      method: "POST",
      cookie,
      json: {},
    });
    expect(hijack.status).toBe(403);
    const live = await openWebSocket(origin, cookie, "/api/live");
    const first = JSON.parse(String(await new Promise((r) => live.once("message", r))));
    expect(first).toHaveProperty("tags");
    expect(first).not.toHaveProperty("consent");
    live.close();
    expect((await consentState()).running).toHaveLength(1);
    await h.call("POST", "/api/device/v1/visits/end", {
      form: { visitId: ask.visit },
      token: owner.token,
    });
    // Ended by the owner: the agent is told and its HMI drops the session.
    await until(async () => (await consentState()).running.length === 0, 10_000, "visit.ended");
  });

  it("ended from the device side: its socket is cut, its next request refused", async () => {
    const { ask, origin, cookie } = await acceptedVisit();
    const live = await openWebSocket(origin, cookie, "/api/live");
    const cut = new Promise((done) => live.once("close", done));
    expect((await press(ask.visit, "end")).status).toBe(200);
    await cut;
    const next = await request(`${origin}/`, { cookie });
    expect(next.status).toBe(410);
    expect((await logOf(ask.visit))?.end_reason).toBe("ended_on_site");
    expect((await consentState()).running).toEqual([]);
    // Pressed again (a second tab of the HMI): nothing left to end.
    expect((await press(ask.visit, "end")).status).toBe(404);
  });

  it("refused at the machine: CONSENT_REFUSED in either language, and in the log", async () => {
    for (const lang of ["en", "cn"] as const) {
      const asked = visitUrl(owner.token, lang);
      const ask = await nextAsk();
      expect((await press(ask.visit, "refuse")).status).toBe(200);
      const refused = await asked;
      expect(refused.body).toMatchObject({
        hwcode: HW.CONSENT_REFUSED.code,
        msg: lang === "en" ? HW.CONSENT_REFUSED.en : HW.CONSENT_REFUSED.zh,
      });
      expect(await logOf(ask.visit)).toMatchObject({
        state: "ended",
        end_reason: "consent_refused",
        user_name: "Owner",
      });
      expect((await consentState()).running).toEqual([]);
    }
  });

  it("unanswered: CONSENT_TIMEOUT after the wait, the prompt withdrawn", async () => {
    const asked = visitUrl(owner.token, "en");
    const ask = await nextAsk();
    const timedOut = await asked;
    expect(timedOut.body).toMatchObject({
      hwcode: HW.CONSENT_TIMEOUT.code,
      msg: HW.CONSENT_TIMEOUT.en,
    });
    expect((await logOf(ask.visit))?.end_reason).toBe("consent_timeout");
    await until(async () => (await consentState()).asks.length === 0, 10_000, "the cancel");
    // Too late: the HMI says so instead of letting the visit in.
    expect((await press(ask.visit, "accept")).status).toBe(404);
  });
});
