import { index, integer, pgTable, serial, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { notifications } from "../notify/schema.ts";

/**
 * SCADA registrations sent from the public form (SPEC §2 "SCADA registration form"). The row
 * is kept whatever happens to the e-mail to support, which goes through the notification
 * queue (`notificationId`); `ip` is kept for abuse handling.
 */
export const scadaRegistrations = pgTable(
  "scada_registrations",
  {
    id: serial("id").primaryKey(),
    company: text("company").notNull(),
    contactName: text("contact_name").notNull(),
    countryCode: text("country_code").notNull(),
    phone: text("phone").notNull(),
    email: text("email").notNull(),
    projectName: text("project_name").notNull(),
    deviceCount: smallint("device_count").notNull(),
    description: text("description").notNull(),
    oemId: text("oem_id").notNull(),
    language: text("language", { enum: ["cn", "en"] }).notNull(),
    ip: text("ip").notNull().default(""),
    notificationId: integer("notification_id").references(() => notifications.id, {
      onDelete: "set null",
    }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("scada_registrations_email_idx").on(t.email, t.createdAt)],
);

export type ScadaRegistrationRow = typeof scadaRegistrations.$inferSelect;
