import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  closed,
  DeviceWeb,
  openWs,
  type Person,
  type Remote,
  startRemote,
} from "./remoteTesting.ts";

/**
 * View only on the device's web UI (docs/architecture/remote-access.md "View only"): a
 * read-only visitor reads the device's pages, but every changing request is refused by the
 * relay with a page saying why, and never reaches the device (its own log says so); its
 * WebSockets too, unless the owner allows them. The level is re-read at every rights check.
 */

let r: Remote;
let web: DeviceWeb;
let deviceId: number;

/** Opens a web visit in path mode; its base URL ("…/visit/<id>.<key>/"). */
async function openWeb(p: Person) {
  const issued = await r.visitUrl(p, deviceId);
  expect(issued.body.hwcode).toBe(0);
  const claimed = await fetch(r.local(issued.body.hwdata.path_url), { redirect: "manual" });
  expect(claimed.status).toBe(302);
  const path = new URL(claimed.headers.get("location") ?? "", "http://x").pathname;
  return {
    base: `http://127.0.0.1:${r.port}${path}`,
    visitId: issued.body.hwdata.visit_id as string,
    viewOnly: issued.body.hwdata.view_only as boolean,
  };
}

const send = (url: string, method: string, lang = "en-US,en;q=0.9") =>
  fetch(url, {
    method,
    headers: { "accept-language": lang, "content-type": "application/x-www-form-urlencoded" },
    ...(method === "GET" || method === "HEAD" || method === "OPTIONS" ? {} : { body: "speed=99" }),
  });

const reached = (what: string) => web.seen.includes(what);

beforeAll(async () => {
  web = new DeviceWeb();
  await web.listen();
  r = await startRemote();
  deviceId = await r.device(web.port);
}, 120_000);

afterAll(async () => {
  await r?.close();
  await web?.close();
});

describe("a read-only visitor on the device's web UI", () => {
  it("reads its pages, and every changing request gets a page saying why, never the device", async () => {
    const reader = await r.member(deviceId, false);
    const { base, viewOnly } = await openWeb(reader);
    expect(viewOnly).toBe(true);
    const home = await send(base, "GET");
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("HMI home");
    expect((await send(`${base}form`, "OPTIONS")).status).toBe(200);
    expect(reached("OPTIONS /form")).toBe(true);

    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const refused = await send(`${base}form?id=7`, method);
      expect(refused.status, method).toBe(403);
      expect(refused.headers.get("x-keyway-hwcode")).toBe(HW.VIEW_ONLY.code);
      expect(await refused.text()).toContain(HW.VIEW_ONLY.en);
      expect(reached(`${method} /form?id=7`), method).toBe(false);
    }
    const zh = await send(`${base}form`, "POST", "zh-CN,zh;q=0.9,en;q=0.8");
    expect(zh.headers.get("content-language")).toBe("zh-CN");
    const page = await zh.text();
    expect(page).toContain(HW.VIEW_ONLY.zh);
    expect(page).not.toContain(HW.VIEW_ONLY.en);
    const en = await (await send(`${base}form`, "POST", "en-GB")).text();
    expect(en).not.toContain(HW.VIEW_ONLY.zh);
  });

  it("and a visitor who may write changes the device", async () => {
    const writer = await r.member(deviceId, true);
    const { base, viewOnly } = await openWeb(writer);
    expect(viewOnly).toBe(false);
    const saved = await send(`${base}save`, "POST");
    expect(await saved.text()).toBe("saved");
    expect(reached("POST /save")).toBe(true);
  });

  it("takes a level change at the next request, both ways", async () => {
    const member = await r.member(deviceId, false);
    const { base } = await openWeb(member);
    expect((await send(`${base}one`, "POST")).status).toBe(403);
    await r.setWrite(deviceId, member, true);
    expect(await (await send(`${base}two`, "POST")).text()).toBe("saved");
    await r.setWrite(deviceId, member, false);
    expect((await send(`${base}three`, "POST")).status).toBe(403);
    expect(["POST /one", "POST /two", "POST /three"].map(reached)).toEqual([false, true, false]);
  });

  it("opens no WebSocket to the device unless the owner allows it", async () => {
    const setting = (on: boolean) =>
      r.h.call("POST", "/api/device/v1/remoteSettings", {
        json: { deviceId, readonly_websocket: on },
        token: r.owner.token,
      });
    const reader = await r.member(deviceId, false);
    const { base } = await openWeb(reader);
    const wsUrl = `${base.replace(/^http/, "ws")}echo`;
    expect(await openWs(wsUrl)).toEqual({ status: 403, hwcode: HW.VIEW_ONLY.code });
    expect(reached("UPGRADE /echo")).toBe(false);

    expect((await setting(true)).body.hwdata.readonly_websocket).toBe(true);
    const ws = await openWs(wsUrl);
    if (!(ws instanceof WebSocket)) throw new Error(`refused: ${ws.status}`);
    const echoed = new Promise((done) => ws.once("message", (data) => done(String(data))));
    ws.send("reading");
    expect(await echoed).toBe("reading");
    ws.close();
    expect((await setting(false)).body.hwdata.readonly_websocket).toBe(false);
  });

  it("loses the WebSockets it had once made read-only", async () => {
    const member = await r.member(deviceId, true);
    const { base } = await openWeb(member);
    const ws = await openWs(`${base.replace(/^http/, "ws")}echo`);
    if (!(ws instanceof WebSocket)) throw new Error(`refused: ${ws.status}`);
    const gone = closed(ws);
    await r.setWrite(deviceId, member, false);
    await gone;
    expect(ws.readyState).toBe(ws.CLOSED);
  });

  it("gets no raw TCP forward (bytes the relay cannot follow), and loses one once read-only", async () => {
    const target = `127.0.0.1:${web.port}`;
    const reader = await r.member(deviceId, false);
    const asked = await r.h.call("POST", "/api/v1/audit/getValidVisitUrl", {
      form: { machineID: deviceId, terminalID: "t", target },
      token: reader.token,
    });
    expect(asked.body.hwcode).toBe(HW.VIEW_ONLY.code);
    // Nor through a web visit of its own.
    const forward = (p: Person, visitId: string) =>
      openWs(`ws://127.0.0.1:${r.port}/visit-tcp/${visitId}?target=${target}`, {
        headers: { cloudtoken: p.token },
      });
    const refused = await forward(reader, (await openWeb(reader)).visitId);
    if (!(refused instanceof WebSocket)) throw new Error(`refused: ${refused.status}`);
    expect((await closed(refused)).reason).toMatch(new RegExp(`^${HW.VIEW_ONLY.code} `));

    const member = await r.member(deviceId, true);
    const ws = await forward(member, (await openWeb(member)).visitId);
    if (!(ws instanceof WebSocket)) throw new Error(`refused: ${ws.status}`);
    const answer = new Promise<string>((done) => ws.once("message", (d) => done(String(d))));
    ws.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await answer).toContain("HTTP/1.1 200");
    const gone = closed(ws);
    await r.setWrite(deviceId, member, false);
    expect((await gone).reason).toMatch(new RegExp(`^${HW.VIEW_ONLY.code} `));
  });

  it("leaves a trace of what it did, refusals included, without query strings", async () => {
    const reader = await r.member(deviceId, false);
    const { base, visitId } = await openWeb(reader);
    await send(`${base}?token=secret`, "GET");
    await send(`${base}setpoint?value=1`, "POST");
    await r.h.app.services.visits.flushActivity();
    const res = await r.h.call("GET", `/api/device/v1/visits/activity?deviceId=${deviceId}`, {
      token: r.owner.token,
    });
    const mine = res.body.hwdata.list.filter((a: { visit_id: string }) => a.visit_id === visitId);
    expect(mine).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "http", method: "GET", path: "/", status: 200 }),
        expect.objectContaining({
          kind: "http",
          method: "POST",
          path: "/setpoint",
          status: 403,
          view_only: true,
        }),
      ]),
    );
    expect(JSON.stringify(mine)).not.toContain("secret");
  });
});
