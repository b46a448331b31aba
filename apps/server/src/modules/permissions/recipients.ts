import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import { deviceLinks } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import { seesHeldDevice } from "./scopes.ts";

/** A personal member who takes the device's alarms, under the name they gave it. */
export interface PersonalRecipient {
  userId: number;
  name: string;
}

/** An enterprise member who sees the device in a list of their enterprise. */
export interface EnterpriseRecipient {
  eid: number;
  /** The list holding it: 1 enterprise devices, 2 maintenance devices. */
  type: number;
  /** The enterprise's name for the device. */
  name: string;
  userId: number;
  kind: "member" | "maintenance";
  isAdmin: boolean;
}

/** Who receives one device's alarms and messages. */
export interface DeviceRecipients {
  /** Personal members whose alarm level is on (visitors start without), in link order. */
  personal: PersonalRecipient[];
  /** Enterprise members of the lists holding it, by enterprise then user. */
  enterprise: EnterpriseRecipient[];
  /**
   * The enterprises holding it (with at least one member), with their name for it: their
   * own contacts and webhook are told too.
   */
  holders: { eid: number; name: string }[];
}

/**
 * Who receives the alarms and messages of devices, batched: the same two queries for any
 * number of devices (docs/architecture/permissions.md).
 */
export function createRecipients(db: Db) {
  async function recipients(deviceIds: number[]): Promise<Map<number, DeviceRecipients>> {
    const ids = [...new Set(deviceIds)];
    const out = new Map<number, DeviceRecipients>();
    if (ids.length === 0) return out;
    const [personal, enterprise] = await Promise.all([
      db
        .select({
          deviceId: deviceLinks.deviceId,
          userId: deviceLinks.userId,
          name: deviceLinks.name,
        })
        .from(deviceLinks)
        .where(and(anyOf(deviceLinks.deviceId, ids), eq(deviceLinks.receivesAlarms, true)))
        .orderBy(asc(deviceLinks.id)),
      db
        .select({
          deviceId: enterpriseDevices.deviceId,
          eid: enterpriseDevices.enterpriseId,
          type: enterpriseDevices.type,
          name: enterpriseDevices.name,
          userId: enterpriseMembers.userId,
          kind: enterpriseMembers.kind,
          isAdmin: enterpriseMembers.isAdmin,
          sees: sql<boolean>`${seesHeldDevice}`,
        })
        .from(enterpriseDevices)
        .innerJoin(
          enterpriseMembers,
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
        )
        .where(anyOf(enterpriseDevices.deviceId, ids))
        .orderBy(asc(enterpriseDevices.enterpriseId), asc(enterpriseMembers.userId)),
    ]);
    const of = (deviceId: number) => {
      let r = out.get(deviceId);
      if (!r) {
        r = { personal: [], enterprise: [], holders: [] };
        out.set(deviceId, r);
      }
      return r;
    };
    for (const { deviceId, ...p } of personal) of(deviceId).personal.push(p);
    for (const { deviceId, sees, ...e } of enterprise) {
      const r = of(deviceId);
      if (!r.holders.some((h) => h.eid === e.eid)) r.holders.push({ eid: e.eid, name: e.name });
      if (sees) r.enterprise.push(e);
    }
    return out;
  }

  /**
   * Per device, every user told of its alarms with the name they know it by: their personal
   * name for it over an enterprise's.
   */
  async function audience(deviceIds: number[]): Promise<Map<number, Map<number, string>>> {
    const out = new Map<number, Map<number, string>>();
    for (const [deviceId, r] of await recipients(deviceIds)) {
      const names = new Map<number, string>();
      for (const e of r.enterprise) names.set(e.userId, e.name);
      for (const p of r.personal) names.set(p.userId, p.name);
      out.set(deviceId, names);
    }
    return out;
  }

  return { recipients, audience };
}
