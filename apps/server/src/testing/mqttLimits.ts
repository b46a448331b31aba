import { readFileSync } from "node:fs";
import path from "node:path";

/** deploy/mosquitto/keyway.conf's `max_packet_size` line: Mosquitto's limit as deployed. */
export function deployedMaxPacketLine(): string {
  const conf = readFileSync(
    path.resolve(import.meta.dirname, "../../../../deploy/mosquitto/keyway.conf"),
    "utf8",
  );
  const line = /^max_packet_size \d+$/m.exec(conf)?.[0];
  if (!line) throw new Error("deploy/mosquitto/keyway.conf sets no max_packet_size");
  return line;
}

/**
 * The largest `data` uplink the device protocol admits (100 tags of 64 characters with values
 * of 256: packages/protocol/src/device.ts), every character written as a six-byte \u escape:
 * 187 KiB of JSON.
 */
export function largestSoundData(): string {
  const escaped = (n: number) => "\\u6f22".repeat(n);
  const tags = Array.from(
    { length: 100 },
    (_, i) => `"${escaped(62)}${String(i).padStart(2, "0")}":"${escaped(256)}"`,
  );
  return `{"time":${Date.now()},"values":{${tags.join(",")}}}`;
}
