import { sql } from "drizzle-orm";
import {
  boolean,
  check,
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
import { devices } from "../devices/schema.ts";

/**
 * Alarm push configuration, contacts and the SMS stock ledger (SPEC §3 "SMS / e-mail
 * configuration", "Mail receiver"), then the sends of each alarm. `eid` 0 is the personal
 * context; enterprise-wide rows have user_id 0. No foreign key on eid / user_id because of
 * those zeros.
 */

/** A user's own switches and caps, per context (eid 0 personal, or an enterprise). */
export const userMsgConfigs = pgTable(
  "user_msg_configs",
  {
    userId: integer("user_id").notNull(),
    eid: integer("eid").notNull(),
    smsFlag: boolean("sms_flag").notNull().default(true),
    emailFlag: boolean("email_flag").notNull().default(true),
    userSmsDaily: integer("user_sms_daily").notNull(),
    machineSmsDaily: integer("machine_sms_daily").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.eid] })],
);

/** An enterprise's switches, caps and optional webhook (secret sealed with SECRET_KEY). */
export const entMsgConfigs = pgTable("ent_msg_configs", {
  eid: integer("eid").primaryKey(),
  smsFlag: boolean("sms_flag").notNull().default(true),
  emailFlag: boolean("email_flag").notNull().default(true),
  smsDaily: integer("sms_daily").notNull(),
  smsMachineDaily: integer("sms_machine_daily").notNull(),
  webhookUrl: text("webhook_url").notNull().default(""),
  webhookSecret: text("webhook_secret"),
  /**
   * When the webhook's receiver last did not answer a call; null once it answers (or its URL
   * changes). Every node reads it: a receiver rests for all of them (channels.ts).
   */
  webhookUnansweredAt: timestamp("webhook_unanswered_at", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});

/** Per-device SMS switch: personal (eid 0, the user) or enterprise (eid, user 0). Absent: on. */
export const deviceSmsSwitches = pgTable(
  "device_sms_switches",
  {
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    eid: integer("eid").notNull(),
    userId: integer("user_id").notNull(),
    smsFlag: boolean("sms_flag").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.eid, t.userId] })],
);

/** Alarm contacts: extra phones and mail receivers of a user (eid 0) or an enterprise (user 0). */
export const alarmContacts = pgTable(
  "alarm_contacts",
  {
    id: serial("id").primaryKey(),
    eid: integer("eid").notNull(),
    userId: integer("user_id").notNull(),
    kind: text("kind", { enum: ["phone", "email"] }).notNull(),
    name: text("name").notNull(),
    /** Phone contacts: national number and country code; "" for mail receivers. */
    phone: text("phone").notNull().default(""),
    countryCode: text("country_code").notNull().default(""),
    email: text("email").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("alarm_contacts_owner_key").on(
      t.eid,
      t.userId,
      t.kind,
      t.countryCode,
      t.phone,
      t.email,
    ),
  ],
);

/**
 * SMS stock accounts: (0, user) a personal balance, (eid, 0) an enterprise's pool, (eid,
 * user) what the enterprise allocated to a member. The balance never goes below zero: every
 * debit is a conditional UPDATE and the CHECK backs it.
 */
export const smsAccounts = pgTable(
  "sms_accounts",
  {
    eid: integer("eid").notNull(),
    userId: integer("user_id").notNull(),
    balance: integer("balance").notNull().default(0),
    received: integer("received").notNull().default(0),
    used: integer("used").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.eid, t.userId] }),
    check("sms_accounts_balance_nonnegative", sql`${t.balance} >= 0`),
  ],
);

/** The stock ledger: sales (operator), allocations and transfers (enterprise admin). */
export const smsStockRecords = pgTable(
  "sms_stock_records",
  {
    id: serial("id").primaryKey(),
    operate: text("operate", { enum: ["sale", "allocate", "transfer"] }).notNull(),
    eid: integer("eid").notNull(),
    fromUserId: integer("from_user_id").notNull().default(0),
    toUserId: integer("to_user_id").notNull().default(0),
    amount: integer("amount").notNull(),
    remark: text("remark").notNull().default(""),
    operatorId: integer("operator_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("sms_stock_records_eid_idx").on(t.eid, t.operate, t.createdAt),
    index("sms_stock_records_to_idx").on(t.toUserId, t.operate, t.createdAt),
  ],
);

export type UserMsgConfigRow = typeof userMsgConfigs.$inferSelect;
export type EntMsgConfigRow = typeof entMsgConfigs.$inferSelect;
export type AlarmContactRow = typeof alarmContacts.$inferSelect;
export type SmsAccountRow = typeof smsAccounts.$inferSelect;

/**
 * The alarm sends' own bookkeeping (docs/architecture/alarms.md). An alarm is
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
