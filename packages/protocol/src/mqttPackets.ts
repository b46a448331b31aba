/**
 * The largest MQTT packet, fixed header included, that Keyway takes: the embedded broker from
 * a device, the agent from the cloud, the reporting transport from a customer's broker,
 * Mosquitto as deployed (deploy/mosquitto/keyway.conf `max_packet_size`). The largest sound
 * packet is a device's `data` uplink: at most 100 tags of 64 characters with values of 256
 * (device.ts), under 200 KiB even with every character written as a six-byte `\uXXXX`
 * escape; commands are far smaller. MQTT itself allows 256 MiB, which a hostile party could
 * make a broker or an agent hold (docs/security.md, decision 223).
 */
export const MQTT_MAX_PACKET = 256 * 1024;

/**
 * The largest CONNECT the embedded broker takes: the one packet anyone may send before logging
 * in, so what a stranger can make it hold per connection until its connect timeout (30 s). A
 * device's CONNECT (client id of at most 64 characters, machine code, secret, its last will of
 * `state`) is under 1 KiB.
 */
export const MQTT_MAX_CONNECT = 8 * 1024;

/**
 * Follows the packet boundaries of the bytes an MQTT connection receives, in order, and calls
 * `refuse` once, as soon as a packet's fixed header announces more than `max` bytes in all
 * (`firstMax` for the connection's first packet), or a remaining length of more than four
 * bytes, which MQTT forbids: before its body has arrived, so that the connection is closed
 * instead of held. Reads only the headers; the bodies are skipped by count. Used as a stream's
 * 'data' listener, `refuse` is also given the stream (the listener's `this`), so that one
 * `refuse` serves every connection: a broker keeps only this function's state per connection.
 */
export function watchPacketSizes<Source = unknown>(
  max: number,
  refuse: (announced: number, source: Source) => void,
  firstMax = max,
): (this: Source, chunk: Uint8Array) => void {
  let limit = firstMax;
  /** Body bytes of the current packet still to come. */
  let skip = 0;
  /** -1: at a packet's first byte; 0–3: that many bytes of its remaining length read. */
  let lengthBytes = -1;
  let length = 0;
  let multiplier = 1;
  let refused = false;
  return function (this: Source, chunk) {
    if (refused) return;
    const n = chunk.length;
    let at = 0;
    while (at < n) {
      if (skip > 0) {
        const take = Math.min(skip, n - at);
        skip -= take;
        at += take;
        continue;
      }
      if (lengthBytes < 0) {
        // The packet type and flags: the broker's and the client's parsers judge them.
        at++;
        lengthBytes = 0;
        length = 0;
        multiplier = 1;
        continue;
      }
      const byte = chunk[at++];
      length += (byte & 0x7f) * multiplier;
      multiplier *= 128;
      lengthBytes++;
      const size = 1 + lengthBytes + length;
      if (size > limit || (byte & 0x80 && lengthBytes === 4)) {
        refused = true;
        refuse(byte & 0x80 && lengthBytes === 4 ? Number.POSITIVE_INFINITY : size, this);
        return;
      }
      if (byte & 0x80) continue;
      skip = length;
      lengthBytes = -1;
      limit = max;
    }
  };
}

/** What limitMqttPackets needs of an mqtt.js client (MqttClient). */
interface MqttJsClient {
  stream: { on(event: "data", listener: (chunk: Buffer) => void): unknown; destroy(): unknown };
}

/**
 * Holds an mqtt.js client to MQTT_MAX_PACKET on what it receives: its connection is destroyed
 * (mqtt.js then closes, or dials again if it reconnects) as soon as a packet above it is
 * announced, and `refused` is told. mqtt.js gathers any packet MQTT allows until it is whole,
 * and applies MQTT 5's Maximum Packet Size only after that. Its stream is read by a pipe, so
 * a second 'data' listener sees the same bytes in order; each reconnect makes a new stream
 * with the client's stream builder, which is wrapped (a private field in mqtt.js' types).
 */
export function limitMqttPackets(client: object, refused: (announced: number) => void): void {
  const own = client as MqttJsClient & {
    streamBuilder: (client: object) => MqttJsClient["stream"];
  };
  const watch = (stream: MqttJsClient["stream"]) => {
    stream.on(
      "data",
      watchPacketSizes(MQTT_MAX_PACKET, (announced) => {
        refused(announced);
        stream.destroy();
      }),
    );
    return stream;
  };
  // mqtt.connect() has made the first stream already.
  watch(own.stream);
  const build = own.streamBuilder;
  own.streamBuilder = (self) => watch(build(self));
}
