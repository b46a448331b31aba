import {
  bigint,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { devices } from "../devices/schema.ts";

/**
 * 4G IoT cards (SPEC §4 "IoT card"): one row per ICCID a device has reported, with the
 * carrier's latest figures. Traffic is in KB, as carriers count it. A card the device no
 * longer reports keeps its row (state `deleted`) so its history and warnings stay readable.
 */
export const iotCards = pgTable(
  "iot_cards",
  {
    id: serial("id").primaryKey(),
    iccid: text("iccid").notNull(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    /** The adapter that last read it (simulator | onelink). */
    carrier: text("carrier").notNull(),
    msisdn: text("msisdn").notNull().default(""),
    imsi: text("imsi").notNull().default(""),
    /** IotCardState; `unknown` until the carrier has been read. */
    state: text("state").notNull().default("unknown"),
    planName: text("plan_name").notNull().default(""),
    totalKb: bigint("total_kb", { mode: "number" }),
    usedKb: bigint("used_kb", { mode: "number" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    activatedAt: timestamp("activated_at", { withTimezone: true }),
    /** Last successful carrier read. */
    refreshedAt: timestamp("refreshed_at", { withTimezone: true }),
    /** A read in progress (periodic pass or on demand); stale claims are taken over. */
    refreshClaimedAt: timestamp("refresh_claimed_at", { withTimezone: true }),
    /** Last on-demand read a user asked for (the throttle). */
    refreshRequestedAt: timestamp("refresh_requested_at", { withTimezone: true }),
    lastError: text("last_error").notNull().default(""),
    /** When the device stopped reporting this card (state `deleted`). */
    removedAt: timestamp("removed_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("iot_cards_iccid_key").on(t.iccid),
    index("iot_cards_device_idx").on(t.deviceId),
  ],
);

/** Each successful carrier read: the traffic history behind the charts. */
export const iotCardSnapshots = pgTable(
  "iot_card_snapshots",
  {
    id: serial("id").primaryKey(),
    cardId: integer("card_id")
      .notNull()
      .references(() => iotCards.id, { onDelete: "cascade" }),
    takenAt: timestamp("taken_at", { withTimezone: true }).notNull(),
    state: text("state").notNull(),
    totalKb: bigint("total_kb", { mode: "number" }),
    usedKb: bigint("used_kb", { mode: "number" }),
  },
  (t) => [index("iot_card_snapshots_card_time_idx").on(t.cardId, t.takenAt)],
);

export type IotCardRow = typeof iotCards.$inferSelect;
export type IotCardSnapshotRow = typeof iotCardSnapshots.$inferSelect;
