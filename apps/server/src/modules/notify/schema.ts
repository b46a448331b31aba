import { index, integer, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Durable queue of outgoing e-mails and SMS. A row is written before the caller is answered;
 * the delivery worker sends it. With no SMTP server / SMS provider configured, rows stay in
 * status "outbox": that is the local outbox the operator reads.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: serial("id").primaryKey(),
    channel: text("channel", { enum: ["email", "sms"] }).notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull().default(""),
    body: text("body").notNull(),
    status: text("status", { enum: ["pending", "sent", "outbox", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [index("notifications_status_idx").on(t.status, t.nextAttemptAt)],
);

export type Notification = typeof notifications.$inferSelect;
