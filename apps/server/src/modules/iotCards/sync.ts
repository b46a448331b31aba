import { iccidField } from "@keyway/shared";
import { and, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { devices } from "../devices/schema.ts";
import type { CarrierAdapter } from "./carriers/carrier.ts";
import { iotCards } from "./schema.ts";

/**
 * Cards follow what the devices report (devices.iccid, from their `state` message): a new
 * ICCID becomes a card, a card moved to another device follows it, a card its device no
 * longer reports is marked deleted. `deviceIds` limits the work to those devices.
 */
export function createCardSync(deps: { db: Db; clock: Clock; carrier: CarrierAdapter }) {
  const { db, clock, carrier } = deps;
  return async function sync(deviceIds?: number[]): Promise<void> {
    if (deviceIds && deviceIds.length === 0) return;
    const inScope = deviceIds ? inArray(devices.id, deviceIds) : undefined;
    const reported = await db
      .select({ id: devices.id, iccid: devices.iccid })
      .from(devices)
      .where(and(ne(devices.iccid, ""), inScope));
    const now = clock.now();
    const rows = reported
      .map((d) => ({ deviceId: d.id, iccid: d.iccid.trim().toUpperCase() }))
      .filter((d) => iccidField.safeParse(d.iccid).success);
    for (let i = 0; i < rows.length; i += 1000) {
      await db
        .insert(iotCards)
        .values(
          rows
            .slice(i, i + 1000)
            .map((r) => ({ ...r, carrier: carrier.name, createdAt: now, state: "unknown" })),
        )
        .onConflictDoUpdate({
          target: iotCards.iccid,
          set: {
            deviceId: sql`excluded.device_id`,
            removedAt: null,
            state: sql`case when ${iotCards.state} = 'deleted' then 'unknown' else ${iotCards.state} end`,
          },
          setWhere: sql`${iotCards.deviceId} <> excluded.device_id or ${iotCards.removedAt} is not null`,
        });
    }
    await db
      .update(iotCards)
      .set({ removedAt: now, state: "deleted" })
      .where(
        and(
          isNull(iotCards.removedAt),
          deviceIds ? inArray(iotCards.deviceId, deviceIds) : undefined,
          sql`${iotCards.iccid} <> (select upper(trim(${devices.iccid})) from ${devices} where ${devices.id} = ${iotCards.deviceId})`,
        ),
      );
  };
}
