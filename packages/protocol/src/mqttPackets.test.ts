import fc from "fast-check";
import mqtt from "mqtt";
import mqttPacket, { type Packet } from "mqtt-packet";
import { describe, expect, it } from "vitest";
import {
  limitMqttPackets,
  MQTT_MAX_CONNECT,
  MQTT_MAX_PACKET,
  watchPacketSizes,
} from "./mqttPackets.ts";
import { CONNACK, startHugePacketServer } from "./mqttTesting.ts";

/** Packets as mqtt-packet (mqtt.js's and Aedes' own encoder) writes them. */
const encode = (packet: Packet) => mqttPacket.generate(packet);
const publish = (payloadBytes: number): Packet => ({
  cmd: "publish",
  topic: "kw/v1/KW-1/data",
  payload: Buffer.alloc(payloadBytes, 0x41),
  qos: 1,
  messageId: 7,
  retain: false,
  dup: false,
});
const connect: Packet = {
  cmd: "connect",
  protocolId: "MQTT",
  protocolVersion: 4,
  clean: true,
  clientId: "KW-1-ab",
  keepalive: 30,
  username: "KW-1",
  password: Buffer.from("secret"),
};
const small: Packet[] = [
  connect,
  { cmd: "connack", returnCode: 0, sessionPresent: false },
  { cmd: "pingreq" },
  { cmd: "pingresp" },
  { cmd: "puback", messageId: 9 },
  { cmd: "subscribe", messageId: 3, subscriptions: [{ topic: "kw/v1/KW-1/cmd", qos: 1 }] },
  { cmd: "disconnect" },
];

/** `bytes` cut at the given points, each piece a view as a socket's reads would be. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const p of [...at, bytes.length]) {
    pieces.push(bytes.subarray(from, p));
    from = p;
  }
  return pieces;
}

/** What the watcher refused while the pieces went by, and how many bytes it had been given. */
function feed(pieces: Buffer[], max = MQTT_MAX_PACKET) {
  const refusals: number[] = [];
  let given = 0;
  const watch = watchPacketSizes(max, (size) => refusals.push(size));
  for (const piece of pieces) {
    if (refusals.length) break;
    watch(piece);
    given += piece.length;
  }
  return { refusals, given };
}

const soundPacket = fc.oneof(
  fc.constantFrom(...small),
  // Up to the limit exactly: the largest sound packet passes.
  fc.integer({ min: 0, max: MQTT_MAX_PACKET - 40 }).map(publish),
);

describe("watchPacketSizes: MQTT packets above the limit, refused at their header", () => {
  it("lets any run of sound packets through, however the reads cut it", () => {
    fc.assert(
      fc.property(
        fc.array(soundPacket, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (packets, points) => {
          const bytes = Buffer.concat(packets.map(encode));
          expect(feed(cut(bytes, points)).refusals).toEqual([]);
        },
      ),
      { numRuns: 300, seed: 223 },
    );
  });

  it("takes a packet of exactly the limit, and refuses one byte more", () => {
    let payload = MQTT_MAX_PACKET - 64;
    while (encode(publish(payload)).length < MQTT_MAX_PACKET) payload++;
    const fits = encode(publish(payload));
    const over = encode(publish(payload + 1));
    expect([fits.length, over.length]).toEqual([MQTT_MAX_PACKET, MQTT_MAX_PACKET + 1]);
    expect(feed([fits]).refusals).toEqual([]);
    expect(feed([over]).refusals).toEqual([MQTT_MAX_PACKET + 1]);
  });

  it("refuses a huge packet after sound ones from its header alone, before its body arrives", () => {
    fc.assert(
      fc.property(
        fc.array(soundPacket, { maxLength: 6 }),
        fc.integer({ min: MQTT_MAX_PACKET + 1, max: 4 * MQTT_MAX_PACKET }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (before, announced, points) => {
          const sound = Buffer.concat(before.map(encode));
          // Only the head of the huge packet is sent: a hostile party announces it and
          // trickles the rest.
          const huge = encode(publish(announced)).subarray(0, 32);
          const { refusals, given } = feed(cut(Buffer.concat([sound, huge]), points));
          expect(refusals).toHaveLength(1);
          expect(refusals[0]).toBeGreaterThan(MQTT_MAX_PACKET);
          expect(given).toBeLessThanOrEqual(sound.length + 32);
        },
      ),
      { numRuns: 200, seed: 223 },
    );
  });

  it("refuses the largest length MQTT can state (256 MiB) before it has read all of it", () => {
    // Remaining length 268,435,455 (MQTT 3.1.1 §2.2.3, the four-byte maximum), a byte a read.
    const bytes = Buffer.from([0x30, 0xff, 0xff, 0xff, 0x7f, 0, 4]);
    const { refusals, given } = feed([...bytes].map((b) => Buffer.from([b])));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeGreaterThan(MQTT_MAX_PACKET);
    // Three bytes of the length already state more than the limit.
    expect(given).toBe(4);
  });

  it("holds a connection's first packet to its own bound, and the next ones to the other", () => {
    const first = (bytes: number) =>
      encode({ ...(connect as object), password: Buffer.alloc(bytes) } as Packet);
    const refusedAt = (pieces: Buffer[]) => {
      const refusals: number[] = [];
      const watch = watchPacketSizes(
        MQTT_MAX_PACKET,
        (size) => refusals.push(size),
        MQTT_MAX_CONNECT,
      );
      for (const piece of pieces) watch(piece);
      return refusals;
    };
    expect(refusedAt([first(100)])).toEqual([]);
    // Its header alone tells: a CONNECT above MQTT_MAX_CONNECT.
    const big = first(MQTT_MAX_CONNECT);
    expect(refusedAt([big.subarray(0, 8)])).toEqual([big.length]);
    // After the first, a packet of any size up to MQTT_MAX_PACKET passes.
    expect(refusedAt([first(100), encode(publish(100_000))])).toEqual([]);
  });

  it("refuses a remaining length of five bytes, which no MQTT packet has", () => {
    const { refusals } = feed([Buffer.from([0x30, 0x80, 0x80, 0x80, 0x80, 0x01])], 2 ** 30);
    expect(refusals).toEqual([Number.POSITIVE_INFINITY]);
  });

  it("is told once, and reads nothing after its refusal", () => {
    const refusals: number[] = [];
    const watch = watchPacketSizes(1024, (size) => refusals.push(size));
    const huge = encode(publish(4096));
    watch(huge);
    watch(huge);
    expect(refusals).toHaveLength(1);
  });
});

describe("limitMqttPackets: an mqtt.js client held to the limit", () => {
  it("cuts every connection whose server announces a huge packet, those it reconnects included", async () => {
    const server = await startHugePacketServer(CONNACK.v4);
    // mqtt.js reconnects by itself here, each time on a stream of its own.
    const client = mqtt.connect(`mqtt://127.0.0.1:${server.port}`, { reconnectPeriod: 100 });
    client.on("error", () => {});
    const refused: number[] = [];
    limitMqttPackets(client, (announced) => refused.push(announced));
    try {
      const cutAfter = await server.cut(3);
      expect(cutAfter.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...cutAfter)).toBeLessThan(1000);
      expect(refused.length).toBeGreaterThanOrEqual(3);
      expect(refused[0]).toBeGreaterThan(MQTT_MAX_PACKET);
    } finally {
      client.end(true);
      await server.close();
    }
  });
});
