import {
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
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
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("messages_user_box_idx").on(t.userId, t.box, t.id),
    index("messages_request_idx").on(t.requestId),
  ],
);

export type MessageRow = typeof messages.$inferSelect;
