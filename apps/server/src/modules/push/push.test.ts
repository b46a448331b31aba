import websocket from "@fastify/websocket";
import {
  decodePush,
  encodePush,
  LOGOUT_REASON,
  PING_FRAME,
  PUSH_SCENES,
  PushDecodeError,
  type PushFrame,
} from "@keyway/protocol";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { testConfig } from "../../config.ts";
import { domainEvents } from "../../events.ts";
import { createInProcessBus } from "../../infra/bus.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { createPushHub, PUSH_CLOSE, type PushIdentity } from "./service.ts";
import { PushClient } from "./testClient.ts";

/** Nothing more arrives within a short while (pushes are sent in order, so a ping suffices). */
async function quiet(client: PushClient) {
  await client.ready();
  expect(client.frames).toEqual([]);
}

/** Server-side state follows a close handshake a moment later. */
async function eventually(check: () => boolean) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
}

const audit = {
  deviceCode: "KW-ABCDE-12345",
  deviceId: 42,
  isResult: 1,
  auditState: 5,
  totalUnreadMsg: 3,
};

describe("push protocol", () => {
  it("round-trips every scene and refuses what is not a push frame", () => {
    const frames: PushFrame[] = [
      { scene: PUSH_SCENES.deviceAlarm, body: { deviceCode: "A", deviceId: 1, totalUnreadMsg: 2 } },
      { scene: PUSH_SCENES.deviceVoice, body: { deviceCode: "B", deviceId: 2, totalUnreadMsg: 0 } },
      { scene: PUSH_SCENES.deviceBind, body: audit },
      { scene: PUSH_SCENES.deviceVisit, body: { ...audit, isResult: 0, auditState: 1 } },
      {
        scene: PUSH_SCENES.projectAlarm,
        body: { deviceCode: "C", deviceId: 3, totalUnreadMsg: 9 },
      },
      {
        scene: PUSH_SCENES.userLogout,
        body: { loginIp: "203.0.113.9", reason: LOGOUT_REASON.loginElsewhere },
      },
      {
        scene: PUSH_SCENES.massTexting,
        body: { content: "维护通知 maintenance", totalUnreadMsg: 7 },
      },
      { scene: PUSH_SCENES.ping, body: null },
      { scene: PUSH_SCENES.pong, body: null },
    ];
    for (const frame of frames) {
      const decoded = decodePush(encodePush(frame.scene, frame.body));
      expect(decoded.scene).toBe(frame.scene);
      expect(decoded.body === null ? null : { ...decoded.body, $typeName: undefined }).toEqual(
        frame.body === null ? null : { ...frame.body, $typeName: undefined },
      );
    }
    expect(() => decodePush(new Uint8Array([0xff, 0xff, 0xff]))).toThrow(PushDecodeError);
    // A well-formed wrapper of a scene this version does not know.
    const unknown = encodePush(PUSH_SCENES.pong, null);
    const renamed = new Uint8Array(unknown);
    renamed[2] = "x".charCodeAt(0); // "ws.pong" -> "wx.pong"
    expect(() => decodePush(renamed)).toThrow(/unknown push scene/);
  });
});

describe("push channel /ws", () => {
  let h: Harness;
  let base: string;
  let alice: { token: string; userId: number; terminalId: number };
  let aliceTablet: { token: string; userId: number; terminalId: number };
  let bob: { token: string; userId: number; terminalId: number };
  const clients: PushClient[] = [];

  async function identify(token: string) {
    const who = await h.app.services.accounts.authenticate(token);
    if (!who) throw new Error("token refused");
    return { token, userId: who.userId, terminalId: who.terminalId };
  }
  async function open(token: string) {
    const client = await PushClient.open(`${base}/ws?token=${encodeURIComponent(token)}`);
    clients.push(client);
    await client.ready();
    return client;
  }

  beforeAll(async () => {
    h = await createHarness();
    const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
    base = address.replace(/^http/, "ws");
    alice = await identify(await h.signUp("alice@example.com"));
    aliceTablet = await identify(await h.login("alice@example.com", "secret123"));
    bob = await identify(await h.signUp("bob@example.com"));
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await h?.close();
  });

  it("refuses a missing, unknown or expired token with 4401", async () => {
    for (const url of [`${base}/ws`, `${base}/ws?token=nope`]) {
      const client = await PushClient.open(url);
      expect((await client.closedWith()).code).toBe(PUSH_CLOSE.tokenInvalid);
    }
    const later = await open(alice.token);
    h.clock.advance(31 * 24 * 60 * 60 * 1000); // past any token's lifetime
    const expired = await PushClient.open(`${base}/ws?token=${alice.token}`);
    expect((await expired.closedWith()).code).toBe(PUSH_CLOSE.tokenInvalid);
    h.clock.advance(-31 * 24 * 60 * 60 * 1000);
    // The socket opened before is not affected.
    await later.ready();
  });

  it("refuses a socket another site's page opens (a device page on a visit host), and takes Keyway's own", async () => {
    // Both ways in: the fast path ahead of Fastify takes only what is plainly allowed and
    // leaves the rest to the route's origin check.
    const refusedWith = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${base}/ws?token=${encodeURIComponent(bob.token)}`, {
          headers,
        });
        // The refusal ends the connection: the server closes it, not this client.
        socket.on("unexpected-response", (request, response) => {
          response.resume();
          request.socket?.once("close", () => resolve(response.statusCode ?? 0));
        });
        socket.on("open", () => {
          socket.close();
          reject(new Error(`opened with ${JSON.stringify(headers)}`));
        });
        socket.on("error", () => {});
      });
    const visitHost = "http://abcdefghijklmnopqrstuvwxyz.visit.localhost:8080";
    expect(await refusedWith({ origin: visitHost })).toBe(403);
    expect(await refusedWith({ origin: visitHost, "sec-fetch-site": "same-site" })).toBe(403);
    expect(await refusedWith({ "sec-fetch-site": "cross-site" })).toBe(403);
    expect(await refusedWith({ origin: "null" })).toBe(403);
    const own = new URL(testConfig().PUBLIC_URL).origin;
    const allowed: Record<string, string>[] = [
      { origin: own },
      { "sec-fetch-site": "same-origin", origin: own },
    ];
    for (const headers of allowed) {
      const client = await PushClient.open(
        `${base}/ws?token=${encodeURIComponent(bob.token)}`,
        headers,
      );
      clients.push(client);
      await client.ready();
    }
  });

  it("accepts the token in the cloudtoken header too", async () => {
    const client = await PushClient.open(`${base}/ws`, { cloudtoken: bob.token });
    clients.push(client);
    await client.ready();
    h.app.services.push.toUser(bob.userId, {
      scene: PUSH_SCENES.massTexting,
      body: { content: "hello", totalUnreadMsg: 1 },
    });
    expect(await client.next()).toMatchObject({
      scene: PUSH_SCENES.massTexting,
      body: { content: "hello", totalUnreadMsg: 1 },
    });
    client.close();
  });

  it("answers a ping with a pong", async () => {
    const client = await open(alice.token);
    client.socket.send(PING_FRAME);
    expect(await client.next()).toEqual({ scene: PUSH_SCENES.pong, body: null });
    client.close();
  });

  it("toUser reaches every socket of that user and no one else's", async () => {
    const phone = await open(alice.token);
    const tablet = await open(aliceTablet.token);
    const other = await open(bob.token);
    const before = h.app.services.push.socketCount();
    expect(before).toBeGreaterThanOrEqual(3);

    h.app.services.push.toUser(alice.userId, { scene: PUSH_SCENES.deviceBind, body: audit });
    for (const client of [phone, tablet]) {
      const frame = await client.next();
      expect(frame.scene).toBe(PUSH_SCENES.deviceBind);
      if (frame.scene !== PUSH_SCENES.deviceBind) throw new Error("narrowing");
      expect(frame.body).toMatchObject(audit);
    }
    await quiet(other);
    for (const client of [phone, tablet, other]) client.close();
    await phone.closedWith();
  });

  it("toTerminal reaches only that terminal's sockets", async () => {
    const phone = await open(alice.token);
    const tablet = await open(aliceTablet.token);
    h.app.services.push.toTerminal(aliceTablet.terminalId, {
      scene: PUSH_SCENES.deviceAlarm,
      body: { deviceCode: "KW-X", deviceId: 7, totalUnreadMsg: 4 },
    });
    expect(await tablet.next()).toMatchObject({
      scene: PUSH_SCENES.deviceAlarm,
      body: { deviceCode: "KW-X", deviceId: 7, totalUnreadMsg: 4 },
    });
    await quiet(phone);
    phone.close();
    tablet.close();
  });

  it("a logout push is delivered, then the server closes that terminal's sockets", async () => {
    const phone = await open(alice.token);
    const tablet = await open(aliceTablet.token);
    h.app.services.push.toTerminal(alice.terminalId, {
      scene: PUSH_SCENES.userLogout,
      body: { loginIp: "203.0.113.9", reason: LOGOUT_REASON.loginElsewhere },
    });
    expect(await phone.next()).toMatchObject({
      scene: PUSH_SCENES.userLogout,
      body: { loginIp: "203.0.113.9", reason: LOGOUT_REASON.loginElsewhere },
    });
    expect((await phone.closedWith()).code).toBe(PUSH_CLOSE.loggedOut);
    // The other terminal stays connected and keeps getting pushes.
    await quiet(tablet);
    h.app.services.push.toUser(alice.userId, { scene: PUSH_SCENES.deviceVisit, body: audit });
    expect((await tablet.next()).scene).toBe(PUSH_SCENES.deviceVisit);
    tablet.close();
  });

  it("refuses a revoked token, also within a burst of connects, and closes its open socket", async () => {
    const email = "carol@example.com";
    const oldPhone = await identify(await h.signUp(email));
    const oldSocket = await open(oldPhone.token);
    // A login on another phone ends the first phone's session (one session per terminal type).
    const newPhone = await identify(
      await h.login(email, "secret123", { terminalType: "android", terminalName: "New phone" }),
    );
    expect((await oldSocket.next()).scene).toBe(PUSH_SCENES.userLogout);
    expect((await oldSocket.closedWith()).code).toBe(PUSH_CLOSE.loggedOut);
    // Connects that arrive together are checked together: only the revoked token is refused.
    const burst = await Promise.all(
      [newPhone, oldPhone, bob, oldPhone, newPhone].map(({ token }) =>
        PushClient.open(`${base}/ws?token=${token}`),
      ),
    );
    clients.push(...burst);
    for (const refused of [burst[1], burst[3]])
      expect((await refused.closedWith()).code).toBe(PUSH_CLOSE.tokenInvalid);
    for (const accepted of [burst[0], burst[2], burst[4]]) await accepted.ready();
    for (const client of burst) client.close();
  });

  it("refuses a socket whose terminal logged out while its token was being checked", async () => {
    // A hub of its own whose token lookup answers when the test says so.
    const app = Fastify();
    await app.register(websocket);
    const lookups: Array<() => void> = [];
    const rows = new Map<string, PushIdentity>([
      ["ending", { userId: 1, terminalId: 7, role: "user" }],
      ["staying", { userId: 1, terminalId: 8, role: "user" }],
    ]);
    const hub = createPushHub({
      events: domainEvents(createInProcessBus()),
      // Reads the rows when it starts, as the database query would.
      authenticate: (token) =>
        new Promise((resolve) => {
          const found = rows.get(token) ?? null;
          lookups.push(() => resolve(found));
        }),
      log: app.log,
    });
    hub.register(app);
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `${address.replace(/^http/, "ws")}/ws?token=`;
      const [ending, staying] = await Promise.all([
        PushClient.open(`${url}ending`),
        PushClient.open(`${url}staying`),
      ]);
      await eventually(() => lookups.length === 2);
      // Terminal 7 logs out after its row was read, before the answer came back.
      rows.delete("ending");
      hub.toTerminal(7, {
        scene: PUSH_SCENES.userLogout,
        body: { loginIp: "203.0.113.9", reason: LOGOUT_REASON.terminalRemoved },
      });
      for (const answer of lookups) answer();
      expect((await ending.closedWith()).code).toBe(PUSH_CLOSE.tokenInvalid);
      await staying.ready();
      expect(hub.socketCount()).toBe(1);
      staying.close();
    } finally {
      await hub.close();
      await app.close();
    }
  });

  it("closes a socket that sends text frames", async () => {
    const client = await open(bob.token);
    client.socket.send("hello");
    expect((await client.closedWith()).code).toBe(PUSH_CLOSE.unsupportedData);
  });

  it("closes a socket that sends a message above 4 KiB, before holding it", async () => {
    const client = await open(bob.token);
    client.socket.send(Buffer.alloc(64 * 1024));
    expect((await client.closedWith()).code).toBe(PUSH_CLOSE.tooBig);
  });

  it("counts only open, authenticated sockets", async () => {
    for (const client of clients) client.close();
    await eventually(() => h.app.services.push.socketCount() === 0);
    const one = await open(bob.token);
    const two = await open(alice.token);
    expect(h.app.services.push.socketCount()).toBe(2);
    const refused = await PushClient.open(`${base}/ws?token=nope`);
    await refused.closedWith();
    expect(h.app.services.push.socketCount()).toBe(2);
    one.close();
    await eventually(() => h.app.services.push.socketCount() === 1);
    two.close();
    await eventually(() => h.app.services.push.socketCount() === 0);
  });

  it("closes a socket that misses its heartbeats", async () => {
    // A hub of its own with a short timeout, on a real server, with the real token check.
    const app = Fastify();
    await app.register(websocket);
    const hub = createPushHub({
      events: domainEvents(createInProcessBus()),
      authenticate: h.app.services.accounts.authenticate,
      log: app.log,
      heartbeatTimeoutMs: 1000,
      sweepEveryMs: 50,
    });
    hub.register(app);
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `${address.replace(/^http/, "ws")}/ws?token=${bob.token}`;
      const lively = await PushClient.open(url);
      const silent = await PushClient.open(url);
      await lively.ready();
      await silent.ready();
      const beat = setInterval(() => lively.socket.send(PING_FRAME), 200);
      try {
        expect((await silent.closedWith()).code).toBe(PUSH_CLOSE.heartbeatTimeout);
        expect(lively.closed).toBeNull();
        await eventually(() => hub.socketCount() === 1);
      } finally {
        clearInterval(beat);
      }
      await hub.close();
      expect((await lively.closedWith()).code).toBe(PUSH_CLOSE.goingAway);
    } finally {
      await hub.close();
      await app.close();
    }
  });
});
