import {
  index,
  integer,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { devices } from "../devices/schema.ts";

/**
 * Alarms as devices raise them (SPEC §3 Alarm). `uid` is the device's id for the alarm:
 * one row per (device, uid), so a retried publish is stored once. Its life: raised (stored),
 * confirmed by a user (confirmed_at/by), cleared by the device or a reset (cleared_at/by).
 */
export const alarms = pgTable(
  "alarms",
  {
    id: serial("id").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    uid: text("uid").notNull(),
    type: text("type").notNull(),
    variable: text("variable").notNull().default(""),
    level: smallint("level").notNull().default(1),
    content: text("content").notNull(),
    time: timestamp("time", { withTimezone: true }).notNull(),
    timeZone: text("time_zone").notNull().default("UTC"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    confirmedBy: integer("confirmed_by"),
    /** When the alarm ended: the device reported it cleared, or a user reset the device's alarms. */
    clearedAt: timestamp("cleared_at", { withTimezone: true }),
    /** Who reset it (imageReset); null when the device itself cleared it. */
    clearedBy: integer("cleared_by"),
    /** When the alarm's inbox messages were written (null: still to do, e.g. after a crash). */
    messagedAt: timestamp("messaged_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("alarms_device_uid_key").on(t.deviceId, t.uid),
    index("alarms_device_time_idx").on(t.deviceId, t.time),
  ],
);

export type Alarm = typeof alarms.$inferSelect;
