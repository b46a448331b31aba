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
 * Projects (SPEC §3 Project): a personal project (eid 0) or one of an enterprise's lists
 * (type 1 enterprise, 2 maintenance). The key signs reports, so it is kept encrypted (not
 * hashed) with SECRET_KEY; `delivered` counts points delivered against report_count.
 */
export const projects = pgTable("projects", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  eid: integer("eid").notNull().default(0),
  type: smallint("type").notNull().default(1),
  ownerId: integer("owner_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  reportState: boolean("report_state").notNull().default(false),
  server: text("server").notNull().default(""),
  secretKeySealed: text("secret_key_sealed").notNull(),
  enableGetVisitUrl: boolean("enable_get_visit_url").notNull().default(false),
  intervalHours: smallint("interval_hours").notNull().default(0),
  reportCount: integer("report_count").notNull().default(0),
  delivered: integer("delivered").notNull().default(0),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
});

/** Project users (SPEC §3 Project user): level 3 owner, 2 the others. */
export const projectUsers = pgTable(
  "project_users",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    level: smallint("level").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("project_users_project_user_key").on(t.projectId, t.userId),
    index("project_users_user_idx").on(t.userId),
  ],
);

/** Project machines (SPEC §3 Project machine): a device reports to at most one project. */
export const projectMachines = pgTable(
  "project_machines",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("project_machines_device_key").on(t.deviceId),
    index("project_machines_project_idx").on(t.projectId),
  ],
);

export type Project = typeof projects.$inferSelect;
