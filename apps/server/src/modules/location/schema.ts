import { index, integer, pgTable, serial, timestamp } from "drizzle-orm/pg-core";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";

/** Location fixes asked of a device, counted against the daily limit (SPEC §9: 5 a day). */
export const locationFixes = pgTable(
  "location_fixes",
  {
    id: serial("id").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("location_fixes_device_idx").on(t.deviceId, t.createdAt)],
);
