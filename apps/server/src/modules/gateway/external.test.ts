import { type AlarmPayload, deviceTopic, MQTT_MAX_PACKET } from "@keyway/protocol";
import { sendHugeConnect } from "@keyway/protocol/mqtt-testing";
import type { ProvisionedDevice } from "@keyway/shared";
import { eq } from "drizzle-orm";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { startMosquitto } from "../../testing/mosquitto.ts";
import { deployedMaxPacketLine, largestSoundData } from "../../testing/mqttLimits.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";
import { externalBroker } from "./externalBroker.ts";
import { createDeviceIngest } from "./ingest.ts";

/**
 * External-broker mode against a real Mosquitto (Debian's `mosquitto`): the server is a
 * client of the broker; devices talk to the broker. Also the HTTP hooks an EMQX-style
 * broker calls to authenticate and authorize devices.
 */
let broker: Awaited<ReturnType<typeof startMosquitto>>;
let brokerPort: number;
let h: Harness;
let device: ProvisionedDevice;
let operator: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
  // With the limit on packets Mosquitto is deployed with.
  broker = await startMosquitto([deployedMaxPacketLine()]);
  brokerPort = broker.port;
  // The server's own broker login: the broker hooks accept only callers presenting it.
  h = await createHarness({
    config: { MQTT_URL: `mqtt://keyway-server:hook%20pass@127.0.0.1:${brokerPort}` },
  });
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
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

/** A device's MQTT client at `url` (anonymous: the test broker lets anyone in). */
async function deviceClient(url: string, code: string) {
  const client = mqtt.connect(url, { clientId: code, reconnectPeriod: 0 });
  clients.push(client);
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  return client;
}

const raise = (client: MqttClient, code: string, alarm: Partial<AlarmPayload> & { id: string }) =>
  client.publishAsync(
    deviceTopic(code, "alarm"),
    JSON.stringify({ type: "high", content: "Tank level high", time: Date.now(), ...alarm }),
    { qos: 1 },
  );

const alarmsOf = async (code: string) => {
  const [d] = await h.db.select({ id: devices.id }).from(devices).where(eq(devices.code, code));
  return h.db.select().from(alarms).where(eq(alarms.deviceId, d.id));
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

  it("as deployed, cuts off a device announcing a packet above the limit at once, and passes the largest sound uplink", async () => {
    expect(deployedMaxPacketLine()).toBe(`max_packet_size ${MQTT_MAX_PACKET}`);
    // Before any login: a CONNECT announcing 128 MiB.
    expect(await sendHugeConnect(brokerPort)).toBeLessThan(3000);

    const client = await deviceClient(`mqtt://127.0.0.1:${brokerPort}`, device.machineCode);
    await client.publishAsync(deviceTopic(device.machineCode, "data"), largestSoundData(), {
      qos: 1,
    });
    const cut = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.publish(deviceTopic(device.machineCode, "alarm"), Buffer.alloc(300 * 1024, 0x20), {
      qos: 1,
    });
    await cut;
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

  it("stores several devices' uplinks at once, each device's raises and clears in order", async () => {
    const [slow, quick] = await h.provision(operator, 2);
    const ingest = h.app.services.gateway.ingest;
    const handleUplink = ingest.handleUplink;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    ingest.handleUplink = async (d, ...rest) => {
      if (d.code === slow.machineCode) await held; // a slow database for this device only
      return handleUplink(d, ...rest);
    };
    try {
      const a = await deviceClient(broker.url, slow.machineCode);
      const b = await deviceClient(broker.url, quick.machineCode);
      // Each raise is followed at once by its clear: stored out of order, a clear would
      // match no alarm yet and the alarm would stay on.
      const sent: Promise<unknown>[] = [];
      for (let k = 0; k < 4; k++) {
        sent.push(raise(a, slow.machineCode, { id: `slow-${k}` }));
        sent.push(raise(a, slow.machineCode, { id: `slow-${k}-off`, clears: `slow-${k}` }));
      }
      await Promise.all(sent);
      // The other device's alarm is stored while the slow one's wait.
      await raise(b, quick.machineCode, { id: "quick-1" });
      await until(async () => (await alarmsOf(quick.machineCode)).length === 1);
      expect(await alarmsOf(slow.machineCode)).toHaveLength(0);
      release();
      await until(async () => {
        const rows = await alarmsOf(slow.machineCode);
        return rows.length === 4 && rows.every((r) => r.clearedAt !== null);
      });
    } finally {
      ingest.handleUplink = handleUplink;
      release();
    }
  });

  it("acknowledges an uplink only once its row is stored: a node gone before gets it again", async () => {
    const [d] = await h.provision(operator, 1);
    // A broker of its own, read by one node only: no other node stores the alarm meanwhile.
    const second = await startMosquitto();
    const ingest = createDeviceIngest({ db: h.db, clock: h.clock, log: h.app.log });
    let fail = (_error: Error) => {};
    const dying = externalBroker(
      second.url,
      {
        ...ingest,
        // The database never answers this node.
        handleUplink: () =>
          new Promise((_resolve, reject) => {
            fail = reject;
          }),
      },
      h.app.log,
      1,
    );
    await dying.start();
    try {
      const client = await deviceClient(second.url, d.machineCode);
      await raise(client, d.machineCode, { id: "kept-1" });
      await new Promise((r) => setTimeout(r, 300));
      await dying.close(); // the node goes away before the row is written
      fail(new Error("node stopped"));
      expect(await alarmsOf(d.machineCode)).toHaveLength(0);

      // The same node back (same client id, persistent session): the broker sends it again.
      const revived = externalBroker(second.url, ingest, h.app.log, 1);
      await revived.start();
      try {
        await until(async () => (await alarmsOf(d.machineCode)).length === 1);
        expect((await alarmsOf(d.machineCode))[0].uid).toBe("kept-1");
      } finally {
        await revived.close();
      }
    } finally {
      second.stop();
    }
  });
});
