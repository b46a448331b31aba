import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceRecipients, Permissions } from "../permissions/service.ts";
import { alarmContacts, deviceSmsSwitches, entMsgConfigs, userMsgConfigs } from "./schema.ts";

export type Recipients = Awaited<ReturnType<typeof readRecipients>>;

const NOBODY: DeviceRecipients = { personal: [], enterprise: [], holders: [] };

/**
 * What planning the alarms of these devices reads: the devices, who receives their alarms
 * (the permissions module's rule: personal links, enterprise lists and members), those
 * users' and enterprises' settings, the SMS switches and the contacts. Read once for a
 * whole batch of alarms.
 */
export async function readRecipients(
  db: Db,
  permissions: Pick<Permissions, "recipients">,
  deviceIds: number[],
) {
  const ids = [...new Set(deviceIds)];
  const [deviceRows, byDevice, switches] = await Promise.all([
    db.select().from(devices).where(anyOf(devices.id, ids)),
    permissions.recipients(ids),
    db.select().from(deviceSmsSwitches).where(anyOf(deviceSmsSwitches.deviceId, ids)),
  ]);
  const all = [...byDevice.values()];
  const eids = [...new Set(all.flatMap((r) => r.holders.map((h) => h.eid)))];
  const userIds = [
    ...new Set(all.flatMap((r) => [...r.personal, ...r.enterprise].map((p) => p.userId))),
  ];
  const [userRows, userCfgs, entCfgs, contacts] = await Promise.all([
    userIds.length ? db.select().from(users).where(inArray(users.id, userIds)) : [],
    userIds.length
      ? db.select().from(userMsgConfigs).where(inArray(userMsgConfigs.userId, userIds))
      : [],
    eids.length ? db.select().from(entMsgConfigs).where(inArray(entMsgConfigs.eid, eids)) : [],
    userIds.length || eids.length
      ? db
          .select()
          .from(alarmContacts)
          .where(
            or(
              userIds.length
                ? and(eq(alarmContacts.eid, 0), inArray(alarmContacts.userId, userIds))
                : sql`false`,
              eids.length
                ? and(inArray(alarmContacts.eid, eids), eq(alarmContacts.userId, 0))
                : sql`false`,
            ),
          )
          .orderBy(alarmContacts.id)
      : [],
  ]);
  return {
    deviceRows,
    /** Who receives a device's alarms (nobody when it is in no list). */
    of: (deviceId: number) => byDevice.get(deviceId) ?? NOBODY,
    switches,
    userRows,
    userCfgs,
    entCfgs,
    contacts,
  };
}
