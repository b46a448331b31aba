import type { MachineMsgConfig } from "@keyway/shared";
import { and, desc, eq, ilike, inArray, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import { seesHeldDevice } from "../permissions/scopes.ts";
import type { PushAccess } from "./access.ts";
import { todayDeviceCounts } from "./caps.ts";
import { deviceSmsSwitches } from "./schema.ts";
import { flag } from "./wire.ts";

/** The per-device SMS switch of a context, with today's count against the device cap. */
export function createDeviceSwitches(deps: { db: Db; clock: Clock; access: PushAccess }) {
  const { db, clock, access } = deps;
  const todayCounts = (eid: number, userId: number, ids: number[]) =>
    todayDeviceCounts(db, clock.now(), eid, userId, ids);

  /** The caller's devices in a context, with the switch: personal links, or the enterprise's devices. */
  async function listDevices(
    userId: number,
    q: { eid: number; blur?: string; groupId?: number; page: number; pageSize: number },
  ): Promise<{ list: MachineMsgConfig[]; total: number }> {
    const blur = q.blur ? `%${q.blur.replace(/[%_\\]/g, "\\$&")}%` : undefined;
    let base: { id: number; name: string; code: string }[];
    if (q.eid === 0) {
      const where: (SQL | undefined)[] = [eq(deviceLinks.userId, userId)];
      if (q.groupId) where.push(eq(deviceLinks.groupId, q.groupId));
      if (blur) where.push(or(ilike(deviceLinks.name, blur), ilike(devices.code, blur)));
      base = await db
        .select({ id: devices.id, name: deviceLinks.name, code: devices.code })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...where))
        .orderBy(desc(devices.id));
    } else {
      await access.requireMember(userId, q.eid);
      // Only the lists the caller sees (permissions: members the enterprise list,
      // maintenance members the maintenance list, admins both).
      const where: (SQL | undefined)[] = [
        eq(enterpriseDevices.enterpriseId, q.eid),
        seesHeldDevice,
      ];
      if (q.groupId) where.push(eq(enterpriseDevices.groupId, q.groupId));
      if (blur) where.push(or(ilike(enterpriseDevices.name, blur), ilike(devices.code, blur)));
      base = await db
        .selectDistinctOn([devices.id], {
          id: devices.id,
          name: enterpriseDevices.name,
          code: devices.code,
        })
        .from(enterpriseDevices)
        .innerJoin(
          enterpriseMembers,
          and(
            eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
            eq(enterpriseMembers.userId, userId),
          ),
        )
        .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
        .where(and(...where))
        .orderBy(desc(devices.id));
    }
    const total = base.length;
    const page = base.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);
    const ids = page.map((d) => d.id);
    const switchUser = q.eid === 0 ? userId : 0;
    const [switches, counts] = await Promise.all([
      ids.length
        ? db
            .select()
            .from(deviceSmsSwitches)
            .where(
              and(
                inArray(deviceSmsSwitches.deviceId, ids),
                eq(deviceSmsSwitches.eid, q.eid),
                eq(deviceSmsSwitches.userId, switchUser),
              ),
            )
        : [],
      todayCounts(q.eid, switchUser, ids),
    ]);
    const on = new Map(switches.map((s) => [s.deviceId, s.smsFlag]));
    return {
      list: page.map((d) => ({
        machineId: d.id,
        machineName: d.name,
        machineCode: d.code,
        smsFlag: flag(on.get(d.id) ?? true),
        todaySmsCount: counts.get(d.id) ?? 0,
      })),
      total,
    };
  }

  async function setDeviceSwitch(
    userId: number,
    input: { eid: number; machineId: number; smsFlag: boolean },
  ): Promise<MachineMsgConfig> {
    const [dev] = await db.select().from(devices).where(eq(devices.id, input.machineId));
    if (!dev) throw fail("EDIT_MACHINE_NOT_FOUND");
    let name: string;
    if (input.eid === 0) {
      const [link] = await db
        .select()
        .from(deviceLinks)
        .where(and(eq(deviceLinks.deviceId, dev.id), eq(deviceLinks.userId, userId)));
      if (!link) throw fail("DEVICE_NO_PERMISSION");
      name = link.name;
    } else {
      await access.requireAdmin(userId, input.eid);
      const [held] = await db
        .select()
        .from(enterpriseDevices)
        .where(
          and(
            eq(enterpriseDevices.enterpriseId, input.eid),
            eq(enterpriseDevices.deviceId, dev.id),
          ),
        );
      if (!held) throw fail("DEVICE_NO_PERMISSION");
      name = held.name;
    }
    const row = {
      deviceId: dev.id,
      eid: input.eid,
      userId: input.eid === 0 ? userId : 0,
      smsFlag: input.smsFlag,
      updatedAt: clock.now(),
    };
    await db
      .insert(deviceSmsSwitches)
      .values(row)
      .onConflictDoUpdate({
        target: [deviceSmsSwitches.deviceId, deviceSmsSwitches.eid, deviceSmsSwitches.userId],
        set: { smsFlag: row.smsFlag, updatedAt: row.updatedAt },
      });
    const counts = await todayCounts(input.eid, row.userId, [dev.id]);
    return {
      machineId: dev.id,
      machineName: name,
      machineCode: dev.code,
      smsFlag: flag(input.smsFlag),
      todaySmsCount: counts.get(dev.id) ?? 0,
    };
  }

  return { listDevices, setDeviceSwitch };
}
