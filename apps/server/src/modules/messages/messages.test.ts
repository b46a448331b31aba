import { LOGOUT_REASON, PUSH_SCENES } from "@keyway/protocol";
import { AUDIT_STATE, MESSAGE_TYPE } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { PushClient } from "../push/testClient.ts";
import { messages } from "./schema.ts";

/**
 * The message centre tells people at once: over real WebSockets of the running app, a
 * visit request reaches the owner's socket, the answer the visitor's, and a login
 * elsewhere ends the other browser's session.
 */

let h: Harness;
let base: string;
const clients: PushClient[] = [];

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
  base = address.replace(/^http/, "ws");
});
afterAll(async () => {
  for (const c of clients) c.close();
  await h?.close();
});

async function socket(token: string) {
  const client = await PushClient.open(`${base}/ws?token=${encodeURIComponent(token)}`);
  clients.push(client);
  await client.ready();
  return client;
}

describe("pushes of the message centre", () => {
  it("pushes a request to the owner and the answer to the visitor, with unread totals", async () => {
    const operator = await h.login("operator@keyway.local", "operator123");
    const [device] = (
      await h.call("POST", "/api/operator/v1/devices/provision", {
        form: { count: 1 },
        token: operator,
      })
    ).body.hwdata.list;
    const owner = await h.signUp("owner@example.com", "secret123", "Owner");
    const visitor = await h.signUp("visitor@example.com", "secret123", "Visitor");
    const added = await h.call("POST", "/api/machine/add", {
      form: {
        machineName: "Mixer",
        machineCode: device.machineCode,
        machinePwd: device.devicePassword,
      },
      token: owner,
    });
    const machineID = added.body.hwdata.machine_id;
    const ownerSocket = await socket(owner);
    const visitorSocket = await socket(visitor);

    const asked = await h.call("POST", "/api/v1/audit/addVisit", {
      form: { machineID, message: "hello" },
      token: visitor,
    });
    expect(await ownerSocket.next()).toMatchObject({
      scene: PUSH_SCENES.deviceVisit,
      body: { deviceId: machineID, deviceCode: device.machineCode, isResult: 0, totalUnreadMsg: 1 },
    });

    await h.call("POST", "/api/v1/audit/visitReply", {
      form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok", visitTime: -1 },
      token: owner,
    });
    expect(await visitorSocket.next()).toMatchObject({
      scene: PUSH_SCENES.deviceVisit,
      body: { isResult: 1, auditState: AUDIT_STATE.allPassed, totalUnreadMsg: 1 },
    });
    // The owner's socket hears of the outcome too (their message can no longer be answered).
    expect(await ownerSocket.next()).toMatchObject({
      scene: PUSH_SCENES.deviceVisit,
      body: { isResult: 1 },
    });
  });

  it("tells the first browser when the account logs in elsewhere, and ends its token", async () => {
    await h.signUp("roamer@example.com", "secret123", "Roamer");
    const first = await h.login("roamer@example.com", "secret123", { terminalUUID: "browser-1" });
    const firstSocket = await socket(first);
    await h.login("roamer@example.com", "secret123", { terminalUUID: "browser-2" });
    expect(await firstSocket.next()).toMatchObject({
      scene: PUSH_SCENES.userLogout,
      body: { reason: LOGOUT_REASON.loginElsewhere },
    });
    await firstSocket.closedWith();
    expect((await h.call("GET", "/api/user/selectInfo", { token: first })).status).toBe(401);
    // The message centre keeps it, with where the other login came from.
    const phone = await h.login("roamer@example.com", "secret123", { terminalType: "android" });
    const inbox = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox" },
      token: phone,
      lang: "en",
    });
    expect(inbox.body.hwdata.list[0]).toMatchObject({ type: MESSAGE_TYPE.logout });
    expect(inbox.body.hwdata.list[0].title).toMatch(/^Your account logged in elsewhere \(.+\)$/);
    expect(inbox.body.hwdata.list.map((m: { title: string }) => m.title).sort()).toEqual([
      expect.stringMatching(/^Your account logged in elsewhere \(Android, .+\)$/),
      expect.stringMatching(/^Your account logged in elsewhere \(Web, .+\)$/),
    ]);
  });
});

describe("logins elsewhere in the message centre", () => {
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary envelopes
  type View = any;

  /** A login of `type` from `ip` on a terminal of its own; its token. */
  async function loginFrom(email: string, type: string, ip: string) {
    const res = await h.call("POST", "/api/user/login", {
      form: {
        loginName: email,
        loginPwd: "secret123",
        terminalUUID: `${type}-${Math.random()}`,
        terminalType: type,
        terminalName: "Vitest",
      },
      ip,
    });
    expect(res.body.hwcode).toBe(0);
    return res.body.hwdata.result.token as string;
  }

  async function inbox(token: string, lang: "cn" | "en" = "en"): Promise<View[]> {
    const res = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox", pageSize: 50 },
      token,
      lang,
    });
    return res.body.hwdata.list;
  }

  const logouts = (list: View[]) => list.filter((m) => m.type === MESSAGE_TYPE.logout);

  async function unread(token: string): Promise<number> {
    return (await h.call("GET", "/api/msg/v1/totalUnread", { token })).body.hwdata.totalUnreadMsg;
  }

  it("keeps one unread message per terminal kind, with the latest address, above a request", async () => {
    const operator = await h.login("operator@keyway.local", "operator123");
    const [device] = await h.provision(operator);
    const phone = await h.signUp("flooded@example.com", "secret123", "Flooded");
    const { id: machineID } = await h.addDevice(phone, device, "Gate");
    const visitor = await h.signUp("guest@example.com", "secret123", "Guest");
    const asked = await h.call("POST", "/api/v1/audit/addVisit", {
      form: { machineID, message: "may I?" },
      token: visitor,
    });
    expect(asked.body.hwcode).toBe(0);

    // Six web logins, a minute apart: each of the last five ends the one before.
    let web = "";
    for (let i = 1; i <= 6; i++) {
      h.clock.advance(60_000);
      web = await loginFrom("flooded@example.com", "web", `203.0.113.${i}`);
    }
    await expect
      .poll(async () => logouts(await inbox(web)).map((m) => m.content))
      .toEqual(["203.0.113.6"]);
    // Then the phone app logs in on another phone: the signed-up phone's session ends.
    h.clock.advance(60_000);
    const otherPhone = await loginFrom("flooded@example.com", "android", "198.51.100.9");
    await expect.poll(async () => logouts(await inbox(otherPhone)).length).toBe(2);

    const list = await inbox(otherPhone);
    // Newest first: the phone's message, the web's, then the visit request, all unread.
    expect(list.map((m) => m.type)).toEqual([
      MESSAGE_TYPE.logout,
      MESSAGE_TYPE.logout,
      MESSAGE_TYPE.visitApplication,
    ]);
    expect(list[0]).toMatchObject({
      read: false,
      content: "198.51.100.9",
      title: "Your account logged in elsewhere (Android, 198.51.100.9)",
    });
    expect(list[1]).toMatchObject({
      read: false,
      content: "203.0.113.6",
      title: "Your account logged in elsewhere (Web, 203.0.113.6)",
    });
    expect(list[2]).toMatchObject({ read: false, canReply: true, machine_id: machineID });
    expect((await inbox(otherPhone, "cn"))[1].title).toBe(
      "您的账号已在其他地方登录（网页，203.0.113.6）",
    );
    expect(await unread(otherPhone)).toBe(3);

    // Read, the web's message is read until the next web login elsewhere: unread again, on
    // top, with that login's address and time.
    await h.call("GET", `/api/msg/v1/detail/${list[1].id}`, { token: otherPhone });
    expect(await unread(otherPhone)).toBe(2);
    h.clock.advance(60_000);
    await loginFrom("flooded@example.com", "web", "203.0.113.7");
    await expect.poll(async () => (await inbox(otherPhone))[0].content).toBe("203.0.113.7");
    const again = await inbox(otherPhone);
    expect(again[0]).toMatchObject({ id: list[1].id, read: false, type: MESSAGE_TYPE.logout });
    expect(again[0].created_at).toBe(h.clock.now().toISOString());
    expect(again).toHaveLength(3);
    expect(await unread(otherPhone)).toBe(3);
  });

  it("leaves one message per kind when logins of that kind come at once", async () => {
    const token = await h.signUp("racer@example.com", "secret123", "Racer");
    const me = await h.call("GET", "/api/user/selectInfo", { token });
    const userId = me.body.hwdata.id as number;
    // Eight logins elsewhere told at once, TV and web alike: one upsert each.
    await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
        h.app.services.messages.terminalsEnded({
          userId,
          terminalIds: [1000 + i],
          reason: LOGOUT_REASON.loginElsewhere,
          loginIp: `192.0.2.${i}`,
          terminalType: i % 2 ? "tv" : "web",
        }),
      ),
    );
    // Other reasons leave no message.
    await h.app.services.messages.terminalsEnded({
      userId,
      terminalIds: [2000],
      reason: LOGOUT_REASON.terminalRemoved,
      loginIp: "",
      terminalType: "",
    });
    const rows = await h.db
      .select()
      .from(messages)
      .where(and(eq(messages.userId, userId), eq(messages.type, MESSAGE_TYPE.logout)));
    expect(rows.map((r) => r.replaceKey).sort()).toEqual(["logout:tv", "logout:web"]);
    expect(rows.every((r) => r.readAt === null)).toBe(true);
    expect(await unread(token)).toBe(2);
  });
});
