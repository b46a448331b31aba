import {
  formatTrafficKb,
  IOT_CARD_ALARM_TYPES,
  type IotCardWarningKind,
  type IotCardWarningView,
} from "@keyway/shared";
import { and, count, desc, eq, inArray, isNull, notInArray, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";
import { beijingDay } from "./beijingTime.ts";
import type { Context } from "./context.ts";
import { expiringOf, type Figures, lowTrafficOf } from "./figures.ts";
import type { IotCardRow } from "./schema.ts";
import { iso } from "./view.ts";

const WARNING_LEVEL = 2;
const WARNING_TYPES = Object.values(IOT_CARD_ALARM_TYPES);
const KIND_OF_TYPE = new Map<string, IotCardWarningKind>(
  Object.entries(IOT_CARD_ALARM_TYPES).map(([kind, type]) => [type, kind as IotCardWarningKind]),
);

/**
 * Low traffic and a near plan end as alarms of the card's device, once per condition
 * (cleared when the condition ends), and the log of those alarms.
 */
export function createCardWarnings(deps: {
  db: Db;
  clock: Clock;
  /** A warning stored as an alarm: told like the devices' own (messages, pushes, SMS/e-mail). */
  /** Where stored alarms are told ("alarm.stored"). */
  events?: Pick<Events, "publish">;
}) {
  const { db, clock } = deps;

  /**
   * Turns the figures into warnings: a condition that holds is stored as an alarm of the
   * device once (its uid names the card, the warning and the condition: the billing month
   * for traffic, the end date for the plan); one that no longer holds is cleared.
   */
  async function judge(card: IotCardRow, f: Figures): Promise<void> {
    const now = clock.now();
    const wanted: (typeof alarms.$inferInsert)[] = [];
    if (lowTrafficOf(f)) {
      const total = f.totalKb ?? 0;
      const left = Math.max(0, total - (f.usedKb ?? 0));
      const percent = total > 0 ? Math.round((left / total) * 1000) / 10 : 0;
      wanted.push({
        uid: `iotcard-traffic-${card.iccid}-${beijingDay(now).slice(0, 7)}`,
        type: IOT_CARD_ALARM_TYPES.lowTraffic,
        content:
          `4G 卡 ${card.iccid} 流量不足：剩余 ${formatTrafficKb(left)}（${percent}%），套餐 ${formatTrafficKb(total)} / ` +
          `Low traffic on 4G card ${card.iccid}: ${formatTrafficKb(left)} left (${percent}%) of ${formatTrafficKb(total)}`,
        deviceId: card.deviceId,
        variable: card.iccid,
        level: WARNING_LEVEL,
        time: now,
        timeZone: "UTC",
        createdAt: now,
      });
    }
    if (expiringOf(f, now) && f.expiresAt) {
      const day = beijingDay(f.expiresAt);
      const ended = f.expiresAt.getTime() <= now.getTime();
      wanted.push({
        uid: `iotcard-expiry-${card.iccid}-${day}`,
        type: IOT_CARD_ALARM_TYPES.expiry,
        content: ended
          ? `4G 卡 ${card.iccid} 的套餐已于 ${day} 到期 / The plan of 4G card ${card.iccid} ended on ${day}`
          : `4G 卡 ${card.iccid} 的套餐将于 ${day} 到期 / The plan of 4G card ${card.iccid} ends on ${day}`,
        deviceId: card.deviceId,
        variable: card.iccid,
        level: WARNING_LEVEL,
        time: now,
        timeZone: "UTC",
        createdAt: now,
      });
    }
    // Open warnings of this card that are not (or no longer) the current condition end.
    const keep = wanted.map((w) => w.uid);
    await db
      .update(alarms)
      .set({ clearedAt: now })
      .where(
        and(
          eq(alarms.deviceId, card.deviceId),
          inArray(alarms.type, WARNING_TYPES),
          eq(alarms.variable, card.iccid),
          isNull(alarms.clearedAt),
          keep.length > 0 ? notInArray(alarms.uid, keep) : undefined,
        ),
      );
    if (wanted.length === 0) return;
    // The unique (device, uid) makes a repeated read, or two nodes at once, store it once.
    const stored = await db.insert(alarms).values(wanted).onConflictDoNothing().returning();
    for (const alarm of stored) deps.events?.publish("alarm.stored", alarm);
  }

  /** The warnings that became alarms, of the devices a context shows, newest first. */
  async function warningsOf(
    ctx: Context,
    where: (SQL | undefined)[],
    page: { limit: number; offset: number },
  ) {
    const base = and(ctx.where, inArray(alarms.type, WARNING_TYPES), ...where);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({ alarm: alarms, code: devices.code, name: ctx.scope.name })
        .from(alarms)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, alarms.deviceId))
        .innerJoin(devices, eq(devices.id, alarms.deviceId))
        .where(base)
        .orderBy(desc(alarms.time), desc(alarms.id))
        .limit(page.limit)
        .offset(page.offset),
      db
        .select({ total: count() })
        .from(alarms)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, alarms.deviceId))
        .where(base),
    ]);
    const list: IotCardWarningView[] = rows.map(({ alarm, code, name }) => ({
      id: alarm.id,
      kind: KIND_OF_TYPE.get(alarm.type) ?? "lowTraffic",
      iccid: alarm.variable,
      machine_id: alarm.deviceId,
      machine_code: code,
      machine_name: name || code,
      level: alarm.level,
      content: alarm.content,
      time: alarm.time.toISOString(),
      cleared: alarm.clearedAt ? 1 : 0,
      cleared_at: iso(alarm.clearedAt),
      confirmed: alarm.confirmedAt ? 1 : 0,
    }));
    return { list, total };
  }

  return { judge, warningsOf };
}
