import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { deviceTopic } from "@keyway/protocol";
import { CONNACK, startHugePacketServer } from "@keyway/protocol/mqtt-testing";
import { Aedes } from "aedes";
import fc from "fast-check";
import mqttPacket from "mqtt-packet";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { AGENT_BUNDLE, buildAgent } from "../build.mjs";
import {
  type AgentProcess,
  hmiStatus,
  kill9,
  ROOT,
  spawnSimulatedDevice,
  until,
} from "./testing.ts";

/**
 * A hostile cloud on the agent's MQTT session, against the agent as a device runs it (its
 * bundle, where mqtt.js runs on Node's own streams: build.mjs, decision 221). The agent must
 * stay up, ignore commands that do not parse, keep following the ones that do, and close and
 * dial again a connection whose bytes are not MQTT (mqtt.js alone kept it, "online", until its
 * keepalive ran out 45 s later).
 */

const device = { machineCode: "KW-HOSTILE-CLOUD", deviceSecret: randomBytes(16).toString("hex") };
const agents: AgentProcess[] = [];
const servers: Server[] = [];
const brokers: Aedes[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "kw-mqtt-fuzz-"));
const bundle = [process.execPath, "--max-semi-space-size=8", relative(ROOT, AGENT_BUNDLE)];

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    }),
  );
}

async function start(port: number, scheme = "mqtt"): Promise<AgentProcess> {
  const agent = await spawnSimulatedDevice({
    server: `${scheme}://127.0.0.1:${port}`,
    device,
    dataDir: mkdtempSync(join(dataDir, "agent-")),
    extra: ["--backoff-max", "1", "--location-every", "0"],
    command: bundle,
  });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  await buildAgent();
});

afterEach(async () => {
  for (const agent of agents.splice(0)) await kill9(agent);
  for (const broker of brokers.splice(0))
    await new Promise<void>((resolve) => broker.close(() => resolve()));
});

afterAll(async () => {
  for (const server of servers) server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What a hostile cloud publishes on a device's command topic. */
const hostileCommand = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
  fc.json().map((text) => Buffer.from(text)),
  fc
    .record({
      type: fc.oneof(
        fc.constantFrom("cloudSwitch", "locationWay", "config", "openTunnel", "__proto__"),
        fc.string(),
      ),
      open: fc.anything(),
      way: fc.anything(),
      values: fc.anything(),
      target: fc.anything(),
    })
    .map((command) => Buffer.from(JSON.stringify(command) ?? "null")),
  // Large but within MQTT_MAX_PACKET: read, found malformed, ignored.
  fc.constant(Buffer.alloc(200 * 1024, "{")),
);

describe("keyway-agent's bundle against a hostile cloud on MQTT", { timeout: 120_000 }, () => {
  it("ignores commands that do not parse, and follows the next one that does", async () => {
    const broker = new Aedes();
    await broker.listen();
    // Closed after the test even when it fails, so that a failure does not hold the run open.
    brokers.push(broker);
    let subscribed = false;
    broker.on("subscribe", (subscriptions) => {
      if (subscriptions.some((s) => s.topic === deviceTopic(device.machineCode, "cmd"))) {
        subscribed = true;
      }
    });
    const port = await listen(createServer(broker.handle));
    const agent = await start(port);
    await until(async () => subscribed && (await hmiStatus(agent)).connection === "online", {
      log: agent.text,
    });
    const publish = (payload: Buffer) =>
      new Promise<void>((resolve, reject) =>
        broker.publish(
          {
            cmd: "publish",
            topic: deviceTopic(device.machineCode, "cmd"),
            payload,
            qos: 1,
            retain: false,
            dup: false,
          },
          (error) => (error ? reject(error) : resolve()),
        ),
      );

    const hostile = fc.sample(hostileCommand, { numRuns: 600, seed: 221 });
    for (const payload of hostile) await publish(payload);
    // A sound command after them all: the session still reads and follows the cloud.
    await publish(Buffer.from(JSON.stringify({ type: "cloudSwitch", open: false })));
    await until(async () => (await hmiStatus(agent)).cloudSwitch === false, { log: agent.text });

    expect(agent.child.exitCode).toBeNull();
    expect(agent.text()).toContain("ignored malformed command");
    expect((await hmiStatus(agent)).connection).toBe("online");
  });

  it("drops a connection whose bytes after CONNACK are not MQTT, and dials again", async () => {
    const garbage = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 4096 }), {
      numRuns: 20,
      seed: 221,
    });
    const connections: Socket[] = [];
    const port = await listen(
      createServer((socket) => {
        const n = connections.push(socket) - 1;
        socket.on("error", () => {});
        socket.once("data", () => {
          // CONNACK, accepted; then a packet of the reserved type 0 and random bytes.
          socket.write(Buffer.from([0x20, 0x02, 0x00, 0x00]));
          setTimeout(
            () => socket.write(Buffer.concat([Buffer.from([0x00, 0x00]), garbage[n % 20]])),
            50,
          );
        });
      }),
    );
    const agent = await start(port);
    await until(async () => connections.length >= 4, { log: agent.text, timeoutMs: 60_000 });
    expect(agent.child.exitCode).toBeNull();
    // Each connection was given up by the agent, not held open on bytes it cannot read.
    await until(async () => connections.slice(0, 3).every((socket) => socket.closed), {
      log: agent.text,
    });
    expect(
      agent.text().match(/connection: online -> offline/g)?.length ?? 0,
    ).toBeGreaterThanOrEqual(3);
    for (const socket of connections) socket.destroy();
  });

  it("closes a connection at once when the cloud announces a packet above 256 KiB, over TCP and WebSocket, and dials again", async () => {
    // A hostile cloud: CONNACK, then a PUBLISH announcing 128 MiB whose bytes trickle in. Without
    // the limit the agent would hold them (all of them, if they came) and wait for the rest
    // until its keepalive ran out, 45 s later.
    const hostile = await startHugePacketServer(CONNACK.v4);
    const agent = await start(hostile.port);
    try {
      await until(async () => hostile.cutAfter.length >= 2, { log: agent.text, timeoutMs: 30_000 });
    } finally {
      await hostile.close();
    }
    const cutOffAfter = [...hostile.cutAfter];
    const follow = (close: (listener: () => void) => void) => {
      const sent = Date.now();
      close(() => cutOffAfter.push(Date.now() - sent));
    };
    expect(agent.child.exitCode).toBeNull();
    expect(agent.text()).toMatch(/mqtt packet of \d+ bytes refused/);

    // Over WebSocket: one message larger than any packet may be is refused by its length too.
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => wss.once("listening", resolve));
    wss.on("connection", (socket) => {
      socket.once("message", () => {
        socket.send(CONNACK.v4);
        // A whole PUBLISH of 300 KiB on the device's command topic, in one message.
        socket.send(
          mqttPacket.generate({
            cmd: "publish",
            topic: deviceTopic(device.machineCode, "cmd"),
            payload: Buffer.alloc(300 * 1024, "{"),
            qos: 0,
            retain: false,
            dup: false,
          }),
        );
        follow((listener) => socket.once("close", listener));
      });
    });
    const address = wss.address();
    const wsPort = typeof address === "object" && address ? address.port : 0;
    const overWs = await start(wsPort, "ws");
    await until(async () => cutOffAfter.length >= 4, { log: overWs.text, timeoutMs: 30_000 });
    wss.close();
    expect(overWs.child.exitCode).toBeNull();
    // Each connection was closed by the agent within seconds of the announcement.
    expect(Math.max(...cutOffAfter)).toBeLessThan(5000);
  });
});
