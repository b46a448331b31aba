import { LOGOUT_REASON, PUSH_SCENES } from "@keyway/protocol";
import { AUDIT_STATE, MESSAGE_TYPE } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { PushClient } from "../push/testClient.ts";

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
  });
});
