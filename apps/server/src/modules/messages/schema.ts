import { sql } from "drizzle-orm";
import {
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accessRequests } from "../access/schema.ts";
import { users } from "../accounts/schema.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

/**
 * The message centre (SPEC §3 Message): one row per recipient and box. Texts are rendered
 * in the reader's language when read, from the type and `params`; `content` is what a
 * person wrote (a leave message) or the device said (an alarm).
 */
export const messages = pgTable(
  "messages",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    box: text("box", { enum: ["inbox", "outbox"] }).notNull(),
    type: smallint("type").notNull(),
    deviceId: integer("device_id").references(() => devices.id, { onDelete: "set null" }),
    requestId: integer("request_id").references(() => accessRequests.id, { onDelete: "set null" }),
    alarmId: integer("alarm_id").references(() => alarms.id, { onDelete: "set null" }),
    content: text("content").notNull().default(""),
    params: jsonb("params").$type<Record<string, string | number>>().notNull().default({}),
    readAt: timestamp("read_at", { withTimezone: true }),
    /** When it was written, or last replaced (lists are newest first by this time). */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /**
     * A message kept once per user and key, replaced in place by the next one of the same
     * key (a login elsewhere: one per terminal kind, `logout:<type>`); null for the others.
     */
    replaceKey: text("replace_key"),
  },
  (t) => [
    index("messages_user_box_time_idx").on(t.userId, t.box, t.createdAt, t.id),
    index("messages_request_idx").on(t.requestId),
    uniqueIndex("messages_user_replace_key")
      .on(t.userId, t.replaceKey)
      .where(sql`${t.replaceKey} is not null`),
  ],
);

export type MessageRow = typeof messages.$inferSelect;
