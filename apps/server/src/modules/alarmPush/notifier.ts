import { and, eq, lt } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Senders } from "../../infra/senders.ts";
import type { SmsProvider } from "../../infra/sms.ts";
import type { Notifier } from "../notify/service.ts";
import type { Permissions } from "../permissions/service.ts";
import { todayDeviceCounts } from "./caps.ts";
import { createChannels } from "./channels.ts";
import { createDelivery } from "./delivery.ts";
import { createDispatch } from "./dispatch.ts";
import { createAlarmJobs } from "./jobs.ts";
import { createSendRecords } from "./records.ts";
import { type AlarmSend, alarmSends } from "./schema.ts";

export type AlarmNotifier = ReturnType<typeof createAlarmNotifier>;

/**
 * Alarm notifications: an alarm the gateway stored is dispatched once (dispatch.ts) into
 * send rows (SMS, e-mail, webhook), each delivered by a pg-boss job (jobs.ts, delivery.ts).
 * See docs/architecture/alarms.md.
 */
export function createAlarmNotifier(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  senders: Senders;
  notifier: Notifier;
  /** Who receives a device's alarms (the permissions module's rule). */
  permissions: Pick<Permissions, "recipients">;
  sms: SmsProvider;
  secretKey: string;
  /** Test hook: runs after the provider took a message, before the commit. */
  afterProviderCall?: (send: AlarmSend) => void;
  /** pg-boss polling (seconds); tests use the minimum. */
  pollSeconds?: number;
  /** How long a webhook receiver has to answer (ms; tests shorten the 10 s). */
  webhookTimeoutMs?: number;
  /** Stored alarms are dispatched as they are told (subscribed here). */
  events: Pick<Events, "subscribe">;
}) {
  const { db, clock, log } = deps;
  const jobs = createAlarmJobs({ db, log, pollSeconds: deps.pollSeconds });
  const dispatching = createDispatch({
    db,
    clock,
    log,
    enqueue: jobs.enqueue,
    permissions: deps.permissions,
  });
  const delivery = createDelivery({
    db,
    clock,
    log,
    notifier: deps.notifier,
    channels: createChannels(deps),
    enqueue: jobs.enqueue,
    afterProviderCall: deps.afterProviderCall,
  });

  /** After a start: alarms stored but not dispatched, pending sends without a live job, stale sends. */
  async function recover(): Promise<void> {
    await dispatching.catchUp();
    const pending = await db
      .select({ id: alarmSends.id })
      .from(alarmSends)
      .where(
        and(
          eq(alarmSends.status, "pending"),
          lt(alarmSends.updatedAt, new Date(clock.now().getTime() - 60_000)),
        ),
      )
      .limit(5000);
    await jobs.enqueue(pending.map((p) => p.id));
    await delivery.resolveStale();
  }

  /** An alarm was stored: dispatch it now (the catch-up covers a crash before this). */
  function alarmStored(alarm: { id: number }) {
    jobs
      .track(dispatching.submit(alarm.id))
      .catch((error) =>
        log.error({ err: error, alarmId: alarm.id }, "alarm notifications not dispatched"),
      );
  }
  deps.events.subscribe("alarm.stored", alarmStored);

  return {
    plan: dispatching.plan,
    dispatch: dispatching.dispatch,
    deliver: delivery.deliver,
    recover,
    resolveStale: delivery.resolveStale,
    ...createSendRecords(db),
    /** SMS counted today against the per-device cap of a context, per device. */
    todayDeviceCounts: (eid: number, userId: number, deviceIds: number[]) =>
      todayDeviceCounts(db, clock.now(), eid, userId, deviceIds),
    alarmStored,
    queueSize: jobs.queueSize,
    /** Starts pg-boss on the same database and the worker; then catches up. */
    start: () => jobs.start(delivery.deliverAll, recover),
    stop: jobs.stop,
  };
}
