import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TunnelClient } from "../../../../../agent/src/tunnel.ts";
import type { App } from "../../../app.ts";
import { createTestDatabase } from "../../../db/testing.ts";
import { demoDeviceThrough, startTestNode } from "../../../testing/nodes.ts";
import { freePort } from "../../../testing/ports.ts";
import { startRedis } from "../../../testing/redis.ts";
import { RfbClient, wsTransport } from "../../../testing/rfbClient.ts";
import { GREEN, RED, startVnc, type VncServer } from "../../../testing/vnc.ts";
import { strangerWebSocketMessage } from "../../../testing/websocketStranger.ts";
import { until } from "./remoteTesting.ts";
import { RFB_MAX_CUT_TEXT } from "./rfb.ts";

/**
 * The screen on two nodes (one database, a real redis-server): the viewer's WebSocket lands
 * on the node that does not hold the device's tunnel and is carried to the one that does,
 * where its ticket is claimed and its RFB followed; ending the visit through either node
 * closes the viewer with the visit's own close code. The carrying node takes no large message
 * before the holding node has spoken (decision 230).
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
let vnc: VncServer;
let agent: TunnelClient;
const nodes: { app: App; port: number }[] = [];
let token = "";
let deviceId = 0;

async function call(port: number, path: string, form: Record<string, string | number>) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { cloudtoken: token, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(
      Object.entries(form).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString(),
  });
  // biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
  return (await res.json()) as any;
}

beforeAll(async () => {
  database = await createTestDatabase();
  [redis, vnc] = await Promise.all([startRedis(), startVnc()]);
  const ports = [await freePort(), await freePort()];
  for (const port of ports)
    nodes.push(
      await startTestNode(database.db, port, {
        PUBLIC_URL: `http://localhost:${ports[0]}`,
        REDIS_URL: redis.url,
      }),
    );
  const [a] = nodes;
  const demo = await demoDeviceThrough(a);
  const { device } = demo;
  token = demo.token;
  deviceId = demo.machineID;
  // The tunnel is held by the first node.
  agent = new TunnelClient({
    url: `ws://127.0.0.1:${a.port}/tunnel`,
    code: device.machineCode,
    secret: device.deviceSecret,
    target: { host: "127.0.0.1", port: vnc.port },
    vnc: { host: "127.0.0.1", port: vnc.port },
    log: () => {},
  });
  agent.start();
  await until(async () => Boolean(await nodes[1].app.services.tunnels.locate(deviceId)), 30_000);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  for (const node of nodes) await node.app.close();
  await redis?.stop();
  await vnc?.stop();
  await database?.close();
});

describe("the screen on two nodes", () => {
  it("reaches the device from the node without its tunnel, and closes when the visit ends", async () => {
    const [holder, other] = nodes;
    expect(holder.app.services.tunnels.isOnline(deviceId)).toBe(true);
    expect(other.app.services.tunnels.isOnline(deviceId)).toBe(false);
    await vnc.setColour(RED);
    const v = await call(other.port, "/api/v1/audit/getValidVisitUrl", {
      machineID: deviceId,
      kind: "screen",
    });
    expect(v.hwcode).toBe(0);
    const url = (v.hwdata.ws_url as string).replace(
      `localhost:${holder.port}`,
      `127.0.0.1:${other.port}`,
    );
    const client = await RfbClient.connect(await wsTransport(url));
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
    // The largest clipboard RFB passes: the carrying node raised its bound once the holding
    // node spoke, and the session goes on.
    client.cutText(Buffer.alloc(RFB_MAX_CUT_TEXT, 0x41));
    client.press(0x61);
    await client.untilColour(GREEN);

    const ended = await call(other.port, "/api/device/v1/visits/end", {
      visitId: v.hwdata.visit_id,
    });
    expect(ended.hwdata).toMatchObject({ state: "ended", end_reason: "ended_by_owner" });
    await until(() => client.closed !== null, 5000);
    expect(client.closed).toMatch(new RegExp(`^WebSocket closed 4410 ${HW.VISIT_ENDED.code} `));
  });

  it("drops a stranger's large message on the carrying node at its header", async () => {
    const v = await call(nodes[1].port, "/api/v1/audit/getValidVisitUrl", {
      machineID: deviceId,
      kind: "screen",
    });
    expect(v.hwcode).toBe(0);
    // A wrong ticket and a frame announcing 100 KiB, 1 KiB of it sent, on the node that carries
    // the socket. With the claimed bound from the start it waited for the rest, and then for a
    // close answer that never comes (ws' 30 s).
    const stranger = await strangerWebSocketMessage(
      nodes[1].port,
      `/visit-screen/${v.hwdata.visit_id}?kw_ticket=${"A".repeat(43)}`,
      100 * 1024,
    );
    expect(stranger.status).toBe(101);
    // 1009 at the header; 4403 if the holding node's refusal was read first (then the header
    // still errs and ends the link at once).
    expect([1009, 4403]).toContain(stranger.closeCodes[0]);
    expect(stranger.ms).toBeLessThan(3000);
  });
});
