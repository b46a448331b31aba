import { deviceTopic } from "@keyway/protocol";
import type { ProvisionedDevice } from "@keyway/shared";
import { eq } from "drizzle-orm";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { startMosquitto } from "../../testing/mosquitto.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

/**
 * External-broker mode against a real Mosquitto (Debian's `mosquitto`): the server is a
 * client of the broker; devices talk to the broker. Also the HTTP hooks an EMQX-style
 * broker calls to authenticate and authorize devices.
 */
let broker: Awaited<ReturnType<typeof startMosquitto>>;
let brokerPort: number;
let h: Harness;
let device: ProvisionedDevice;
const clients: MqttClient[] = [];

beforeAll(async () => {
  broker = await startMosquitto();
  brokerPort = broker.port;
  // The server's own broker login: the broker hooks accept only callers presenting it.
  h = await createHarness({
    config: { MQTT_URL: `mqtt://keyway-server:hook%20pass@127.0.0.1:${brokerPort}` },
  });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123");
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  device = res.body.hwdata.list[0];
});
afterAll(async () => {
  for (const c of clients) c.end(true);
  await h?.close();
  broker?.stop();
});

const row = async () =>
  (await h.db.select().from(devices).where(eq(devices.code, device.machineCode)))[0];
const until = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("external broker (Mosquitto)", () => {
  it("follows a device's state and last will, and stores its alarms once", async () => {
    expect(h.app.services.gateway.external).toBe(true);
    const stateTopic = deviceTopic(device.machineCode, "state");
    const client = mqtt.connect(`mqtt://127.0.0.1:${brokerPort}`, {
      clientId: device.machineCode,
      reconnectPeriod: 0,
      will: {
        topic: stateTopic,
        payload: Buffer.from('{"state":"offline"}'),
        qos: 1,
        retain: true,
      },
    });
    clients.push(client);
    await new Promise<void>((resolve) => client.once("connect", () => resolve()));
    await client.publishAsync(stateTopic, JSON.stringify({ state: "online", version: "3.0" }), {
      qos: 1,
      retain: true,
    });
    await until(async () => (await row()).online);
    expect((await row()).version).toBe("3.0");

    const alarm = { id: "ext-1", type: "high", content: "Boiler pressure high", time: Date.now() };
    await client.publishAsync(deviceTopic(device.machineCode, "alarm"), JSON.stringify(alarm), {
      qos: 1,
    });
    await client.publishAsync(deviceTopic(device.machineCode, "alarm"), JSON.stringify(alarm), {
      qos: 1,
    });
    const deviceId = (await row()).id;
    await until(
      async () =>
        (await h.db.select().from(alarms).where(eq(alarms.deviceId, deviceId))).length > 0,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.db.select().from(alarms).where(eq(alarms.deviceId, deviceId))).toHaveLength(1);

    client.stream.destroy(); // the broker publishes the last will
    await until(async () => !(await row()).online);
  });

  it("sends cloud commands through the broker, and the settings when a device comes online", async () => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${brokerPort}`, { reconnectPeriod: 0 });
    clients.push(client);
    await new Promise<void>((resolve) => client.once("connect", () => resolve()));
    await client.subscribeAsync(deviceTopic(device.machineCode, "cmd"), { qos: 1 });
    const received: unknown[] = [];
    client.on("message", (_t, p) => received.push(JSON.parse(p.toString())));
    await h.app.services.gateway.sendCommand(device.machineCode, { type: "locationRefresh" });
    await until(async () => received.length === 1);
    expect(received[0]).toEqual({ type: "locationRefresh" });
    // Announcing itself online (after subscribing) brings the device its settings.
    await client.publishAsync(
      deviceTopic(device.machineCode, "state"),
      JSON.stringify({ state: "online" }),
      { qos: 1, retain: true },
    );
    await until(async () => received.length === 3);
    expect(received.slice(1)).toEqual(
      expect.arrayContaining([
        { type: "cloudSwitch", open: true },
        { type: "locationWay", way: "gps" },
      ]),
    );
  });

  it("answers the broker's auth and ACL hooks, to the broker only", async () => {
    const broker = {
      authorization: `Basic ${Buffer.from("keyway-server:hook pass").toString("base64")}`,
    };
    const auth = (username: string, password: string, clientid = "") =>
      h.app.inject({
        method: "POST",
        url: "/api/internal/v1/mqtt/auth",
        payload: { username, password, clientid },
        headers: broker,
      });
    // Anyone else is refused before any check: no way to test secrets through the hook.
    for (const headers of [
      {},
      { authorization: `Basic ${Buffer.from("keyway-server:guess").toString("base64")}` },
      { authorization: "Bearer hook pass" },
    ]) {
      const refused = await h.app.inject({
        method: "POST",
        url: "/api/internal/v1/mqtt/auth",
        payload: { username: device.machineCode, password: device.deviceSecret },
        headers,
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).not.toHaveProperty("result");
    }
    // The server's own login is the superuser that uses every device's topics.
    expect((await auth("keyway-server", "hook pass")).json()).toEqual({
      result: "allow",
      is_superuser: true,
    });
    expect((await auth("keyway-server", "guess")).json()).toMatchObject({ result: "deny" });
    // A device may use its own client id, never another device's (that would take it over).
    expect(
      (await auth(device.machineCode, device.deviceSecret, `${device.machineCode}-hmi`)).json(),
    ).toMatchObject({ result: "allow", is_superuser: false });
    expect(
      (await auth(device.machineCode, device.deviceSecret, "KW-OTHER-00001-hmi")).json(),
    ).toMatchObject({ result: "deny" });
    expect((await auth(device.machineCode, device.deviceSecret)).json()).toMatchObject({
      result: "allow",
    });
    expect((await auth(device.machineCode, "guess")).json()).toMatchObject({ result: "deny" });
    expect((await auth("KW-00000-00000", device.deviceSecret)).json()).toMatchObject({
      result: "deny",
    });
    const acl = (topic: string, action: string) =>
      h.app.inject({
        method: "POST",
        url: "/api/internal/v1/mqtt/acl",
        payload: { username: device.machineCode, topic, action },
        headers: broker,
      });
    expect((await acl(deviceTopic(device.machineCode, "alarm"), "publish")).json()).toEqual({
      result: "allow",
    });
    expect((await acl(deviceTopic(device.machineCode, "cmd"), "publish")).json()).toEqual({
      result: "deny",
    });
    expect((await acl(deviceTopic("KW-OTHER-00001", "alarm"), "publish")).json()).toEqual({
      result: "deny",
    });
    expect((await acl(deviceTopic(device.machineCode, "cmd"), "subscribe")).json()).toEqual({
      result: "allow",
    });
    expect((await acl("kw/v1/+/cmd", "subscribe")).json()).toEqual({ result: "deny" });
    const unsigned = await h.app.inject({
      method: "POST",
      url: "/api/internal/v1/mqtt/acl",
      payload: { username: device.machineCode, topic: "kw/v1/x/alarm", action: "publish" },
    });
    expect(unsigned.statusCode).toBe(401);
  });
});
