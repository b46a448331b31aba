import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";

export const enterprises = pgTable(
  "enterprises",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    platformName: text("platform_name").notNull().default(""),
    applyLogoUrl: text("apply_logo_url").notNull().default(""),
    enableProject: boolean("enable_project").notNull().default(false),
    /**
     * The user who created it from the web (its owner); null: created by the operator. Counts
     * against ENTERPRISES_PER_USER and lets its admins switch projects on and off.
     */
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("enterprises_created_by_idx").on(t.createdBy)],
);

/**
 * The operator's switches per brand (white-label OEM id of `brands.ts`). A brand without a row
 * has every switch at its default.
 */
export const brandSettings = pgTable("brand_settings", {
  oemId: text("oem_id").primaryKey(),
  /** Whether the brand's users may create enterprises of their own. */
  userEnterprises: boolean("user_enterprises").notNull().default(true),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});

/** Enterprise members come in two kinds, each with its own device list; admins manage. */
export const enterpriseMembers = pgTable(
  "enterprise_members",
  {
    enterpriseId: integer("enterprise_id")
      .notNull()
      .references(() => enterprises.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["member", "maintenance"] }).notNull(),
    isAdmin: boolean("is_admin").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.enterpriseId, t.userId, t.kind] }),
    index("enterprise_members_user_idx").on(t.userId),
  ],
);

export const enterpriseGroups = pgTable(
  "enterprise_groups",
  {
    id: serial("id").primaryKey(),
    enterpriseId: integer("enterprise_id")
      .notNull()
      .references(() => enterprises.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("enterprise_groups_name_key").on(t.enterpriseId, t.name)],
);

/**
 * A device an enterprise holds: type 1 its own (enterprise members see it), type 2 one it
 * maintains (maintenance members see it). Per type, a device belongs to at most one enterprise:
 * its owner and its maintainer may differ.
 */
export const enterpriseDevices = pgTable(
  "enterprise_devices",
  {
    enterpriseId: integer("enterprise_id")
      .notNull()
      .references(() => enterprises.id, { onDelete: "cascade" }),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    type: smallint("type").notNull(),
    name: text("name").notNull(),
    groupId: integer("group_id").references(() => enterpriseGroups.id, { onDelete: "set null" }),
    maintenanceRemark: text("maintenance_remark").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.enterpriseId, t.deviceId, t.type] }),
    uniqueIndex("enterprise_devices_device_type_key").on(t.deviceId, t.type),
    index("enterprise_devices_list_idx").on(t.enterpriseId, t.type, t.deviceId),
  ],
);

export type Enterprise = typeof enterprises.$inferSelect;
