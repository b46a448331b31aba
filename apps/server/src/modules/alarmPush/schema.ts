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
import { devices } from "../devices/schema.ts";

/**
 * Alarm push configuration, contacts and the SMS stock ledger (SPEC §3 "SMS / e-mail
 * configuration", "Mail receiver"). `eid` 0 is the personal context; enterprise-wide rows
 * have user_id 0. No foreign key on eid / user_id because of those zeros.
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
