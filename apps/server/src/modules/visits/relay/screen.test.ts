import { HW } from "@keyway/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { RfbClient, wsTransport } from "../../../testing/rfbClient.ts";
import { GREEN, RED, startVnc, type VncServer } from "../../../testing/vnc.ts";
import { strangerWebSocketMessage } from "../../../testing/websocketStranger.ts";
import {
  closed,
  DeviceWeb,
  openWs,
  type Person,
  type Remote,
  startRemote,
  until,
} from "./remoteTesting.ts";
import { RFB_MAX_CUT_TEXT } from "./rfb.ts";
import { SCREEN_MESSAGE_MAX } from "./screen.ts";

/**
 * The device's screen in the browser, end to end: the real server, the agent's tunnel client,
 * a real VNC server (TigerVNC's Xvnc) showing an X program that turns green/red on each key,
 * and an RFB client speaking to the relay's WebSocket as noVNC does. What the program
 * receives (its key log) and shows (the pixels) is what these tests look at.
 */

let r: Remote;
let vnc: VncServer;
let locked: VncServer;
let web: DeviceWeb;
let deviceId: number;
let lockedId: number;
let plainId: number;
/** The owner's own viewer: its keys mark a point every earlier key has reached the program by. */
let ownerView: RfbClient;
const open: RfbClient[] = [];

async function screenVisit(p: Person, id = deviceId) {
  const issued = await r.visitUrl(p, id, "screen");
  expect(issued.body.hwcode).toBe(0);
  return issued.body.hwdata as {
    visit_id: string;
    ws_url: string;
    view_only: boolean;
    kind: string;
    target: string;
  };
}

async function viewer(url: string, password?: string, protocols: string[] = []) {
  const client = await RfbClient.connect(await wsTransport(r.local(url), protocols), { password });
  open.push(client);
  return client;
}

let marks = 0;
/** The owner types a key and waits for the program to log it; returns the key log then. */
async function barrier(): Promise<string> {
  const letter = "qrstuvwxy"[marks++ % 9];
  ownerView.press(letter.charCodeAt(0));
  let typed = "";
  await until(
    async () => {
      typed = await vnc.typed();
      return typed.endsWith(`${letter}\n`);
    },
    10_000,
    "the mark",
  );
  return typed;
}

/** The screen session's activity row once its viewer has closed. */
async function screenActivity(visitId: string, id = deviceId) {
  // biome-ignore lint/suspicious/noExplicitAny: an envelope's row
  let row: any;
  await until(async () => {
    await r.h.app.services.visits.flushActivity();
    const res = await r.h.call("GET", `/api/device/v1/visits/activity?deviceId=${id}`, {
      token: r.owner.token,
    });
    row = res.body.hwdata?.list?.find(
      (a: { visit_id: string; kind: string; ended_at: string | null }) =>
        a.visit_id === visitId && a.kind === "screen" && a.ended_at,
    );
    return Boolean(row);
  });
  return row;
}

beforeAll(async () => {
  [vnc, locked] = await Promise.all([startVnc(), startVnc({ password: "s3cret!x" })]);
  web = new DeviceWeb();
  await web.listen();
  r = await startRemote();
  deviceId = await r.device(web.port, vnc.port);
  lockedId = await r.device(web.port, locked.port);
  plainId = await r.device(web.port);
  ownerView = await viewer((await screenVisit(r.owner)).ws_url);
}, 120_000);

afterAll(async () => {
  for (const client of open) client.close();
  await r?.close();
  await web?.close();
  await vnc?.stop();
  await locked?.stop();
});

beforeEach(async () => {
  await vnc.setColour(RED);
});

describe("the screen through the relay", () => {
  it("is issued as a screen visit and a read-write visitor's typing reaches the program", async () => {
    const writer = await r.member(deviceId, true);
    const v = await screenVisit(writer);
    expect(v).toMatchObject({ kind: "screen", view_only: false, target: `127.0.0.1:${vnc.port}` });
    expect(v.ws_url).toMatch(
      new RegExp(`^ws://localhost:${r.port}/visit-screen/${v.visit_id}\\?kw_ticket=[\\w-]{43}$`),
    );
    // As noVNC may ask: RFB in binary messages under the "binary" subprotocol.
    const client = await viewer(v.ws_url, undefined, ["binary"]);
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
    client.press(0x61); // "a"
    await client.untilColour(GREEN);
    expect((await vnc.typed()).endsWith("a\n")).toBe(true);
    client.close();

    const row = await screenActivity(v.visit_id);
    expect(row).toMatchObject({ view_only: false, input_events: 2, dropped_events: 0 });
    expect(row.bytes_in).toBeGreaterThan(320 * 200 * 4);
    const log = await r.h.call("GET", `/api/device/v1/visits?deviceId=${deviceId}&pageSize=50`, {
      token: r.owner.token,
    });
    const visit = log.body.hwdata.list.find((x: { visit_id: string }) => x.visit_id === v.visit_id);
    expect(visit).toMatchObject({ kind: "screen", view_only: false });
  });

  it("shows a read-only visitor the screen, drops every key and counts them", async () => {
    const reader = await r.member(deviceId, false);
    const v = await screenVisit(reader);
    expect(v.view_only).toBe(true);
    const client = await viewer(v.ws_url);
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
    const before = await vnc.typed();
    for (const key of [0x62, 0x63, 0x64]) client.press(key); // "b", "c", "d"
    client.pointer(10, 10, 1);
    await client.refresh();
    // The owner's key reached the program after the visitor's would have: none of theirs did.
    const after = await barrier();
    expect(after.slice(before.length)).toMatch(/^[q-y]\n$/);
    // …and the read-only visitor sees what the owner's key did.
    await client.untilColour(GREEN);
    client.close();

    const row = await screenActivity(v.visit_id);
    expect(row).toMatchObject({ view_only: true, input_events: 0, dropped_events: 7 });
  });

  it("applies a change of the visitor's level to the open screen, both ways", async () => {
    const member = await r.member(deviceId, false);
    const client = await viewer((await screenVisit(member)).ws_url);
    await client.refresh();
    const start = await vnc.typed();
    client.press(0x62); // "b": dropped
    // (a round trip: the relay has read the key before the level changes)
    await client.refresh();
    await r.setWrite(deviceId, member, true);
    client.press(0x63); // "c": passes now
    await until(async () => (await vnc.typed()).endsWith("c\n"), 10_000, "the key");
    await r.setWrite(deviceId, member, false);
    client.press(0x64); // "d": dropped again
    await client.refresh();
    const typed = (await barrier()).slice(start.length);
    expect(typed).toMatch(/^c\n[q-y]\n$/);
  });

  it("closes the viewer within 3 s of the right being revoked", async () => {
    const guest = await r.h.person("Visitor");
    const asked = await r.h.call("POST", "/api/v1/audit/addVisit", {
      form: { machineID: deviceId, message: "please", terminalName: "Laptop" },
      token: guest.token,
    });
    await r.h.call("POST", "/api/v1/audit/visitReply", {
      form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok", visitTime: 60 },
      token: r.owner.token,
    });
    const v = await screenVisit(guest);
    const client = await viewer(v.ws_url);
    await client.refresh();

    const grants = await r.h.call("POST", "/api/admin/select", {
      form: { machineID: deviceId, infoType: 3 },
      token: r.owner.token,
    });
    const grant = grants.body.hwdata.list.find(
      (g: { user_id: number }) => g.user_id === guest.userId,
    );
    const started = Date.now();
    const cleared = await r.h.call("DELETE", "/api/device/v1/visit/time", {
      json: { visitTimeId: grant.visitTimeId, machineID: deviceId },
      token: r.owner.token,
    });
    expect(cleared.body.hwcode).toBe(0);
    await until(() => client.closed !== null, 3000, "the viewer to close");
    expect(Date.now() - started).toBeLessThan(3000);
    expect(client.closed).toMatch(new RegExp(`^WebSocket closed 4410 ${HW.VISIT_ENDED.code} `));
  });

  it("asks for the VNC password in the viewer: the response passes, a wrong one is refused", async () => {
    await expect(viewer((await screenVisit(r.owner, lockedId)).ws_url, "wrong")).rejects.toThrow(
      /authentication failed/i,
    );
    const client = await viewer((await screenVisit(r.owner, lockedId)).ws_url, "s3cret!x");
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
  });

  it("ends a session whose viewer sends what RFB does not have", async () => {
    const ws = await openWs(r.local((await screenVisit(r.owner)).ws_url));
    if (!(ws instanceof WebSocket)) throw new Error(`refused: ${ws.status}`);
    const first = new Promise((done) => ws.once("message", done));
    await first;
    ws.send(Buffer.from("RFB 003.008\n"));
    const bye = closed(ws);
    ws.send(Buffer.from([1, 0, 99, 99]));
    const { code, reason } = await bye;
    expect(code).toBe(4400);
    expect(reason).toMatch(/^rfb: /);
  });
});

describe("who may open a screen", () => {
  it("only the one holding its ticket, once, from Keyway's own pages", async () => {
    const v = await screenVisit(r.owner);
    const ticket = v.ws_url.split("kw_ticket=")[1];
    const refusedWith = async (url: string) => {
      const ws = await openWs(r.local(url));
      if (!(ws instanceof WebSocket)) return ws.status;
      return (await closed(ws)).reason.split(" ")[0];
    };
    const invalid = HW.VISIT_LINK_INVALID.code;
    // A wrong ticket, another visit's ticket.
    expect(await refusedWith(v.ws_url.replace(ticket, "A".repeat(43)))).toBe(invalid);
    const other = await screenVisit(r.owner);
    expect(await refusedWith(other.ws_url.replace(other.visit_id, v.visit_id))).toBe(invalid);
    // A page of another site may not open it (and spends nothing).
    expect(await openWs(r.local(v.ws_url), { origin: "http://evil.example" })).toMatchObject({
      status: 403,
    });
    // A screen ticket opens no web page, and a web visit's ticket no screen; neither is spent.
    const asPage = await fetch(
      r.local(`http://localhost:${r.port}/visit/${v.visit_id}/?kw_ticket=${ticket}`),
      { redirect: "manual" },
    );
    expect(asPage.status).toBe(403);
    expect(asPage.headers.get("x-keyway-hwcode")).toBe(invalid);
    const webVisit = (await r.visitUrl(r.owner, deviceId)).body.hwdata;
    const webTicket = webVisit.path_url.split("kw_ticket=")[1];
    expect(
      await refusedWith(
        `ws://localhost:${r.port}/visit-screen/${webVisit.visit_id}?kw_ticket=${webTicket}`,
      ),
    ).toBe(invalid);
    expect((await fetch(r.local(webVisit.path_url), { redirect: "manual" })).status).toBe(302);

    // The ticket itself: once.
    const client = await viewer(v.ws_url);
    await client.refresh();
    client.close();
    expect(await refusedWith(v.ws_url)).toBe(invalid);

    // Another user has no screen of this device to ask for.
    const stranger = await r.h.person("Stranger");
    expect((await r.visitUrl(stranger, deviceId, "screen")).body.hwcode).toBe(HW.NOT_BOUND.code);
  });

  it("holds no large message of a viewer before its ticket is claimed, and one clipboard's worth after", async () => {
    // A stranger with a wrong ticket, announcing a 100 KiB message: refused, and dropped at
    // the message's header rather than held until ws' close timeout.
    const v = await screenVisit(r.owner);
    const stranger = await strangerWebSocketMessage(
      r.port,
      `/visit-screen/${v.visit_id}?kw_ticket=${"A".repeat(43)}`,
      100 * 1024,
    );
    expect(stranger.status).toBe(101);
    expect(stranger.closeCodes[0]).toBe(4403);
    expect(stranger.ms).toBeLessThan(3000);

    // The viewer holding the ticket: the largest clipboard RFB passes goes through, and the
    // session goes on; a message above it is refused at its header.
    const client = await viewer(v.ws_url);
    await client.refresh();
    client.cutText(Buffer.alloc(RFB_MAX_CUT_TEXT, 0x41));
    client.press(0x61); // "a"
    await client.untilColour(GREEN);
    const big = await openWs(r.local((await screenVisit(r.owner)).ws_url));
    if (!(big instanceof WebSocket)) throw new Error(`refused: ${big.status}`);
    const bye = closed(big);
    big.send(Buffer.alloc(SCREEN_MESSAGE_MAX.claimed + 1));
    expect((await bye).code).toBe(1009);
  });

  it("is refused for a device whose agent offers no screen", async () => {
    const issued = await r.visitUrl(r.owner, plainId, "screen");
    expect(issued.body.hwcode).toBe(HW.SCREEN_NOT_OFFERED.code);
  });
});
