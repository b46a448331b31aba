import { index, integer, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

/** Verification codes sent by SMS or e-mail; only the hash of a code is kept. */
export const verificationCodes = pgTable(
  "verification_codes",
  {
    id: serial("id").primaryKey(),
    channel: text("channel", { enum: ["sms", "email"] }).notNull(),
    /** "86:13800138000" for a phone, the lower-cased address for an e-mail. */
    target: text("target").notNull(),
    purpose: text("purpose", { enum: ["register", "reset", "change"] }).notNull(),
    codeHash: text("code_hash").notNull(),
    wrongTries: integer("wrong_tries").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** Set when used, or when replaced by a newer code, or after too many wrong tries. */
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (t) => [index("verification_codes_target_idx").on(t.target, t.purpose, t.createdAt)],
);
