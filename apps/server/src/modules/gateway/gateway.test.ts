import { type Socket, connect as tcpConnect } from "node:net";
import { type AlarmPayload, deviceTopic } from "@keyway/protocol";
import { HUGE_LENGTH, sendHugeConnect } from "@keyway/protocol/mqtt-testing";
import { eq } from "drizzle-orm";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../infra/crypto.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { largestSoundData } from "../../testing/mqttLimits.ts";
import { strangerWebSocketMessage } from "../../testing/websocketStranger.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

let h: Harness;
let port: number;
let operator: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  port = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
});
afterAll(async () => {
  for (const c of clients) c.end(true);
  for (const s of sockets) s.destroy();
  await h.close();
});

const provision = async () => (await h.provision(operator, 1, "MT8071iE"))[0];

/** The server's HTTP port (MQTT over WebSocket at /mqtt), listening from the first ask. */
let listening: Promise<number> | undefined;
const httpPort = () => {
  listening ??= h.app.listen({ port: 0, host: "127.0.0.1" }).then(() => {
    const address = h.app.server.address();
    return typeof address === "object" && address ? address.port : 0;
  });
  return listening;
};

/**
 * Connects as a device, over TCP or MQTT over WebSocket (the HTTP port's /mqtt); resolves on
 * CONNACK, rejects on refusal.
 */
async function connect(
  code: string,
  secret: string,
  opts: mqtt.IClientOptions = {},
  over: "tcp" | "ws" = "tcp",
): Promise<MqttClient> {
  const url =
    over === "ws" ? `ws://127.0.0.1:${await httpPort()}/mqtt` : `mqtt://127.0.0.1:${port}`;
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, {
      username: code,
      password: secret,
      clientId: `${code}-${Math.random().toString(16).slice(2, 8)}`,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      ...opts,
    });
    clients.push(client);
    client.once("connect", () => resolve(client));
    client.once("error", (error) => reject(error));
    client.once("close", () => reject(new Error("closed")));
  });
}

const publish = (client: MqttClient, topic: string, payload: unknown) =>
  client.publishAsync(topic, JSON.stringify(payload), { qos: 1 });

async function deviceRow(code: string) {
  const [row] = await h.db.select().from(devices).where(eq(devices.code, code));
  return row;
}

/** A bare MQTT 3.1.1 CONNECT: a device whose link can go silent without closing. */
function connectPacket(clientId: string, username: string, password: string, keepalive: number) {
  const str = (v: string) => {
    const b = Buffer.from(v);
    return Buffer.concat([Buffer.from([b.length >> 8, b.length & 255]), b]);
  };
  const body = Buffer.concat([
    str("MQTT"),
    Buffer.from([4, 0xc2, keepalive >> 8, keepalive & 255]), // level 4; user, password, clean
    str(clientId),
    str(username),
    str(password),
  ]);
  return Buffer.concat([Buffer.from([0x10, body.length]), body]); // body < 128 bytes
}

/** Opens a raw TCP link, sends CONNECT and resolves with the CONNACK return code. */
async function rawConnect(code: string, secret: string, keepalive: number) {
  const socket: Socket = tcpConnect(port, "127.0.0.1");
  sockets.push(socket);
  const returnCode = await new Promise<number>((resolve, reject) => {
    socket.once("data", (d) => resolve(d[3]));
    socket.once("error", reject);
    socket.write(connectPacket(`${code}-raw`, code, secret, keepalive));
  });
  return { socket, returnCode };
}
const sockets: Socket[] = [];

const until = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("device gateway", () => {
  it("refuses a wrong secret and an unknown code", async () => {
    const d = await provision();
    await expect(connect(d.machineCode, "wrong-secret")).rejects.toThrow(
      /Bad username or password|Not authorized|closed/i,
    );
    await expect(connect("KW-00000-00000", d.deviceSecret)).rejects.toThrow();
  });

  it("checks each login's own secret when many arrive at once, and follows a changed one", async () => {
    const [a, b] = await h.provision(operator, 2, "MT8071iE");
    // Logins arriving together are looked up together: each still gets its own answer.
    const right = (i: number) => i % 4 < 2;
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => {
        const d = i % 2 ? a : b;
        return connect(d.machineCode, right(i) ? d.deviceSecret : `${d.deviceSecret}0`);
      }),
    );
    expect(attempts.map((x) => x.status)).toEqual(
      attempts.map((_, i) => (right(i) ? "fulfilled" : "rejected")),
    );
    // A wrong secret stays wrong however often it is tried after a right one.
    for (let i = 0; i < 3; i++) await expect(connect(a.machineCode, "guess")).rejects.toThrow();
    // A secret changed in the database counts from the next login on: the old one is refused.
    await h.db
      .update(devices)
      .set({ secretHash: hashToken("rotated-secret") })
      .where(eq(devices.code, a.machineCode));
    await expect(connect(a.machineCode, a.deviceSecret)).rejects.toThrow();
    await connect(a.machineCode, "rotated-secret");
  });

  it("marks a device online while connected and offline when it goes away", async () => {
    const d = await provision();
    const client = await connect(d.machineCode, d.deviceSecret, {
      will: {
        topic: deviceTopic(d.machineCode, "state"),
        payload: Buffer.from('{"state":"offline"}'),
        qos: 1,
        retain: true,
      },
    });
    await publish(client, deviceTopic(d.machineCode, "state"), {
      state: "online",
      version: "2.1.0",
      ip: "10.0.0.7",
    });
    await until(async () => (await deviceRow(d.machineCode)).online);
    expect(await deviceRow(d.machineCode)).toMatchObject({ version: "2.1.0", ip: "10.0.0.7" });
    expect((await deviceRow(d.machineCode)).lastSeenAt).toBeInstanceOf(Date);

    client.stream.destroy(); // an abrupt loss, as when the site's power fails
    await until(async () => !(await deviceRow(d.machineCode)).online);

    const back = await connect(d.machineCode, d.deviceSecret);
    await until(async () => (await deviceRow(d.machineCode)).online);
    await back.endAsync();
    await until(async () => !(await deviceRow(d.machineCode)).online);
  });

  it("after a storm of connections and goodbyes, each device shows its last state", async () => {
    const fleet = await h.provision(operator, 30, "MT8071iE");
    const connected = await Promise.all(fleet.map((d) => connect(d.machineCode, d.deviceSecret)));
    // Half leave at once, some of them while their "online" may still be queued.
    await Promise.all(connected.slice(0, 15).map((c) => c.endAsync()));
    const states = async () =>
      Promise.all(fleet.map(async (d) => (await deviceRow(d.machineCode)).online));
    const expected = fleet.map((_, i) => i >= 15);
    await until(async () => JSON.stringify(await states()) === JSON.stringify(expected));
    // Settled: nothing flips afterwards.
    await new Promise((r) => setTimeout(r, 300));
    expect(await states()).toEqual(expected);
    await Promise.all(connected.slice(15).map((c) => c.endAsync()));
  });

  it("stores an alarm before acknowledging it, once even when the publish is retried", async () => {
    const d = await provision();
    const told: Array<{ uid: string }> = [];
    const unsubscribe = h.app.services.events.subscribe("alarm.stored", (a) => told.push(a));
    const client = await connect(d.machineCode, d.deviceSecret);
    const alarm: AlarmPayload = {
      id: "a-1",
      type: "high",
      variable: "Tank1.Level",
      level: 3,
      content: "Tank 1 level above 95%",
      time: Date.parse("2026-11-21T07:59:00Z"),
      timeZone: "Asia/Shanghai",
    };
    // publishAsync resolves on PUBACK: the row must exist by then.
    await publish(client, deviceTopic(d.machineCode, "alarm"), alarm);
    const device = await deviceRow(d.machineCode);
    const stored = await h.db.select().from(alarms).where(eq(alarms.deviceId, device.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      uid: "a-1",
      type: "high",
      variable: "Tank1.Level",
      level: 3,
      content: "Tank 1 level above 95%",
      timeZone: "Asia/Shanghai",
    });
    expect(stored[0].time.toISOString()).toBe("2026-11-21T07:59:00.000Z");

    await publish(client, deviceTopic(d.machineCode, "alarm"), alarm); // the retry
    await publish(client, deviceTopic(d.machineCode, "alarm"), { ...alarm, id: "a-2" });
    // A burst (written together in one statement) with a retry inside it: still once each.
    const burst = { ...alarm, id: "a-3" };
    await Promise.all([
      publish(client, deviceTopic(d.machineCode, "alarm"), burst),
      publish(client, deviceTopic(d.machineCode, "alarm"), burst),
      publish(client, deviceTopic(d.machineCode, "alarm"), { ...alarm, id: "a-4" }),
    ]);
    const after = await h.db.select().from(alarms).where(eq(alarms.deviceId, device.id));
    expect(after.map((a) => a.uid).sort()).toEqual(["a-1", "a-2", "a-3", "a-4"]);
    // Each stored alarm is published on the bus once, for the message centre and notifications.
    expect(told.map((a) => a.uid).sort()).toEqual(["a-1", "a-2", "a-3", "a-4"]);
    unsubscribe();
  });

  it("acknowledges and drops uplinks the database cannot store, without failing others", async () => {
    const [bad, good] = [await provision(), await provision()];
    const [badClient, goodClient] = [
      await connect(bad.machineCode, bad.deviceSecret),
      await connect(good.machineCode, good.deviceSecret),
    ];
    const alarm: AlarmPayload = {
      id: "n-1",
      type: "high",
      variable: "Tank1.Level",
      level: 3,
      content: "Tank 1 level above 95%",
      time: Date.parse("2026-11-21T07:59:00Z"),
      timeZone: "UTC",
    };
    // Alarms arriving together share one INSERT: a NUL (or a lone surrogate in a key) in one
    // of them must not fail the other device's, nor leave its own unacknowledged (retried
    // for ever). Every publish below resolves on its PUBACK.
    await Promise.all([
      publish(badClient, deviceTopic(bad.machineCode, "alarm"), { ...alarm, content: "a\u0000b" }),
      publish(badClient, deviceTopic(bad.machineCode, "alarm"), { ...alarm, id: "n-2\ud800" }),
      publish(goodClient, deviceTopic(good.machineCode, "alarm"), alarm),
    ]);
    await publish(badClient, deviceTopic(bad.machineCode, "state"), {
      state: "online",
      version: "\u0000",
    });
    const [badRow, goodRow] = [await deviceRow(bad.machineCode), await deviceRow(good.machineCode)];
    expect(await h.db.select().from(alarms).where(eq(alarms.deviceId, badRow.id))).toEqual([]);
    const stored = await h.db.select().from(alarms).where(eq(alarms.deviceId, goodRow.id));
    expect(stored.map((a) => a.uid)).toEqual(["n-1"]);
    expect(badRow.version).not.toContain("\u0000");
    await Promise.all([badClient.endAsync(), goodClient.endAsync()]);
  });

  it("cuts off a device that publishes to another device's topic or subscribes to it", async () => {
    const [mine, other] = [await provision(), await provision()];
    const client = await connect(mine.machineCode, mine.deviceSecret);
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.publish(
      deviceTopic(other.machineCode, "alarm"),
      JSON.stringify({ id: "x", type: "t", content: "forged", time: Date.now() }),
      { qos: 1 },
    );
    await closed;
    const otherRow = await deviceRow(other.machineCode);
    expect(await h.db.select().from(alarms).where(eq(alarms.deviceId, otherRow.id))).toHaveLength(
      0,
    );

    const again = await connect(mine.machineCode, mine.deviceSecret);
    // A negative SUBACK (0x80): refused, but the device stays connected.
    await expect(
      again.subscribeAsync(deviceTopic(other.machineCode, "cmd"), { qos: 1 }),
    ).rejects.toThrow(/Subscribe error/);
    expect(again.connected).toBe(true);
    const own = await again.subscribeAsync(deviceTopic(mine.machineCode, "cmd"), { qos: 1 });
    expect(own[0].qos).toBe(1);
  });

  it("cuts off a hostile party announcing a packet above 256 KiB (a CONNECT above 8 KiB) at once, before login and after, over TCP and WebSocket", async () => {
    // Before any login: a CONNECT announcing 128 MiB, its body streamed as fast as TCP goes,
    // and one announcing 100 KiB (a device's is under 1 KiB). Aedes alone holds every byte
    // until the packet is whole, or its connect timeout (30 s) runs out.
    // Each gets less than it announced: the packet never completes.
    for (const [remainingLength, chunks] of [
      [HUGE_LENGTH, 64],
      [[0x80, 0x80, 0x06], 4],
    ] as const) {
      expect(await sendHugeConnect(port, remainingLength, chunks)).toBeLessThan(3000);
    }

    // Over WebSocket, ws holds a whole message before anything parses it: a stranger's
    // message announcing 100 KiB is refused at its frame header, as its CONNECT would be.
    const refused = await strangerWebSocketMessage(await httpPort(), "/mqtt", 100 * 1024, {
      "Sec-WebSocket-Protocol": "mqtt",
    });
    expect(refused.closeCodes).toEqual([1009]);
    expect(refused.ms).toBeLessThan(3000);

    // After login: a device publishing 300 KiB is cut off; nothing of it is stored.
    const d = await provision();
    const tooBig = (client: MqttClient) => {
      const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
      client.publish(deviceTopic(d.machineCode, "alarm"), Buffer.alloc(300 * 1024, 0x20), {
        qos: 1,
      });
      return closed;
    };
    await tooBig(await connect(d.machineCode, d.deviceSecret));
    await tooBig(await connect(d.machineCode, d.deviceSecret, {}, "ws"));

    // The largest sound uplink still goes through.
    const largest = largestSoundData();
    expect(largest.length).toBeGreaterThan(185 * 1024);
    for (const over of ["tcp", "ws"] as const) {
      const device = await connect(d.machineCode, d.deviceSecret, {}, over);
      const cut = new Promise<never>((_, reject) =>
        device.once("close", () => reject(new Error(`the largest uplink cut off over ${over}`))),
      );
      cut.catch(() => {});
      await Promise.race([
        device.publishAsync(deviceTopic(d.machineCode, "data"), largest, { qos: 1 }),
        cut,
      ]);
      expect(device.connected).toBe(true);
    }
    const row = await deviceRow(d.machineCode);
    expect(await h.db.select().from(alarms).where(eq(alarms.deviceId, row.id))).toHaveLength(0);
  });

  it("delivers a cloud command to the device's cmd topic", async () => {
    const d = await provision();
    const client = await connect(d.machineCode, d.deviceSecret);
    await client.subscribeAsync(deviceTopic(d.machineCode, "cmd"), { qos: 1 });
    const received = new Promise<string>((resolve) =>
      // Its settings come first (on subscribing): wait for the command sent below.
      client.on("message", (_t, payload) => {
        if (payload.toString().includes('"open":false')) resolve(payload.toString());
      }),
    );
    await h.app.services.gateway.sendCommand(d.machineCode, { type: "cloudSwitch", open: false });
    expect(JSON.parse(await received)).toEqual({ type: "cloudSwitch", open: false });
  });

  it("accepts devices over MQTT-over-WebSocket on the HTTP port", async () => {
    const d = await provision();
    const client = await connect(d.machineCode, d.deviceSecret, {}, "ws");
    await publish(client, deviceTopic(d.machineCode, "alarm"), {
      id: "ws-1",
      type: "low",
      content: "Pressure low",
      time: Date.now(),
    });
    const device = await deviceRow(d.machineCode);
    expect(device.online).toBe(true);
    expect(await h.db.select().from(alarms).where(eq(alarms.deviceId, device.id))).toHaveLength(1);
  });

  it("answers the state calls from the connection, for the caller's own devices", async () => {
    const d = await provision();
    const owner = await h.signUp(`owner-${Date.now()}@example.com`);
    const added = await h.call("POST", "/api/machine/add", {
      form: { machineName: "Kiln", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token: owner,
    });
    const machineId = added.body.hwdata.machine_id;
    const states = () =>
      h.call("POST", "/api/machine/getMachineStates", {
        form: { machineCodes: d.machineCode },
        token: owner,
      });
    expect((await states()).body.hwdata.list).toMatchObject([
      { machine_id: machineId, state: 0, online: false, last_seen: null },
    ]);
    const client = await connect(d.machineCode, d.deviceSecret);
    await until(async () => (await states()).body.hwdata.list[0].online === true);
    const all = await h.call("POST", "/api/machine/machineStates", {
      form: { machineIds: String(machineId) },
      token: owner,
    });
    expect(all.body.hwdata.list[0]).toMatchObject({ state: 1, online: true });
    const single = await h.call("POST", "/api/machine/getMachineState", {
      form: { machineCode: d.machineCode },
      token: owner,
    });
    expect(single.body.hwdata).toEqual({ state: 1, online: true });
    const stranger = await h.signUp(`stranger-${Date.now()}@example.com`);
    const theirs = await h.call("POST", "/api/machine/getMachineStates", {
      form: { machineCodes: d.machineCode },
      token: stranger,
    });
    expect(theirs.body.hwdata.list).toEqual([]);
    await client.endAsync();
  });

  it("turns the cloud switch for the Akey and tells the device", async () => {
    const d = await provision();
    const owner = await h.signUp(`akey-${Date.now()}@example.com`);
    const added = await h.call("POST", "/api/machine/add", {
      form: { machineName: "Mixer", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token: owner,
    });
    const machineId = added.body.hwdata.machine_id;
    const client = await connect(d.machineCode, d.deviceSecret);
    await client.subscribeAsync(deviceTopic(d.machineCode, "cmd"), { qos: 1 });
    const received = new Promise<string>((resolve) =>
      client.on("message", (_t, p) => {
        if (p.toString().includes('"open":false')) resolve(p.toString());
      }),
    );
    const off = await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId, state: 0 },
      token: owner,
    });
    expect(off.body.hwdata).toEqual({ machine_id: machineId, cloud_service: 0 });
    expect(JSON.parse(await received)).toEqual({ type: "cloudSwitch", open: false });
    const read = await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId },
      token: owner,
    });
    expect(read.body.hwdata.cloud_service).toBe(0);
    expect(
      (await h.call("GET", `/api/device/v1/detail?deviceId=${machineId}`, { token: owner })).body
        .hwdata.cloud_service,
    ).toBe(0);
    const stranger = await h.signUp(`other-${Date.now()}@example.com`);
    const refused = await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId, state: 1 },
      token: stranger,
    });
    expect(refused.body.hwcode).toBe("04010412");
  });

  it("lists a device's alarms newest first, six to a page, to its users only", async () => {
    const d = await provision();
    const owner = await h.signUp(`alarms-${Date.now()}@example.com`);
    await h.call("POST", "/api/machine/add", {
      form: { machineName: "Oven", machineCode: d.machineCode, machinePwd: d.devicePassword },
      token: owner,
    });
    const client = await connect(d.machineCode, d.deviceSecret);
    const base = Date.parse("2026-11-21T06:00:00Z");
    for (let i = 0; i < 8; i++) {
      await publish(client, deviceTopic(d.machineCode, "alarm"), {
        id: `n${i}`,
        type: "high",
        content: `Alarm ${i}`,
        time: base + i * 60_000,
      });
    }
    const first = await h.call("GET", `/api/v1/devices/alarms?deviceCode=${d.machineCode}&page=1`, {
      token: owner,
    });
    expect(first.body.hwdata.total).toBe(8);
    expect(first.body.hwdata.list).toHaveLength(6);
    expect(first.body.hwdata.list[0]).toMatchObject({
      content: "Alarm 7",
      type: "high",
      time: "2026-11-21T06:07:00.000Z",
    });
    const second = await h.call(
      "GET",
      `/api/v1/devices/alarms?deviceCode=${d.machineCode}&page=2`,
      { token: owner },
    );
    expect(second.body.hwdata.list.map((a: { content: string }) => a.content)).toEqual([
      "Alarm 1",
      "Alarm 0",
    ]);
    const stranger = await h.signUp(`nosy-${Date.now()}@example.com`);
    const refused = await h.call("GET", `/api/v1/devices/alarms?deviceCode=${d.machineCode}`, {
      token: stranger,
    });
    expect(refused.body.hwcode).toBe("04010412");
  });

  it("raises one offline alarm after the configured time offline", async () => {
    const d = await provision();
    const client = await connect(d.machineCode, d.deviceSecret);
    await until(async () => (await deviceRow(d.machineCode)).online);
    await client.endAsync();
    await until(async () => !(await deviceRow(d.machineCode)).online);
    const device = await deviceRow(d.machineCode);
    const offlineAlarms = () => h.db.select().from(alarms).where(eq(alarms.deviceId, device.id));

    h.clock.advance(14 * 60_000);
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(0);
    h.clock.advance(2 * 60_000);
    await h.app.services.gateway.sweepOffline();
    await h.app.services.gateway.sweepOffline(); // a second sweep adds nothing
    const raised = await offlineAlarms();
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ type: "offline", level: 2 });
    expect(raised[0].content).toContain("offline for more than 15 minutes");
  });

  it("stores the device's automatic location", async () => {
    const d = await provision();
    const client = await connect(d.machineCode, d.deviceSecret);
    await publish(client, deviceTopic(d.machineCode, "location"), {
      lat: 31.23,
      lng: 121.47,
      way: "gps",
      address: "Shanghai",
    });
    expect(await deviceRow(d.machineCode)).toMatchObject({
      lat: 31.23,
      lng: 121.47,
      locationWay: "gps",
      address: "Shanghai",
    });
  });

  it("marks a device whose link goes silent offline, and refuses keepalive 0", async () => {
    const d = await provision();
    // Keepalive 0 would never time out: refused at CONNECT (5, not authorized).
    const never = await rawConnect(d.machineCode, d.deviceSecret, 0);
    expect(never.returnCode).toBe(5);
    expect(await deviceRow(d.machineCode)).toMatchObject({ online: false });
    // Above the maximum (20 minutes) a dead link would stay "online" too long: refused too.
    expect((await rawConnect(d.machineCode, d.deviceSecret, 3600)).returnCode).toBe(5);
    await expect(connect(d.machineCode, d.deviceSecret, { keepalive: 0 })).rejects.toThrow(
      /Not authorized|closed/i,
    );

    // A half-open link: connected, then nothing more (no pings), the socket left open.
    const silent = await rawConnect(d.machineCode, d.deviceSecret, 1);
    expect(silent.returnCode).toBe(0);
    await until(async () => (await deviceRow(d.machineCode)).online);
    await until(async () => !(await deviceRow(d.machineCode)).online, 5000);
    expect(silent.socket.destroyed || silent.socket.readableEnded).toBe(true);
  });

  it("does not let one device knock another off by reusing its client id", async () => {
    const [victim, intruder] = [await provision(), await provision()];
    const id = `${victim.machineCode}-main`;
    const own = await connect(victim.machineCode, victim.deviceSecret, { clientId: id });
    await until(async () => (await deviceRow(victim.machineCode)).online);
    let kicked = false;
    own.once("close", () => {
      kicked = true;
    });
    const other = await connect(intruder.machineCode, intruder.deviceSecret, { clientId: id });
    await until(async () => (await deviceRow(intruder.machineCode)).online);
    await new Promise((r) => setTimeout(r, 300));
    expect(kicked).toBe(false);
    expect(own.connected).toBe(true);
    expect((await deviceRow(victim.machineCode)).online).toBe(true);
    // The device's own reconnection with its id still takes over its old session.
    const again = await connect(victim.machineCode, victim.deviceSecret, { clientId: id });
    await until(async () => kicked);
    expect(again.connected).toBe(true);
    await other.endAsync();
  });

  it("tells a device the settings it missed each time it subscribes to its commands", async () => {
    const d = await provision();
    const owner = await h.signUp(`away-${Date.now()}@example.com`);
    const { id: machineId } = await h.addDevice(owner, d, "Away");
    // Changed while the device is not connected at all.
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId, state: 0 },
      token: owner,
    });
    await h.call("POST", "/api/machine/machineAutoLocationWay", {
      form: { machineId, way: "base" },
      token: owner,
    });
    for (let round = 0; round < 2; round++) {
      const client = await connect(d.machineCode, d.deviceSecret);
      const received: unknown[] = [];
      client.on("message", (_t, p) => received.push(JSON.parse(p.toString())));
      await client.subscribeAsync(deviceTopic(d.machineCode, "cmd"), { qos: 1 });
      await until(async () => received.length >= 2);
      expect(received).toEqual(
        expect.arrayContaining([
          { type: "cloudSwitch", open: false },
          { type: "locationWay", way: "base" },
        ]),
      );
      await client.endAsync();
    }
  });

  it("keeps the user's location way when the device reports another one", async () => {
    const d = await provision();
    const owner = await h.signUp(`way-${Date.now()}@example.com`);
    const { id: machineId } = await h.addDevice(owner, d, "Way");
    await h.call("POST", "/api/machine/machineAutoLocationWay", {
      form: { machineId, way: "ip" },
      token: owner,
    });
    const client = await connect(d.machineCode, d.deviceSecret);
    await publish(client, deviceTopic(d.machineCode, "location"), { lat: 1, lng: 2, way: "gps" });
    expect(await deviceRow(d.machineCode)).toMatchObject({ locationWay: "ip", lat: null });
    await publish(client, deviceTopic(d.machineCode, "location"), { lat: 3, lng: 4, way: "ip" });
    expect(await deviceRow(d.machineCode)).toMatchObject({ locationWay: "ip", lat: 3, lng: 4 });
  });

  it("answers testMachineState from the connection, for the caller's own devices only", async () => {
    const d = await provision();
    const owner = await h.signUp(`tls-${Date.now()}@example.com`);
    await h.addDevice(owner, d, "Press");
    const test = (testUrl: string, token: string) =>
      h.call("POST", "/api/tls/testMachineState", { form: { testUrl }, token, lang: "en" });
    expect((await test(d.machineCode, owner)).body.hwdata).toMatchObject({
      state: 0,
      online: false,
    });
    const client = await connect(d.machineCode, d.deviceSecret);
    await until(async () => (await deviceRow(d.machineCode)).online);
    const byUrl = await test(`https://visit.example.com/?machineCode=${d.machineCode}`, owner);
    expect(byUrl.body.hwdata).toEqual({ state: 1, online: true, machine_code: d.machineCode });
    expect((await test(d.machineCode.toLowerCase(), owner)).body.hwdata.online).toBe(true);

    const stranger = await h.signUp(`tls-stranger-${Date.now()}@example.com`);
    const refused = await test(d.machineCode, stranger);
    expect(refused.body).toMatchObject({ hwcode: "04010412", msg: "Device does not exist" });
    expect(refused.body.hwdata).toBeNull();
    await client.endAsync();
  });

  it("refuses the broker hooks without an external broker's login", async () => {
    const d = await provision();
    for (const [url, payload] of [
      ["/api/internal/v1/mqtt/auth", { username: d.machineCode, password: d.deviceSecret }],
      [
        "/api/internal/v1/mqtt/acl",
        { username: d.machineCode, topic: deviceTopic(d.machineCode, "alarm"), action: "publish" },
      ],
    ] as const) {
      const res = await h.app.inject({ method: "POST", url, payload });
      expect(res.statusCode).toBe(401);
      expect(res.json()).not.toHaveProperty("result");
      const basic = await h.app.inject({
        method: "POST",
        url,
        payload,
        headers: { authorization: `Basic ${Buffer.from("any:thing").toString("base64")}` },
      });
      expect(basic.statusCode).toBe(401);
    }
  });

  it("shows the location way and type in the Machine", async () => {
    const d = await provision();
    const owner = await h.signUp(`machine-${Date.now()}@example.com`);
    const { id: machineId } = await h.addDevice(owner, d, "Lathe");
    const detail = async () =>
      (await h.call("GET", `/api/device/v1/detail?deviceId=${machineId}`, { token: owner })).body
        .hwdata;
    expect(await detail()).toMatchObject({ locationWay: "gps", locationType: "auto" });
    await h.call("POST", "/api/machine/machineManualLocation", {
      form: { machineId, lat: 22.5, lng: 114.1, address: "Shenzhen" },
      token: owner,
    });
    expect(await detail()).toMatchObject({ locationWay: "manual", locationType: "manual" });
    const list = await h.call("POST", "/api/machine/select", {
      form: { terminalID: "t", version: "3.1.8" },
      token: owner,
    });
    const listed = JSON.stringify(list.body.hwdata);
    expect(listed).toContain('"locationType":"manual"');
    expect(listed).toContain('"locationWay":"manual"');
  });
});
