import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  pgTable,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";

/**
 * A remote-access visit (ARCHITECTURE "Remote access"): issued to one user and terminal for
 * one device when the right holds, opened once with its ticket (which becomes the visit
 * cookie), logged with its bytes until it ends. Secrets are stored hashed only.
 */
export const visits = pgTable(
  "visits",
  {
    /** 26 lower-case base32 characters: unguessable, and one DNS label of the visit host. */
    id: text("id").primaryKey(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The caller's terminal row when issued (terminal rows are replaced on re-login). */
    terminalId: integer("terminal_id").notNull(),
    terminalName: text("terminal_name").notNull().default(""),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    /** "host:port" reached; TCP forwards to other targets append theirs. */
    target: text("target").notNull(),
    /** SHA-256 of the one-time ticket in the visit URL; null once it was exchanged. */
    ticketHash: text("ticket_hash"),
    /** SHA-256 of the visit cookie the ticket was exchanged for. */
    cookieHash: text("cookie_hash"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** The URL must be opened before this. */
    urlExpiresAt: timestamp("url_expires_at", { withTimezone: true }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    lastActiveAt: timestamp("last_active_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** Who ended it (the Akey or a Bkey); null when the platform did. */
    endedBy: integer("ended_by").references(() => users.id, { onDelete: "set null" }),
    endReason: text("end_reason"),
    /** From the device to the visitor. */
    bytesIn: bigint("bytes_in", { mode: "number" }).notNull().default(0),
    /** From the visitor to the device. */
    bytesOut: bigint("bytes_out", { mode: "number" }).notNull().default(0),
    /** "web", "screen" (VNC) or "tcp" (VisitKind). */
    kind: text("kind").notNull().default("web"),
    /** The visitor's member level was read-only when issued (re-read at every rights check). */
    viewOnly: boolean("view_only").notNull().default(false),
  },
  (t) => [
    index("visits_device_idx").on(t.deviceId, t.startedAt),
    index("visits_running_idx").on(t.endedAt, t.lastActiveAt),
  ],
);

export type Visit = typeof visits.$inferSelect;

/**
 * What a visitor did (issue 20): one row per HTTP request through the relay, one per screen
 * (VNC) session. No bodies, no query strings, no passwords. Kept VISIT_ACTIVITY_DAYS.
 */
export const visitActivity = pgTable(
  "visit_activity",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    visitId: text("visit_id")
      .notNull()
      .references(() => visits.id, { onDelete: "cascade" }),
    deviceId: integer("device_id").notNull(),
    /** "http" or "screen". */
    kind: text("kind").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    method: text("method").notNull().default(""),
    path: text("path").notNull().default(""),
    status: integer("status").notNull().default(0),
    bytesIn: bigint("bytes_in", { mode: "number" }).notNull().default(0),
    bytesOut: bigint("bytes_out", { mode: "number" }).notNull().default(0),
    viewOnly: boolean("view_only").notNull().default(false),
    inputEvents: integer("input_events").notNull().default(0),
    droppedEvents: integer("dropped_events").notNull().default(0),
    /** HTTP: the identical requests this row stands for (activity.ts); screen sessions 1. */
    requests: integer("requests").notNull().default(1),
  },
  (t) => [
    index("visit_activity_device_idx").on(t.deviceId, t.at),
    index("visit_activity_visit_idx").on(t.visitId, t.at),
  ],
);

export type VisitActivity = typeof visitActivity.$inferSelect;

/** A device's remote-access settings (issue 20); no row means the defaults (all off). */
export const remoteSettings = pgTable("remote_settings", {
  deviceId: integer("device_id")
    .primaryKey()
    .references(() => devices.id, { onDelete: "cascade" }),
  /** A visit starts only after someone at the machine accepts it. */
  onsiteConsent: boolean("onsite_consent").notNull().default(false),
  /** Read-only visitors may open the device page's WebSockets. */
  readonlyWebsocket: boolean("readonly_websocket").notNull().default(false),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});
