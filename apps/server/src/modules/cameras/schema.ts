import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";

/**
 * Camera cloud accounts (SPEC §3 "Camera account"): a user's EZVIZ open-platform AppKey and
 * Secret. The Secret is sealed with SECRET_KEY (AES-GCM, infra/crypto.ts), not hashed: the
 * server presents it to EZVIZ on every check. One default per user.
 */
export const cameraAccounts = pgTable(
  "camera_accounts",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    appKey: text("app_key").notNull(),
    secretSealed: text("secret_sealed").notNull(),
    remark: text("remark").notNull().default(""),
    isDefault: boolean("is_default").notNull().default(false),
    /** CAMERA_ACCOUNT_STATE: 0 unchecked, 1 valid, 2 refused by EZVIZ at the last check. */
    state: smallint("state").notNull().default(0),
    cameraCount: integer("camera_count"),
    /** The hwcode of the last refused check, "" otherwise. */
    checkCode: text("check_code").notNull().default(""),
    checkedAt: timestamp("checked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("camera_accounts_user_app_key").on(t.userId, t.appKey),
    uniqueIndex("camera_accounts_one_default").on(t.userId).where(sql`${t.isDefault}`),
  ],
);

/** Re-checks of a stored account at EZVIZ, counted against the daily limit (SPEC §9: 5). */
export const cameraAccountChecks = pgTable(
  "camera_account_checks",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => cameraAccounts.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("camera_account_checks_account_idx").on(t.accountId, t.createdAt)],
);

/**
 * A device's camera account (the Machine's ezviz_account_id): at most one per device; it
 * counts only while the account's owner is the device's Akey (a transferred device does not
 * keep using the former owner's credentials).
 */
export const cameraBindings = pgTable(
  "camera_bindings",
  {
    deviceId: integer("device_id")
      .primaryKey()
      .references(() => devices.id, { onDelete: "cascade" }),
    accountId: integer("account_id")
      .notNull()
      .references(() => cameraAccounts.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("camera_bindings_account_idx").on(t.accountId)],
);

export type CameraAccount = typeof cameraAccounts.$inferSelect;
