import { and, eq, gte, isNull } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { anyOf, insertUnnest } from "../../db/unnest.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { type Alarm, alarms } from "../alarms/schema.ts";
import type { Permissions } from "../permissions/service.ts";
import { type NewSend, planSends } from "./plan.ts";
import { readRecipients } from "./recipients.ts";
import { alarmDispatches, alarmSends } from "./schema.ts";

/** Alarms older than this are not caught up after a stop (an SMS that late helps nobody). */
const CATCH_UP_MS = 24 * 60 * 60_000;

/**
 * Dispatch: a stored alarm becomes its send rows, once (alarm_dispatches), and the sends
 * are queued for delivery.
 */
export function createDispatch(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Queues sends for the worker (pg-boss). */
  enqueue: (sendIds: number[]) => Promise<void>;
  /** Who receives a device's alarms. */
  permissions: Pick<Permissions, "recipients">;
}) {
  const { db, clock, log, permissions } = deps;

  /** The sends one alarm makes. */
  async function plan(alarm: Alarm): Promise<NewSend[]> {
    const recipients = await readRecipients(db, permissions, [alarm.deviceId]);
    return planSends(alarm, recipients, clock.now());
  }

  /**
   * Dispatches stored alarms: each alarm's sends commit with its dispatch row, so an alarm is
   * dispatched once whatever the number of nodes or restarts. A batch is read and written in
   * a fixed number of statements (a burst of alarms must not queue one transaction per alarm
   * in front of the gateway's next writes). Returns the send ids.
   */
  async function dispatchAll(alarmIds: number[]): Promise<number[]> {
    if (alarmIds.length === 0) return [];
    const stored = await db.select().from(alarms).where(anyOf(alarms.id, alarmIds));
    if (stored.length === 0) return [];
    const recipients = await readRecipients(
      db,
      permissions,
      stored.map((a) => a.deviceId),
    );
    const plans = new Map(
      stored.map((alarm) => [alarm.id, planSends(alarm, recipients, clock.now())]),
    );
    const ids = await db.transaction(async (tx) => {
      const claimed = await insertUnnest(
        tx,
        alarmDispatches,
        stored.map((a) => ({
          alarmId: a.id,
          sends: plans.get(a.id)?.length ?? 0,
          dispatchedAt: clock.now(),
        })),
        { onConflictDoNothing: true },
      );
      const sends = claimed.flatMap((c) => plans.get(c.alarmId) ?? []);
      const rows = await insertUnnest(tx, alarmSends, sends, { onConflictDoNothing: true });
      const sendIds = rows.map((r) => r.id);
      return sendIds;
    });
    await deps.enqueue(ids);
    return ids;
  }

  const dispatch = (alarmId: number) => dispatchAll([alarmId]);

  /**
   * Alarms arriving in a burst are dispatched together. Should a batch fail, its alarms are
   * tried one by one so that one bad alarm does not hold back the others (the catch-up
   * covers what still fails).
   */
  const dispatcher = createBatcher<number, void>(async (alarmIds) => {
    try {
      await dispatchAll(alarmIds);
    } catch (error) {
      log.warn({ err: error, alarms: alarmIds.length }, "alarm batch not dispatched: one by one");
      for (const alarmId of alarmIds)
        await dispatch(alarmId).catch((err) =>
          log.error({ err, alarmId }, "alarm notifications not dispatched"),
        );
    }
    return alarmIds.map(() => undefined);
  }, 500);

  /** Alarms of the last day stored but never dispatched (a stop or crash came first). */
  async function catchUp(): Promise<void> {
    const since = new Date(clock.now().getTime() - CATCH_UP_MS);
    const missed = await db
      .select({ id: alarms.id })
      .from(alarms)
      .leftJoin(alarmDispatches, eq(alarmDispatches.alarmId, alarms.id))
      .where(and(isNull(alarmDispatches.alarmId), gte(alarms.createdAt, since)))
      .orderBy(alarms.id)
      .limit(5000);
    await Promise.all(missed.map((a) => dispatcher.submit(a.id)));
  }

  return { plan, dispatch, submit: (alarmId: number) => dispatcher.submit(alarmId), catchUp };
}
