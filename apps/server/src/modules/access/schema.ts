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
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";

/**
 * A visit or bind request (SPEC §4 "Bind and visit audit"): who asks for which device, from
 * which terminal, and where the audit stands (AUDIT_STATE of @keyway/shared).
 */
export const accessRequests = pgTable(
  "access_requests",
  {
    id: serial("id").primaryKey(),
    kind: text("kind", { enum: ["visit", "bind"] }).notNull(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    requesterId: integer("requester_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The requesting terminal (its terminalUUID): a visit grant is bound to it. */
    terminalUuid: text("terminal_uuid").notNull().default(""),
    terminalName: text("terminal_name").notNull().default(""),
    message: text("message").notNull().default(""),
    remarks: text("remarks").notNull().default(""),
    /** The audit mode the request was made under (0 Akey+Bkey, 1 Akey+password). */
    checkType: smallint("check_type").notNull(),
    state: smallint("state").notNull().default(0),
    /** Visit time granted on approval: minutes, -1 forever. */
    visitMinutes: integer("visit_minutes"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("access_requests_device_idx").on(t.deviceId, t.state),
    index("access_requests_requester_idx").on(t.requesterId, t.deviceId, t.createdAt),
  ],
);

/** The audit process of a request: each submission and reply, in order. */
export const accessRequestSteps = pgTable(
  "access_request_steps",
  {
    id: serial("id").primaryKey(),
    requestId: integer("request_id")
      .notNull()
      .references(() => accessRequests.id, { onDelete: "cascade" }),
    actorId: integer("actor_id").references(() => users.id, { onDelete: "set null" }),
    by: text("by", { enum: ["akey", "bkey", "password", "requester"] }).notNull(),
    result: text("result", { enum: ["submitted", "agree", "refuse", "blacklist"] }).notNull(),
    message: text("message").notNull().default(""),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [index("access_request_steps_request_idx").on(t.requestId)],
);

/**
 * A white-list entry (SPEC §3): a visit time granted to one user's terminal on a device.
 * expiresAt null is forever (-1); clearedAt set is "cleared" (0).
 */
export const visitGrants = pgTable(
  "visit_grants",
  {
    id: serial("id").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    terminalUuid: text("terminal_uuid").notNull(),
    terminalName: text("terminal_name").notNull().default(""),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    clearedAt: timestamp("cleared_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("visit_grants_device_user_terminal_key").on(t.deviceId, t.userId, t.terminalUuid),
  ],
);

/** Users who may not apply for a device (SPEC §6 "Black list: cannot apply"). */
export const blackList = pgTable(
  "black_list",
  {
    id: serial("id").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    addedBy: integer("added_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("black_list_device_user_key").on(t.deviceId, t.userId)],
);

export type AccessRequest = typeof accessRequests.$inferSelect;
export type VisitGrant = typeof visitGrants.$inferSelect;
