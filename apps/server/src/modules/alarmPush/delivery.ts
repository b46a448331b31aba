import { HW, type HwKey, hwMessage, maskPhone } from "@keyway/shared";
import { and, eq, lt, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import type { Clock } from "../../infra/clock.ts";
import { eachAtMost } from "../../infra/pool.ts";
import { SmsNotSent } from "../../infra/sms.ts";
import type { Notifier } from "../notify/service.ts";
import { countSms, dayOf, uncount } from "./caps.ts";
import type { Channels } from "./channels.ts";
import { MAX_ATTEMPTS } from "./jobs.ts";
import { type AlarmSend, alarmSends } from "./schema.ts";
import { debit, refund } from "./stock.ts";

/** A send left in "sending" this long is looked at again (its worker is presumed dead). */
const SENDING_LEASE_MS = 2 * 60_000;
/** SMS of a batch delivered side by side; as many webhook lanes beside them. */
const CONCURRENCY = 8;

/** Thrown by the test hook: the worker "dies" between the provider call and the commit. */
export class SimulatedCrash extends Error {}

class Skip extends Error {
  constructor(readonly reason: HwKey) {
    super(reason);
  }
}

/**
 * Delivery of one send row: pending → sending (caps counted, stock billed) → sent, or back
 * to pending / failed with the bill returned. The row's status makes a retried job safe
 * (docs/architecture/alarms.md).
 */
export function createDelivery(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  notifier: Notifier;
  channels: Channels;
  /** Queues sends for the worker (pg-boss). */
  enqueue: (sendIds: number[]) => Promise<void>;
  /** Test hook: runs after the provider took a message, before the commit. */
  afterProviderCall?: (send: AlarmSend) => void;
}) {
  const { db, clock, log, channels } = deps;

  /**
   * Claims a pending send: pending → sending, with the caps counted and the stock billed in
   * the same transaction. A cap or an empty stock marks it skipped instead.
   */
  async function claim(id: number): Promise<AlarmSend | null> {
    const day = dayOf(clock.now());
    try {
      return await db.transaction(async (tx) => {
        const [row] = await tx
          .update(alarmSends)
          .set({
            status: "sending",
            attempts: sql`${alarmSends.attempts} + 1`,
            day,
            updatedAt: clock.now(),
          })
          .where(and(eq(alarmSends.id, id), eq(alarmSends.status, "pending")))
          .returning();
        if (!row) return null;
        if (row.channel === "sms") {
          const capped = await countSms(tx, day, row);
          if (capped) throw new Skip(capped);
          if (!(await debit(tx, row.accountEid, row.accountUserId, row.segments, "send")))
            throw new Skip("SMS_STOCK_NOT_ENOUGH");
        }
        return row;
      });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      const [row] = await db
        .update(alarmSends)
        .set({
          status: "skipped",
          reason: String(HW[error.reason].code),
          day,
          updatedAt: clock.now(),
        })
        .where(and(eq(alarmSends.id, id), eq(alarmSends.status, "pending")))
        .returning();
      if (row)
        log.warn(
          {
            alarmSend: id,
            alarm: row.alarmId,
            to: maskPhone(row.recipient),
            reason: HW[error.reason].code,
          },
          `alarm SMS not sent: ${hwMessage(error.reason, "en")}`,
        );
      return null;
    }
  }

  /** Puts a send that was not sent back to pending (its bill and counts returned), or fails it. */
  async function notSent(send: AlarmSend, message: string, retryable: boolean): Promise<boolean> {
    const retry = retryable && send.attempts < MAX_ATTEMPTS;
    await db.transaction(async (tx) => {
      const [row] = await tx
        .update(alarmSends)
        .set({
          status: retry ? "pending" : "failed",
          reason: retry ? "" : String(HW.ALARM_SEND_FAILED.code),
          lastError: message.slice(0, 500),
          updatedAt: clock.now(),
        })
        .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")))
        .returning();
      if (row && send.channel === "sms") {
        await refund(tx, send.accountEid, send.accountUserId, send.segments);
        await uncount(tx, send);
      }
    });
    log.warn(
      { alarmSend: send.id, attempts: send.attempts, err: message },
      `alarm ${send.channel} not sent`,
    );
    return retry;
  }

  /** Sends the provider took, with its reference: sent, in one statement. */
  async function markSent(tx: Db, sendIds: number[], ref: string | null) {
    if (sendIds.length === 0) return;
    await tx
      .update(alarmSends)
      .set({
        status: "sent",
        providerRef: ref,
        sentAt: clock.now(),
        updatedAt: clock.now(),
        lastError: null,
      })
      .where(and(anyOf(alarmSends.id, sendIds), eq(alarmSends.status, "sending")));
  }

  /**
   * Calls the channel of a claimed send: the provider's reference, or what the job should do
   * when nothing went out ("retry" later, or "done").
   */
  async function call(send: AlarmSend): Promise<{ ref: string } | "done" | "retry"> {
    try {
      return { ref: await channels.call(send) };
    } catch (error) {
      if (error instanceof SmsNotSent)
        return (await notSent(send, error.message, error.retryable)) ? "retry" : "done";
      // Unknown outcome (a timeout after the request left): the row stays "sending"; the
      // sweep decides after the lease (ask the provider, else uncertain).
      log.error({ alarmSend: send.id, err: error }, "alarm send outcome unknown");
      return "done";
    }
  }

  /**
   * Delivers one send. "done": nothing more to do (sent, skipped, failed, or someone else has
   * it); "retry": not sent this time, the job should be tried again later.
   */
  async function deliver(sendId: number): Promise<"done" | "retry"> {
    const send = await claim(sendId);
    if (!send) return "done";
    if (channels.isLocal(send)) {
      await db.transaction(async (tx) => {
        await deps.notifier.enqueue(
          {
            channel: send.channel as "sms" | "email",
            recipient: send.recipient,
            subject: send.subject,
            body: send.content,
          },
          tx,
        );
        await markSent(tx, [send.id], "outbox");
      });
      return "done";
    }
    const outcome = await call(send);
    if (typeof outcome === "string") return outcome;
    deps.afterProviderCall?.(send);
    await markSent(db, [send.id], outcome.ref);
    return "done";
  }

  /**
   * E-mails over SMTP, claimed together in one statement (they have no caps or stock):
   * pending → sending. A retried batch finds its sent ones no longer pending.
   */
  async function claimMails(sendIds: number[]): Promise<AlarmSend[]> {
    if (!channels.mailsOverSmtp || sendIds.length === 0) return [];
    return db
      .update(alarmSends)
      .set({
        status: "sending",
        attempts: sql`${alarmSends.attempts} + 1`,
        day: dayOf(clock.now()),
        updatedAt: clock.now(),
      })
      .where(
        and(
          anyOf(alarmSends.id, sendIds),
          eq(alarmSends.channel, "email"),
          eq(alarmSends.status, "pending"),
        ),
      )
      .returning();
  }

  /**
   * Claimed e-mails go out side by side over the pooled SMTP connections; those the server
   * accepted are marked sent in one statement, each refused one goes back to pending (or
   * fails) by itself. Returns the ids to try again.
   */
  async function sendMails(mails: AlarmSend[]): Promise<number[]> {
    const outcomes = await Promise.all(mails.map(call));
    const sent = mails.filter((_, i) => typeof outcomes[i] === "object");
    for (const send of sent) deps.afterProviderCall?.(send);
    await markSent(
      db,
      sent.map((s) => s.id),
      "smtp",
    );
    return mails.filter((_, i) => outcomes[i] === "retry").map((s) => s.id);
  }

  /**
   * Delivers a batch of sends: its e-mails together (claimMails, sendMails), its webhooks one
   * lane per enterprise, the others (SMS, the outbox) a few at a time, each by itself. Returns
   * the ids to try again.
   */
  async function deliverAll(sendIds: number[]): Promise<number[]> {
    const mails = await claimMails(sendIds);
    const lanes = await channels.webhookLanes(sendIds);
    const apart = new Set([...mails.map((m) => m.id), ...lanes.flat()]);
    const others = sendIds.filter((id) => !apart.has(id));
    const retries = await sendMails(mails);
    const deliverOne = async (id: number) => {
      if ((await deliver(id)) === "retry") retries.push(id);
    };
    // Sends are independent (caps and stock are taken by conditional updates), so they go a
    // few at a time. The webhooks beside them: a receiver that does not answer holds one lane
    // of its own enterprise for one call, never another tenant's alarms (channels.ts).
    await Promise.all([
      eachAtMost(others, CONCURRENCY, deliverOne),
      eachAtMost(lanes, CONCURRENCY, async (lane) => {
        for (const id of lane) await deliverOne(id);
      }),
    ]);
    return retries;
  }

  /**
   * Sends left in "sending" past the lease (their worker died between the provider call and
   * the commit): asked of the provider when it can tell, else marked uncertain and never
   * sent again. Webhooks are sent again (at least once, with the same delivery id).
   */
  async function resolveStale(): Promise<void> {
    const before = new Date(clock.now().getTime() - SENDING_LEASE_MS);
    const stale = await db
      .select()
      .from(alarmSends)
      .where(and(eq(alarmSends.status, "sending"), lt(alarmSends.updatedAt, before)))
      .orderBy(alarmSends.id)
      .limit(500);
    const again: number[] = [];
    for (const send of stale) {
      if (send.channel === "webhook") {
        await db
          .update(alarmSends)
          .set({ status: "pending", updatedAt: clock.now() })
          .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")));
        again.push(send.id);
        continue;
      }
      const found = await channels.lookup(send);
      if (found) {
        await markSent(db, [send.id], found.ref);
      } else if (found === null) {
        // The provider says it never got it: give back the bill and send it again.
        if (await notSent(send, "interrupted before the provider took it", true))
          again.push(send.id);
      } else {
        await db
          .update(alarmSends)
          .set({
            status: "uncertain",
            reason: String(HW.ALARM_SEND_UNCERTAIN.code),
            updatedAt: clock.now(),
          })
          .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")));
        log.warn(
          { alarmSend: send.id, alarm: send.alarmId },
          "alarm send interrupted: not sent again (uncertain)",
        );
      }
    }
    await deps.enqueue(again);
  }

  return { deliver, deliverAll, resolveStale };
}
