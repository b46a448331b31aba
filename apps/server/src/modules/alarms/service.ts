import type { AlarmEntry } from "@keyway/shared";
import { and, count, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { alarms } from "./schema.ts";

export type AlarmService = ReturnType<typeof createAlarmService>;

/** Reading alarms. The caller must have the device in their list. */
export function createAlarmService(deps: { db: Db }) {
  const { db } = deps;

  async function listForDevice(
    userId: number,
    q: { code: string; page: number; pageSize: number },
  ): Promise<{ list: AlarmEntry[]; total: number }> {
    const [device] = await db
      .select({ id: devices.id })
      .from(devices)
      .innerJoin(deviceLinks, eq(deviceLinks.deviceId, devices.id))
      .where(and(eq(devices.code, q.code), eq(deviceLinks.userId, userId)))
      .limit(1);
    if (!device) throw fail("EDIT_MACHINE_NOT_FOUND");
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(alarms)
        .where(eq(alarms.deviceId, device.id))
        .orderBy(desc(alarms.time), desc(alarms.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ total: count() }).from(alarms).where(eq(alarms.deviceId, device.id)),
    ]);
    return {
      list: rows.map((a) => ({
        id: a.id,
        machine_id: a.deviceId,
        type: a.type,
        variable: a.variable,
        level: a.level,
        content: a.content,
        time: a.time.toISOString(),
        time_zone: a.timeZone,
        created_at: a.createdAt.toISOString(),
      })),
      total,
    };
  }

  return { listForDevice };
}
