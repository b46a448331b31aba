import http from "node:http";
import type { AddressInfo } from "node:net";
import { API, pathOf } from "@keyway/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimulatedAgent, startMaintainedDemo, startSimulatedAgent } from "./agent.ts";

/**
 * Issue 15: a hostile device page served through a real visit (a real agent process, its
 * tunnel, the relay), in subdomain mode (`<id>.visit.localhost`) and in path mode
 * (`/visit/<id>.<key>/` on Keyway's own origin). The page tries everything a stranger's
 * script could against the visitor: read the login token from cookies and storage, call the
 * API with credentials, post a cross-site form that would make its attacker a Bkey of the
 * visitor's device, frame Keyway and open it in a pop-up. Every attempt fails, and the
 * visitor's devices are unchanged. Screenshots: /tmp/kw-hostile-*.png.
 */
let fixture: Awaited<ReturnType<typeof startMaintainedDemo>>;
let hostile: http.Server;
let agent: SimulatedAgent;
let machineID: number;
/** The account the page tries to make a Bkey (it exists, so the call would work with credentials). */
const ATTACKER = "operator@keyway.local";
/** The call the page would abuse: make an account a Bkey of the device. */
const ADD_BKEY = pathOf(API.access.addBkey);
/** A signed-in read the page tries with the visitor's cookies. */
const USER_INFO = pathOf(API.accounts.userInfoByPost);

/** The device's page: every attempt's outcome ends up in <pre id="out"> as JSON. */
function hostilePage(platform: string, deviceId: number): string {
  const parent = new URL(platform).hostname;
  return `<!doctype html><html><head><meta charset="utf-8"><title>HMI</title></head><body>
<h1>Totally normal HMI</h1>
<iframe name="sink" style="display:none"></iframe>
<form id="csrf" method="POST" action="${platform}${ADD_BKEY}" target="sink">
  <input name="machineID" value="${deviceId}"><input name="account" value="${ATTACKER}">
</form>
<iframe id="frame" src="${platform}/index" style="width:300px;height:150px"></iframe>
<pre id="out">running</pre>
<script>
const PARENT = "${parent}";
const out = {};
const attempt = async (name, f) => {
  try { out[name] = await f(); } catch (e) { out[name] = "ERR " + (e && e.name); }
};
(async () => {
  await attempt("cookie", () => document.cookie);
  // Cookie tossing: its own account's token for Keyway's parent domain, also on a longer path
  // (listed first there), so that the visitor would act in the attacker's account.
  await attempt("toss", () => {
    for (const path of ["/", "/index", "/msgCenter"])
      document.cookie = "token=TOSSED; Domain=" + PARENT + "; Path=" + path;
    return document.cookie;
  });
  await attempt("localStorage", () => JSON.stringify(Object.entries(localStorage)));
  await attempt("sessionStorage", () => JSON.stringify(Object.entries(sessionStorage)));
  const form = "machineID=${deviceId}&account=" + encodeURIComponent("${ATTACKER}");
  const post = (url) => fetch(url, {
    method: "POST", credentials: "include", body: form,
    headers: { "content-type": "application/x-www-form-urlencoded" },
  }).then(async (r) => r.status + " " + (await r.text()).slice(0, 200));
  await attempt("fetchPlatform", () => post("${platform}${ADD_BKEY}"));
  // Relative: the device's own API on a visit host, Keyway's API in path mode.
  await attempt("fetchRelative", () => post("${ADD_BKEY}"));
  await attempt("fetchInfo", () =>
    fetch("${platform}${USER_INFO}", { method: "POST", credentials: "include" })
      .then((r) => r.text()));
  await attempt("fetchInfoRelative", () =>
    fetch("${USER_INFO}", { method: "POST", credentials: "include" }).then((r) => r.text()));
  document.getElementById("csrf").submit();
  await new Promise((r) => setTimeout(r, 2500));
  await attempt("iframe", () => {
    const f = document.getElementById("frame");
    return String(f.contentDocument && f.contentDocument.cookie) + " " +
      String(f.contentWindow.localStorage.length);
  });
  const popup = window.open("${platform}/index", "_blank");
  await new Promise((r) => setTimeout(r, 2500));
  await attempt("popup", () => popup ? popup.document.cookie + " " + popup.localStorage.length : "blocked");
  try { popup && popup.close(); } catch {}
  document.getElementById("out").textContent = JSON.stringify(out);
})();
</script></body></html>`;
}

beforeAll(async () => {
  // A real-looking domain: `<id>.visit.keyway.test` is the same site as `keyway.test`, so the
  // browser does attach Keyway's SameSite=Lax cookie to the page's requests and forms.
  fixture = await startMaintainedDemo("hostile", { host: "keyway.test" });
  const origin = `http://keyway.test:${fixture.platform.port}`;
  const token = await tokenOf();
  const list = await api(pathOf(API.devices.select), token);
  machineID = (list.hwdata.list as { machine_id: number }[])[0].machine_id;
  hostile = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(hostilePage(origin, machineID));
  });
  await new Promise<void>((done) => hostile.listen(0, "127.0.0.1", done));
  // A second agent process for the same device would fight the first: the fixture's agent
  // is stopped and this one serves the hostile page as the device's web UI.
  await fixture.agent.stop();
  agent = await startSimulatedAgent({
    server: `ws://127.0.0.1:${fixture.platform.port}/mqtt`,
    machineCode: fixture.demo.machineCode,
    deviceSecret: fixture.demo.deviceSecret,
    target: `127.0.0.1:${(hostile.address() as AddressInfo).port}`,
  });
  const wanted = `127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  for (
    let i = 0;
    i < 600 && fixture.platform.app.services.tunnels.hello(machineID)?.target !== wanted;
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
}, 120_000);
afterAll(async () => {
  await agent?.stop();
  await fixture?.close();
  hostile?.close();
});

/**
 * The visitor's token, as the web app keeps it after a real login in Chromium (a new web
 * login ends the previous web session: the latest is kept here).
 */
let loginToken = "";
async function tokenOf(): Promise<string> {
  if (loginToken) return loginToken;
  const context = await fixture.platform.browser.newContext();
  const page = await context.newPage();
  await fixture.platform.logIn(page);
  loginToken = (await context.cookies()).find((c) => c.name === "token")?.value ?? "";
  await context.close();
  return loginToken;
}

// biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
async function api(path: string, token: string, form: Record<string, string> = {}): Promise<any> {
  const res = await fetch(fixture.platform.url(path, "127.0.0.1"), {
    method: "POST",
    headers: { cloudtoken: token, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return res.json();
}

/** How many Bkeys the visitor's device has. */
async function bkeysOf(token: string): Promise<number> {
  const res = await api(pathOf(API.access.select), token, {
    machineID: String(machineID),
    infoType: "2",
  });
  expect(res.hwcode).toBe(0);
  return (res.hwdata.list as unknown[]).length;
}

/** Opens the visit as the logged-in visitor and returns what the hostile page achieved. */
async function visitAs(
  mode: "url" | "path_url",
): Promise<{ out: Record<string, string>; page: Page }> {
  const context = await fixture.platform.browser.newContext({
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  await fixture.platform.logIn(page);
  const token = (await context.cookies()).find((c) => c.name === "token")?.value ?? "";
  expect(token).not.toBe("");
  loginToken = token;
  const visit = await api(pathOf(API.visits.getValidVisitUrl), token, {
    machineID: String(machineID),
  });
  expect(visit.hwcode).toBe(0);
  const tab = await context.newPage();
  await tab.goto(visit.hwdata[mode]);
  await expect.poll(() => tab.textContent("#out"), { timeout: 30_000 }).not.toBe("running");
  const out = JSON.parse((await tab.textContent("#out")) ?? "{}") as Record<string, string>;
  await tab.screenshot({ path: `/tmp/kw-hostile-${mode}.png` });
  // Nothing the page read or received carries the visitor's token or their account.
  const everything = JSON.stringify(out);
  expect(everything).not.toContain(token);
  expect(everything).not.toContain("demo@keyway.local");
  return { out, page: tab };
}

describe("a hostile device page", () => {
  it("on its visit host reaches nothing of the visitor's", async () => {
    const before = await bkeysOf(await tokenOf());
    const { out, page } = await visitAs("url");
    const token = await tokenOf();
    expect(new URL(page.url()).host).toMatch(/^[a-z2-7]{26}\.visit\.keyway\.test:\d+$/);
    // Its own origin: Keyway's host-only cookies and storage are not there.
    expect(out.cookie).not.toContain("token=");
    expect(out.localStorage).toBe("[]");
    // Cross-origin reads fail (no CORS), and writes were refused (no header, other site).
    expect(out.fetchPlatform).toMatch(/^ERR/);
    expect(out.fetchInfo).toMatch(/^ERR/);
    expect(out.iframe).toMatch(/^ERR/);
    expect(out.popup).toMatch(/^ERR|^blocked$/);
    expect(await bkeysOf(token)).toBe(before);
    // The tossed cookies reached Keyway's site, but its pages keep using the visitor's token.
    expect(out.toss).toContain("TOSSED");
    const keyway = page.context().pages()[0];
    const sent: string[] = [];
    keyway.on("request", (request) => {
      const header = request.headers().cloudtoken;
      if (header) sent.push(header);
    });
    await keyway.goto(fixture.platform.url("/msgCenter?language=en"));
    await expect.poll(() => sent.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(sent.every((value) => value === token)).toBe(true);
  });

  it("in path mode on Keyway's own origin runs sandboxed and reaches nothing either", async () => {
    const before = await bkeysOf(await tokenOf());
    const { out, page } = await visitAs("path_url");
    const token = await tokenOf();
    expect(new URL(page.url()).pathname).toMatch(/^\/visit\/[a-z2-7]{26}\.[\w-]{43}\/$/);
    // An opaque origin: no cookies, no storage at all.
    expect(out.cookie).toBe("ERR SecurityError");
    expect(out.localStorage).toBe("ERR SecurityError");
    expect(out.sessionStorage).toBe("ERR SecurityError");
    expect(out.fetchPlatform).toMatch(/^ERR/);
    expect(out.fetchRelative).toMatch(/^ERR/);
    expect(out.fetchInfo).toMatch(/^ERR/);
    expect(out.iframe).toMatch(/^ERR/);
    expect(out.popup).toMatch(/^ERR|^blocked$/);
    expect(await bkeysOf(token)).toBe(before);
  });

  it("would have succeeded with the visitor's credentials (the attempts are real)", async () => {
    const token = await tokenOf();
    const before = await bkeysOf(token);
    const made = await api(ADD_BKEY, token, {
      machineID: String(machineID),
      account: ATTACKER,
    });
    expect(made.hwcode).toBe(0);
    expect(await bkeysOf(token)).toBe(before + 1);
  });
});
