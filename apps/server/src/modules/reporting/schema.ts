import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { devices } from "../devices/schema.ts";
import { projects } from "../projects/schema.ts";

/**
 * The reporting queue: a device's data points waiting for its project's server. A row is
 * deleted in the transaction that records its delivery; its id is the stable sequence
 * number the receiver sees (`seq`), so a point sent again after a crash can be recognised.
 */
export const reportPoints = pgTable(
  "report_points",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    /** The device's own id of the message (optional): a retried publish is stored once. */
    uid: text("uid"),
    /** When the device read the values. */
    time: timestamp("time", { withTimezone: true }).notNull(),
    values: jsonb("values").$type<Record<string, number | string | boolean | null>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("report_points_project_idx").on(t.projectId, t.id),
    uniqueIndex("report_points_device_uid_key").on(t.deviceId, t.uid),
  ],
);

/**
 * Delivery state per project: the backlog counter (kept in the same transactions that add
 * and remove points), the retry schedule with its lease (one node delivers a project at a
 * time) and what the project page shows.
 */
export const reportDeliveries = pgTable("report_deliveries", {
  projectId: integer("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  backlog: integer("backlog").notNull().default(0),
  /** Points refused at the door because the available data count was used up. */
  dropped: integer("dropped").notNull().default(0),
  failures: integer("failures").notNull().default(0),
  nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
  leaseUntil: timestamp("lease_until", { withTimezone: true }),
  lastSuccessAt: timestamp("last_success_at", { withTimezone: true }),
  lastFailureAt: timestamp("last_failure_at", { withTimezone: true }),
  lastError: text("last_error").notNull().default(""),
});
