import {
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { alarms } from "../alarms/schema.ts";

/**
 * The alarm notification pipeline's own bookkeeping (docs/decisions.md). An alarm is
 * dispatched once (a row here, written with its sends in one transaction); every SMS,
 * e-mail and webhook call is a send row whose status tells where it stands.
 */
export const alarmDispatches = pgTable("alarm_dispatches", {
  alarmId: integer("alarm_id")
    .primaryKey()
    .references(() => alarms.id, { onDelete: "cascade" }),
  sends: integer("sends").notNull(),
  dispatchedAt: timestamp("dispatched_at", { withTimezone: true }).notNull(),
});

/**
 * One send. pending → sending (committed before the provider is called) → sent; skipped (a
 * cap or the stock stopped it: reason is the hwcode), failed (the provider refused, or the
 * retries ran out), uncertain (a worker died after calling a provider that cannot be asked).
 */
export const alarmSends = pgTable(
  "alarm_sends",
  {
    id: serial("id").primaryKey(),
    alarmId: integer("alarm_id")
      .notNull()
      .references(() => alarms.id, { onDelete: "cascade" }),
    deviceId: integer("device_id").notNull(),
    /** The device's name as the recipient's context calls it (records show it). */
    deviceName: text("device_name").notNull().default(""),
    channel: text("channel", { enum: ["sms", "email", "webhook"] }).notNull(),
    /** The context it belongs to (0 personal) and the member it is for (0: a contact / the enterprise). */
    eid: integer("eid").notNull(),
    userId: integer("user_id").notNull(),
    contactId: integer("contact_id"),
    name: text("name").notNull().default(""),
    /** E.164 digits (sms), an address (email) or a URL (webhook). */
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull().default(""),
    content: text("content").notNull(),
    segments: integer("segments").notNull().default(0),
    /** The stock account billed: (accountEid, accountUserId). */
    accountEid: integer("account_eid").notNull().default(0),
    accountUserId: integer("account_user_id").notNull().default(0),
    /** Caps that apply (copied at dispatch). */
    phoneCap: integer("phone_cap").notNull().default(0),
    deviceCap: integer("device_cap").notNull().default(0),
    /** Counter key of the per-device cap. */
    deviceCapKey: text("device_cap_key").notNull().default(""),
    status: text("status", {
      enum: ["pending", "sending", "sent", "skipped", "failed", "uncertain"],
    })
      .notNull()
      .default("pending"),
    reason: text("reason").notNull().default(""),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** Sent to the provider as its idempotency / out id. */
    idempotencyKey: text("idempotency_key").notNull(),
    providerRef: text("provider_ref"),
    /** The day (YYYY-MM-DD, UTC of the server clock) the caps were counted on. */
    day: text("day"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("alarm_sends_alarm_recipient_key").on(t.alarmId, t.channel, t.recipient),
    uniqueIndex("alarm_sends_key").on(t.idempotencyKey),
    index("alarm_sends_status_idx").on(t.status, t.updatedAt),
    index("alarm_sends_records_idx").on(t.channel, t.eid, t.createdAt),
    index("alarm_sends_account_idx").on(t.channel, t.accountEid, t.accountUserId, t.createdAt),
  ],
);

/** Daily counters behind the caps: increments are conditional on the cap (never above it). */
export const smsDailyCounters = pgTable(
  "sms_daily_counters",
  {
    day: text("day").notNull(),
    key: text("key").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.key] })],
);

export type AlarmSend = typeof alarmSends.$inferSelect;
