import { index, integer, jsonb, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

/** What an SMS provider with registered templates needs besides the text. */
export interface SmsTemplateFields {
  countryCode: string;
  phone: string;
  /** Template variables, e.g. `{ code }` for a verification code. */
  params: Record<string, string>;
}

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
    /** SMS only: the number split and the template variables (null: outbox only). */
    sms: jsonb("sms").$type<SmsTemplateFields>(),
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
