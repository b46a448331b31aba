import { timingSafeEqual } from "node:crypto";
import { type DeviceTopic, deviceTopic, parseDeviceTopic, UPLINK_TOPICS } from "@keyway/protocol";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { isStorableText } from "../../http/storableText.ts";
import { hashToken } from "../../infra/crypto.ts";
import { devices } from "../devices/schema.ts";

export interface DeviceIdentity {
  id: number;
  code: string;
}

/** Who may log in as a device, and which topics and client ids each device may use. */
export function createDeviceLogin(deps: { db: Db }) {
  const { db } = deps;

  async function identify(code: string): Promise<DeviceIdentity | null> {
    if (!isStorableText(code)) return null;
    const [device] = await db
      .select({ id: devices.id, code: devices.code })
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
    return device ?? null;
  }

  async function authenticate(code: string | undefined, secret: string | undefined) {
    // A NUL in the code (MQTT CONNECT, the tunnel's Basic credentials) names no device; sent
    // to the database it would be an error, not a refusal.
    if (!code || !secret || !isStorableText(code)) return null;
    const [device] = await db
      .select({ id: devices.id, code: devices.code, secretHash: devices.secretHash })
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
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
