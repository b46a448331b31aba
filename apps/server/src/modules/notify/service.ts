import { and, count, desc, eq, inArray, lte, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Senders } from "../../infra/senders.ts";
import { SmsNotSent } from "../../infra/sms.ts";
import { type Notification, notifications, type SmsTemplateFields } from "./schema.ts";

export interface NewNotification {
  channel: "email" | "sms";
  recipient: string;
  subject?: string;
  body: string;
  /** SMS: what a template provider needs; an SMS without it stays in the outbox. */
  sms?: SmsTemplateFields;
}

export type Notifier = ReturnType<typeof createNotifier>;

const MAX_ATTEMPTS = 8;
/** A claimed row is retried after this long if the worker died while sending it. */
const LEASE_MS = 60_000;
const BATCH = 20;
/**
 * Held (shared) by a caller's transaction that enqueued a row, until it ends: the kick for that
 * row waits on it, so it runs after the commit and sees the row (decision 232).
 */
const ENQUEUE_LOCK = 7_400_001;

/**
 * The durable notification queue and the local outbox (see schema.ts). enqueue() writes the
 * row (inside the caller's transaction when given one); a worker delivers due rows with
 * retries and exponential back-off, at least once.
 */
export function createNotifier(deps: {
  db: Db;
  clock: Clock;
  senders: Senders;
  log: FastifyBaseLogger;
}) {
  const { db, clock, senders, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** A kick came while a pass ran: its row may have been written after that pass looked. */
  let again = false;
  /** Kicks waiting for their callers' commits (waited for by deliverDue and stop). */
  const afterCommits = new Set<Promise<void>>();

  const senderFor = (channel: NewNotification["channel"]) =>
    channel === "email" ? senders.email : senders.sms;

  async function enqueue(item: NewNotification, tx: Db = db): Promise<Notification> {
    const now = clock.now();
    // Template SMS providers (Aliyun) cannot send free text: an SMS needs its template fields.
    const sendable = senderFor(item.channel) && (item.channel === "email" || item.sms);
    const status = sendable ? "pending" : "outbox";
    const [row] = await tx
      .insert(notifications)
      .values({ ...item, subject: item.subject ?? "", status, nextAttemptAt: now, createdAt: now })
      .returning();
    if (status === "outbox") {
      // The default set-up has no mail server: the log shows what would have been sent.
      log.info(
        {
          outbox: { channel: row.channel, to: row.recipient, subject: row.subject, body: row.body },
        },
        `outbox: ${row.channel} to ${row.recipient}: ${row.body}`,
      );
    } else if (tx === db) {
      setImmediate(() => void kick());
    } else {
      // Other connections see the row only at the caller's commit (on a PostgreSQL server a
      // kick now could look before it): the kick waits for this transaction to end.
      await tx.execute(sql`select pg_advisory_xact_lock_shared(${ENQUEUE_LOCK}, ${row.id})`);
      const waiting = kickAfterCommit(row.id).finally(() => afterCommits.delete(waiting));
      afterCommits.add(waiting);
    }
    return row;
  }

  async function kickAfterCommit(id: number): Promise<void> {
    try {
      await db.transaction(async (wait) => {
        await wait.execute(sql`select pg_advisory_xact_lock(${ENQUEUE_LOCK}, ${id})`);
      });
      await kick();
    } catch (error) {
      // The look every second (start) sends it then.
      log.warn({ notification: id, err: error }, "kick after commit failed");
    }
  }

  async function claimDue(): Promise<Notification[]> {
    const now = clock.now();
    return db.transaction(async (tx) => {
      const due = await tx
        .select({ id: notifications.id })
        .from(notifications)
        .where(and(eq(notifications.status, "pending"), lte(notifications.nextAttemptAt, now)))
        .orderBy(notifications.id)
        .limit(BATCH)
        .for("update", { skipLocked: true });
      if (due.length === 0) return [];
      return tx
        .update(notifications)
        .set({
          nextAttemptAt: new Date(now.getTime() + LEASE_MS),
          attempts: sql`${notifications.attempts} + 1`,
        })
        .where(
          inArray(
            notifications.id,
            due.map((d) => d.id),
          ),
        )
        .returning();
    });
  }

  async function deliver(row: Notification): Promise<void> {
    const send = senderFor(row.channel);
    try {
      if (!send) throw new Error(`no sender for ${row.channel}`);
      if (row.channel === "email") {
        await senders.email!({ to: row.recipient, subject: row.subject, text: row.body });
      } else {
        if (!row.sms) throw new SmsNotSent("no template fields", false);
        await senders.sms!({
          to: row.recipient,
          text: row.body,
          ...row.sms,
          key: `notification-${row.id}`,
        });
      }
      await db
        .update(notifications)
        .set({ status: "sent", sentAt: clock.now(), lastError: null })
        .where(eq(notifications.id, row.id));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A provider's definite refusal (bad number, template) will not change on a retry.
      const final = error instanceof SmsNotSent && !error.retryable;
      const failed = final || row.attempts >= MAX_ATTEMPTS;
      const backoffMs = Math.min(2 ** row.attempts * 1000, 15 * 60_000);
      log.warn({ notification: row.id, attempts: row.attempts, err: message }, "send failed");
      await db
        .update(notifications)
        .set({
          status: failed ? "failed" : "pending",
          lastError: message,
          nextAttemptAt: new Date(clock.now().getTime() + backoffMs),
        })
        .where(eq(notifications.id, row.id));
    }
  }

  /** Delivers everything due now; returns how many rows were tried. */
  async function deliverDue(): Promise<number> {
    let tried = 0;
    for (;;) {
      const batch = await claimDue();
      if (batch.length === 0) return tried;
      for (const row of batch) await deliver(row);
      tried += batch.length;
    }
  }

  function kick(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await deliverDue();
      } while (again);
    })()
      .catch((error) => log.error({ err: error }, "notification worker failed"))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    enqueue,
    /** Delivers what is due, after any pass already running (so its outcome is written too). */
    async deliverDue(): Promise<number> {
      await Promise.all(afterCommits);
      await running;
      return deliverDue();
    },
    /**
     * Looks for due rows every `intervalMs` (0: never; tests deliver by hand): retries, rows a
     * stopped process left, and a row whose kick failed.
     */
    start(intervalMs: number) {
      if (intervalMs <= 0) return;
      timer ??= setInterval(() => void kick(), intervalMs);
      timer.unref();
      void kick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.all(afterCommits);
      await running;
    },
    /** Rows waiting to be sent (retries included; the outbox is not a queue): for /metrics. */
    async pendingCount(): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(notifications)
        .where(eq(notifications.status, "pending"));
      return row?.n ?? 0;
    },
    async listOutbox(page: number, pageSize: number) {
      const [list, [{ total }]] = await Promise.all([
        db
          .select()
          .from(notifications)
          .orderBy(desc(notifications.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ total: count() }).from(notifications),
      ]);
      return { list, total };
    },
  };
}
