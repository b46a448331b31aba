import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
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
    /** Wrong passwords from all sources in the account-wide window (login_sources per source). */
    failedLogins: integer("failed_logins").notNull().default(0),
    failedLoginsSince: timestamp("failed_logins_since", { withTimezone: true }),
    /** The account-wide soft limit: until then only known sources may try a password. */
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

/**
 * Password failures per account and source address (docs/architecture/accounts.md): five wrong
 * passwords lock that source out of that account only; `lastSuccessAt` marks an address the
 * owner logged in from, which still gets in while the account-wide soft limit holds.
 */
export const loginSources = pgTable(
  "login_sources",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ip: text("ip").notNull(),
    failures: integer("failures").notNull().default(0),
    failuresSince: timestamp("failures_since", { withTimezone: true }),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastSuccessAt: timestamp("last_success_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.ip] })],
);

/**
 * Two-factor login of a user (docs/architecture/accounts.md). The TOTP secret is sealed with
 * the app's secret key; `enabledAt` is null while the set-up waits for its first code.
 */
export const twoFactorAuth = pgTable("two_factor_auth", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secretSealed: text("secret_sealed").notNull(),
  setupExpiresAt: timestamp("setup_expires_at", { withTimezone: true }).notNull(),
  enabledAt: timestamp("enabled_at", { withTimezone: true }),
  /** The last accepted 30-second step: a code is accepted once. */
  lastStep: integer("last_step").notNull().default(0),
  failedCodes: integer("failed_codes").notNull().default(0),
  failedCodesSince: timestamp("failed_codes_since", { withTimezone: true }),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
});

/** One-time recovery codes; only their keyed hash is stored. */
export const twoFactorRecoveryCodes = pgTable(
  "two_factor_recovery_codes",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("two_factor_recovery_codes_user_idx").on(t.userId)],
);

/** The step between a right password and the second factor: a short-lived challenge. */
export const loginChallenges = pgTable(
  "login_challenges",
  {
    id: serial("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    keepLogin: boolean("keep_login").notNull().default(false),
    terminalUuid: text("terminal_uuid").notNull().default(""),
    terminalType: text("terminal_type").notNull().default(""),
    terminalName: text("terminal_name").notNull().default(""),
    terminalOs: text("terminal_os").notNull().default(""),
    tries: integer("tries").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("login_challenges_token_hash_key").on(t.tokenHash)],
);

/**
 * A QR-code login: the QR's token and the desktop's check token (both hashed), the desktop's
 * terminal, and how far it got (waiting → scanned → confirmed → used, or cancelled).
 */
export const qrLogins = pgTable(
  "qr_logins",
  {
    id: serial("id").primaryKey(),
    qrTokenHash: text("qr_token_hash").notNull(),
    checkTokenHash: text("check_token_hash").notNull(),
    state: text("state", { enum: ["waiting", "scanned", "confirmed", "cancelled", "used"] })
      .notNull()
      .default("waiting"),
    keepLogin: boolean("keep_login").notNull().default(false),
    oemId: text("oem_id"),
    terminalUuid: text("terminal_uuid").notNull().default(""),
    terminalType: text("terminal_type").notNull().default(""),
    terminalName: text("terminal_name").notNull().default(""),
    terminalOs: text("terminal_os").notNull().default(""),
    ip: text("ip").notNull().default(""),
    /** The phone's user and terminal once confirmed. */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    confirmedByTerminalId: integer("confirmed_by_terminal_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("qr_logins_qr_token_hash_key").on(t.qrTokenHash),
    uniqueIndex("qr_logins_check_token_hash_key").on(t.checkTokenHash),
    index("qr_logins_expires_idx").on(t.expiresAt),
  ],
);

export type User = typeof users.$inferSelect;
export type Terminal = typeof terminals.$inferSelect;
export type TwoFactorAuth = typeof twoFactorAuth.$inferSelect;
export type QrLogin = typeof qrLogins.$inferSelect;
