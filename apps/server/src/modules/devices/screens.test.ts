import type { AgentHello } from "@keyway/protocol";
import type { DeviceListPage, Machine, ProvisionedDevice } from "@keyway/shared";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TunnelClient } from "../../../../agent/src/tunnel.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";
import { startRedis, type TestRedis } from "../../testing/redis.ts";
import { until } from "../../testing/until.ts";
import { createRedisTunnelRegistry, helloMany } from "../tunnel/registry.ts";
import { screensFromHellos } from "./screens.ts";

/**
 * Machine.screen (issue 20): the device lists show "Screen" for a device whose agent offers
 * its screen (its hello has `vnc`), with the agents' own tunnel client holding real tunnels.
 */

let h: Harness;
let port: number;
let owner: string;
let operator: string;
let member: string;
let eid: number;
let withVnc: { id: number; device: ProvisionedDevice };
let without: { id: number; device: ProvisionedDevice };
const clients: TunnelClient[] = [];

function tunnel(device: ProvisionedDevice, vnc: boolean) {
  const client = new TunnelClient({
    url: `ws://127.0.0.1:${port}/tunnel`,
    code: device.machineCode,
    secret: device.deviceSecret,
    target: { host: "127.0.0.1", port: 8000 },
    ...(vnc ? { vnc: { host: "127.0.0.1", port: 5900 } } : {}),
    log: () => {},
  });
  client.start();
  clients.push(client);
}

const byId = (list: Machine[], id: number) => list.find((m) => m.machine_id === id);

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  owner = await h.signUp("owner@example.com");
  const [a, b, c] = await h.provision(operator, 3);
  withVnc = { id: (await h.addDevice(owner, a, "Press")).id, device: a };
  without = { id: (await h.addDevice(owner, b, "Oven")).id, device: b };

  // An enterprise device with a screen, seen by an enterprise member.
  member = await h.signUp("member@acme.com");
  const created = await h.call("POST", "/api/operator/v1/enterprises", {
    form: { name: "Acme Plastics", platformName: "Acme Cloud" },
    token: operator,
  });
  eid = created.body.hwdata.eid;
  await h.call("POST", "/api/enterprises/v1/admin/members", {
    form: { eid, account: "member@acme.com", kind: "member", isAdmin: 0 },
    token: operator,
  });
  const assigned = await h.call("POST", "/api/enterprises/v1/admin/devices", {
    form: { eid, machineCode: c.machineCode, type: 1 },
    token: operator,
  });
  expect(assigned.body.hwcode).toBe(0);

  tunnel(a, true);
  tunnel(b, false);
  tunnel(c, true);
  const tunnels = h.app.services.tunnels;
  await until(() => Boolean(tunnels.hello(withVnc.id) && tunnels.hello(without.id)));
  await until(() => Boolean(tunnels.hello(assigned.body.hwdata.machine_id)));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  await h?.close();
});

describe("Machine.screen", () => {
  it("is true on the personal list for a device whose agent offers its screen, false for one that does not", async () => {
    const page = await h.call<DeviceListPage>("POST", "/api/machine/select", { token: owner });
    expect(page.body.hwcode).toBe(0);
    expect(byId(page.body.hwdata.list, withVnc.id)?.screen).toBe(true);
    expect(byId(page.body.hwdata.list, without.id)?.screen).toBe(false);

    const detail = await h.call("GET", `/api/device/v1/detail?deviceId=${withVnc.id}`, {
      token: owner,
    });
    expect(detail.body.hwdata.screen).toBe(true);
  });

  it("follows the agent: gone with its tunnel", async () => {
    const client = clients[0];
    await client.stop();
    await until(() => !h.app.services.tunnels.hello(withVnc.id));
    const page = await h.call<DeviceListPage>("POST", "/api/machine/select", { token: owner });
    expect(byId(page.body.hwdata.list, withVnc.id)?.screen).toBe(false);
    tunnel(withVnc.device, true);
    await until(() => Boolean(h.app.services.tunnels.hello(withVnc.id)));
    const again = await h.call<DeviceListPage>("POST", "/api/machine/select", { token: owner });
    expect(byId(again.body.hwdata.list, withVnc.id)?.screen).toBe(true);
  });

  it("shows on the enterprise list and the enterprise device card", async () => {
    const page = await h.call<DeviceListPage>("POST", "/api/enterprises/enterpriseDeviceList", {
      form: { eid, type: 1, page: 1, pageSize: 50 },
      token: member,
    });
    expect(page.body.hwcode).toBe(0);
    const [machine] = page.body.hwdata.list;
    expect(machine.screen).toBe(true);
    const card = await h.call("POST", "/api/enterprises/machineInfo", {
      form: { eid, machineId: machine.machine_id },
      token: member,
    });
    expect(card.body.hwdata.screen).toBe(true);
  });
});

describe("the screens of devices held by other nodes", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("are read for a whole page in one Redis round trip", async () => {
    const other = createRedisTunnelRegistry({
      url: redis.url,
      self: "http://node-b:3000",
      log: { warn() {} },
    });
    const here = createRedisTunnelRegistry({
      url: redis.url,
      self: "http://node-a:3000",
      log: { warn() {} },
    });
    const hello = (vnc?: string): AgentHello => ({
      version: "1",
      target: "127.0.0.1:8000",
      allow: ["127.0.0.1:8000"],
      ...(vnc ? { vnc } : {}),
    });
    // Node B holds 1 (screen) and 2 (none); node A itself holds 3 (screen); 4 is offline.
    other.held(1, hello("127.0.0.1:5900"));
    other.held(2, hello());
    const local = { hello: (id: number) => (id === 3 ? hello("10.0.0.5:5900") : undefined) };
    const stats = new Redis(redis.url);
    try {
      for (let i = 0; i < 50 && (await stats.exists("keyway:tunnel:2")) === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      await stats.config("RESETSTAT");
      const screens = await screensFromHellos((ids) => helloMany(local, here, ids))([1, 2, 3, 4]);
      expect([...screens].sort()).toEqual([1, 3]);
      const info = await stats.info("commandstats");
      expect(info).toMatch(/cmdstat_mget:calls=1,/);
      expect(info).not.toMatch(/cmdstat_get:/);
    } finally {
      stats.disconnect();
      await other.close();
      await here.close();
    }
  });
});
