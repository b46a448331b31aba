import { sql } from "drizzle-orm";
import {
  boolean,
  doublePrecision,
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

/**
 * The device registry: one row per machine (PN) code the operator issued. The device secret
 * authenticates the device itself (gateway); the device password is what a user types to
 * add it. Both are stored hashed only.
 */
export const devices = pgTable(
  "devices",
  {
    id: serial("id").primaryKey(),
    code: text("code").notNull(),
    model: text("model").notNull().default(""),
    secretHash: text("secret_hash").notNull(),
    passwordHash: text("password_hash").notNull(),
    /** 0 Akey+Bkey approval, 1 Akey+password. */
    checkType: smallint("check_type").notNull().default(0),
    cloudService: boolean("cloud_service").notNull().default(true),
    online: boolean("online").notNull().default(false),
    version: text("version").notNull().default(""),
    ip: text("ip").notNull().default(""),
    iccid: text("iccid").notNull().default(""),
    lat: doublePrecision("lat"),
    lng: doublePrecision("lng"),
    address: text("address").notNull().default(""),
    /** gps | base | ip (automatic) or manual. */
    locationWay: text("location_way").notNull().default("gps"),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("devices_code_key").on(t.code)],
);

/** A user's personal groups of devices. */
export const deviceGroups = pgTable(
  "device_groups",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("device_groups_user_name_key").on(t.userId, t.name)],
);

/**
 * A device in a user's personal list, with the user's identity on it and the user's own
 * name, alias, remark and group. The access workflow adds Bkey and white-list rows.
 */
export const deviceLinks = pgTable(
  "device_links",
  {
    id: serial("id").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** akey owner, bkey administrator, user ordinary (bound) user, visitor white-list visitor. */
    role: text("role", { enum: ["akey", "bkey", "user", "visitor"] }).notNull(),
    name: text("name").notNull(),
    alias: text("alias").notNull().default(""),
    remark: text("remark").notNull().default(""),
    groupId: integer("group_id").references(() => deviceGroups.id, { onDelete: "set null" }),
    /** SPEC §6 member levels: read and write (true) or read-only; alarm (true) or no-alarm. */
    canWrite: boolean("can_write").notNull().default(true),
    receivesAlarms: boolean("receives_alarms").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("device_links_device_user_key").on(t.deviceId, t.userId),
    uniqueIndex("device_links_one_akey").on(t.deviceId).where(sql`${t.role} = 'akey'`),
    index("device_links_user_idx").on(t.userId),
  ],
);

export type Device = typeof devices.$inferSelect;
export type DeviceLink = typeof deviceLinks.$inferSelect;
export type DeviceGroupRow = typeof deviceGroups.$inferSelect;
