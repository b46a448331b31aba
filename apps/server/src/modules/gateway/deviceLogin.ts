import { timingSafeEqual } from "node:crypto";
import { type DeviceTopic, deviceTopic, parseDeviceTopic, UPLINK_TOPICS } from "@keyway/protocol";
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { isStorableText } from "../../http/storableText.ts";
import { createBatcher } from "../../infra/batcher.ts";
import { hashToken } from "../../infra/crypto.ts";
import { devices } from "../devices/schema.ts";

export interface DeviceIdentity {
  id: number;
  code: string;
}

/** Who may log in as a device, and which topics and client ids each device may use. */
export function createDeviceLogin(deps: { db: Db }) {
  const { db } = deps;

  /**
   * Devices looked up together are read in one query: a reconnect storm is thousands of
   * logins at once (docs/architecture/scale-out.md). Nothing is cached, so a changed or
   * revoked secret counts from the next login on.
   */
  const lookup = createBatcher<string, { id: number; code: string; secretHash: string } | null>(
    async (codes) => {
      const rows = await db
        .select({ id: devices.id, code: devices.code, secretHash: devices.secretHash })
        .from(devices)
        .where(inArray(devices.code, [...new Set(codes)]));
      const byCode = new Map(rows.map((row) => [row.code, row]));
      return codes.map((code) => byCode.get(code) ?? null);
    },
    500,
  );

  // A NUL in the code (MQTT CONNECT, the tunnel's Basic credentials) names no device; sent
  // to the database it would be an error, not a refusal.
  const find = (code: string) =>
    isStorableText(code) ? lookup.submit(code.trim().toUpperCase()) : Promise.resolve(null);

  async function identify(code: string): Promise<DeviceIdentity | null> {
    const device = await find(code);
    return device && { id: device.id, code: device.code };
  }

  async function authenticate(code: string | undefined, secret: string | undefined) {
    if (!code || !secret) return null;
    const device = await find(code);
    const given = Buffer.from(hashToken(secret));
    if (!device || !timingSafeEqual(given, Buffer.from(device.secretHash))) return null;
    return { id: device.id, code: device.code };
  }

  function mayPublish(device: DeviceIdentity, topic: string): DeviceTopic | null {
    const parsed = parseDeviceTopic(topic);
    if (!parsed || parsed.machineCode !== device.code || !UPLINK_TOPICS.includes(parsed.topic))
      return null;
    return parsed.topic;
  }

  function maySubscribe(device: DeviceIdentity, topic: string): boolean {
    return topic === deviceTopic(device.code, "cmd");
  }

  /**
   * The MQTT client ids a device may use with a broker that cannot rename them (the external
   * broker's auth hook): its machine code, `<code>-anything`, or none (the broker picks one).
   * Another device's id would let it take over (disconnect) that device's session.
   */
  function mayUseClientId(device: DeviceIdentity, clientId: string | undefined): boolean {
    const id = (clientId ?? "").toUpperCase();
    return id === "" || id === device.code || id.startsWith(`${device.code}-`);
  }

  return { identify, authenticate, mayPublish, maySubscribe, mayUseClientId };
}
