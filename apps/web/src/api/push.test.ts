import { LOGOUT_REASON, PUSH_SCENES } from "@keyway/protocol/push";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPush, type PushEvent, subscribePush, usePushStore } from "./push.ts";

/*
 * The browser client against the real server (the whole app on a fresh database, real
 * sockets). The server side and Node's `ws` are imported by a computed name: the web
 * project is typechecked with DOM types only, and Node's types would change its timers.
 */
// biome-ignore lint/suspicious/noExplicitAny: modules outside the web project's types
type Any = any;
const load = (name: string): Promise<Any> => import(/* @vite-ignore */ name);

async function eventually(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
}

describe("connectPush", () => {
  let h: Any;
  let origin: string;
  let WebSocket: Any;
  let net: Any;

  beforeAll(async () => {
    const harness = await load("../../../server/src/testing/harness.ts");
    WebSocket = (await load("ws")).WebSocket;
    net = await load("node:net");
    h = await harness.createHarness();
    origin = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function user(email: string) {
    const token: string = await h.signUp(email);
    const who = await h.app.services.accounts.authenticate(token);
    return { token, userId: who.userId as number, terminalId: who.terminalId as number };
  }

  it("keeps the store and listeners up to date, heartbeats, and closes on close()", async () => {
    const alice = await user("web-alice@example.com");
    const pushes: PushEvent[] = [];
    const heard: PushEvent[] = [];
    const unsubscribe = subscribePush((push) => heard.push(push));
    const connection = connectPush(
      alice.token,
      { onPush: (push) => pushes.push(push) },
      { origin, WebSocket, heartbeatMs: 400 },
    );
    try {
      // The server counts the socket once its token is checked; the client on its "open".
      await eventually(() => h.app.services.push.socketCount() === 1 && connection.connected);
      expect(usePushStore.getState().connected).toBe(true);

      h.app.services.push.toUser(alice.userId, {
        scene: PUSH_SCENES.deviceBind,
        body: { deviceCode: "KW-WEB", deviceId: 5, isResult: 0, auditState: 0, totalUnreadMsg: 12 },
      });
      await eventually(() => pushes.length === 1);
      expect(pushes[0]).toMatchObject({
        scene: PUSH_SCENES.deviceBind,
        body: { deviceCode: "KW-WEB", deviceId: 5, totalUnreadMsg: 12 },
      });
      expect(heard).toEqual(pushes);
      expect(usePushStore.getState().unread).toBe(12);
      expect(usePushStore.getState().lastPush).toBe(pushes[0]);

      // With a 400 ms heartbeat the client drops a connection silent for 1.2 s: the server's
      // pongs keep it open over five periods.
      await new Promise((r) => setTimeout(r, 2000));
      expect(connection.connected).toBe(true);
    } finally {
      connection.close();
      unsubscribe();
    }
    await eventually(() => h.app.services.push.socketCount() === 0);
    expect(usePushStore.getState().connected).toBe(false);
  });

  it("reconnects after a lost connection", async () => {
    const bob = await user("web-bob@example.com");
    // A TCP relay in front of the server, so the connection can be cut as a network would.
    const cut: Any[] = [];
    const relay = net.createServer((inbound: Any) => {
      const outbound = net.connect(new URL(origin).port, "127.0.0.1");
      inbound.pipe(outbound).pipe(inbound);
      inbound.on("error", () => {});
      outbound.on("error", () => {});
      cut.push(inbound, outbound);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const relayOrigin = `http://127.0.0.1:${relay.address().port}`;
    const pushes: PushEvent[] = [];
    let reconnects = 0;
    const connection = connectPush(
      bob.token,
      {
        onPush: (push) => pushes.push(push),
        onReconnect: () => {
          reconnects += 1;
        },
      },
      { origin: relayOrigin, WebSocket, reconnectMs: 200 },
    );
    try {
      // Open on both ends (the server counts it before the client has read its answer).
      await eventually(() => h.app.services.push.socketCount() === 1 && connection.connected);
      // The first opening is no reconnection.
      expect(reconnects).toBe(0);
      for (const socket of cut.splice(0)) socket.destroy();
      await eventually(() => !connection.connected);
      await eventually(() => connection.connected && h.app.services.push.socketCount() === 1);
      // Told once it is back: what was pushed meanwhile (nothing replays it) is read again.
      expect(reconnects).toBe(1);
      h.app.services.push.toUser(bob.userId, {
        scene: PUSH_SCENES.massTexting,
        body: { content: "back again", totalUnreadMsg: 1 },
      });
      await eventually(() => pushes.length === 1);
      expect(pushes[0]).toMatchObject({ body: { content: "back again" } });
    } finally {
      connection.close();
      relay.close();
      for (const socket of cut) socket.destroy();
    }
  });

  it("on a logout push calls onLogout and does not reconnect", async () => {
    const carol = await user("web-carol@example.com");
    const logouts: unknown[] = [];
    const connection = connectPush(
      carol.token,
      { onLogout: (body) => logouts.push(body) },
      { origin, WebSocket, reconnectMs: 50 },
    );
    try {
      await eventually(() => h.app.services.push.socketCount() === 1);
      h.app.services.push.toTerminal(carol.terminalId, {
        scene: PUSH_SCENES.userLogout,
        body: { loginIp: "203.0.113.1", reason: LOGOUT_REASON.loginElsewhere },
      });
      await eventually(() => logouts.length === 1);
      expect(logouts[0]).toMatchObject({ loginIp: "203.0.113.1", reason: 1 });
      expect(usePushStore.getState().lastPush?.scene).toBe(PUSH_SCENES.userLogout);
      await eventually(() => h.app.services.push.socketCount() === 0);
      await new Promise((r) => setTimeout(r, 300)); // several reconnect periods
      expect(h.app.services.push.socketCount()).toBe(0);
      expect(connection.connected).toBe(false);
    } finally {
      connection.close();
    }
  });

  it("stops on a refused token", async () => {
    let refused = 0;
    const connection = connectPush(
      "not-a-token",
      { onRefused: () => refused++ },
      { origin, WebSocket, reconnectMs: 50 },
    );
    await eventually(() => refused === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(refused).toBe(1);
    expect(connection.connected).toBe(false);
  });
});
