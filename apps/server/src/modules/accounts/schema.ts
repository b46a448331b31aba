import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

export const users = pgTable(
  "users",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    /** National number; unique together with countryCode. */
    phone: text("phone"),
    countryCode: text("country_code").notNull().default("86"),
    /** Lower-cased. */
    email: text("email"),
    passwordHash: text("password_hash").notNull(),
    language: text("language").notNull().default("cn"),
    hideMap: boolean("hide_map").notNull().default(false),
    role: text("role", { enum: ["user", "operator"] })
      .notNull()
      .default("user"),
    enableProject: boolean("enable_project").notNull().default(false),
    oemId: text("oem_id"),
    /** Null until the registration code was confirmed. */
    activatedAt: timestamp("activated_at", { withTimezone: true }),
    failedLogins: integer("failed_logins").notNull().default(0),
    failedLoginsSince: timestamp("failed_logins_since", { withTimezone: true }),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("users_phone_key").on(t.countryCode, t.phone).where(sql`${t.phone} is not null`),
    uniqueIndex("users_email_key").on(t.email).where(sql`${t.email} is not null`),
  ],
);

/** One row per logged-in terminal (SPEC "Terminal token"); the token itself is only hashed. */
export const terminals = pgTable(
  "terminals",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    uuid: text("uuid").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    os: text("os").notNull().default(""),
    ip: text("ip").notNull().default(""),
    loginTime: timestamp("login_time", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("terminals_token_hash_key").on(t.tokenHash),
    index("terminals_user_idx").on(t.userId),
  ],
);

export type User = typeof users.$inferSelect;
export type Terminal = typeof terminals.$inferSelect;
