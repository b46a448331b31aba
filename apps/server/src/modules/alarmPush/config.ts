import { type EntMsgConfig, SMS_PUSH_DEFAULTS, type UserMsgConfig } from "@keyway/shared";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { encryptSecret } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import type { PushAccess } from "./access.ts";
import {
  type EntMsgConfigRow,
  entMsgConfigs,
  smsAccounts,
  type UserMsgConfigRow,
  userMsgConfigs,
} from "./schema.ts";
import { account } from "./stock.ts";
import { flag } from "./wire.ts";

/** A user's settings in a context (eid 0 personal); never set: both channels on, default caps. */
export function userSettings(
  row: UserMsgConfigRow | undefined,
  userId: number,
  eid: number,
  now: Date,
): UserMsgConfigRow {
  return (
    row ?? {
      userId,
      eid,
      smsFlag: true,
      emailFlag: true,
      userSmsDaily: SMS_PUSH_DEFAULTS.perPhoneDaily,
      machineSmsDaily: SMS_PUSH_DEFAULTS.perDeviceDaily,
      updatedAt: now,
    }
  );
}

/** An enterprise's settings; never set: both channels on, default caps, no webhook. */
export function entSettings(
  row: EntMsgConfigRow | undefined,
  eid: number,
  now: Date,
): EntMsgConfigRow {
  return (
    row ?? {
      eid,
      smsFlag: true,
      emailFlag: true,
      smsDaily: SMS_PUSH_DEFAULTS.perPhoneDaily,
      smsMachineDaily: SMS_PUSH_DEFAULTS.perDeviceDaily,
      webhookUrl: "",
      webhookSecret: null,
      webhookUnansweredAt: null,
      updatedAt: now,
    }
  );
}

/** Alarm push configuration: a user's switches and caps per context, an enterprise's. */
export function createPushConfig(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  access: PushAccess;
}) {
  const { db, clock, access } = deps;

  async function userConfigRow(userId: number, eid: number) {
    const [row] = await db
      .select()
      .from(userMsgConfigs)
      .where(and(eq(userMsgConfigs.userId, userId), eq(userMsgConfigs.eid, eid)));
    return userSettings(row, userId, eid, clock.now());
  }

  async function getUserConfig(userId: number, eid: number): Promise<UserMsgConfig> {
    if (eid > 0) await access.requireMember(userId, eid);
    const [row, acc, [user]] = await Promise.all([
      userConfigRow(userId, eid),
      account(db, eid, userId),
      db.select().from(users).where(eq(users.id, userId)),
    ]);
    return {
      eid,
      userSmsFlag: flag(row.smsFlag),
      userEmailFlag: flag(row.emailFlag),
      userSmsDailyAmount: row.userSmsDaily,
      machineSmsDailyAmount: row.machineSmsDaily,
      balance: acc.balance,
      phone: user?.phone ?? "",
      email: user?.email ?? "",
    };
  }

  async function setUserConfig(
    userId: number,
    input: {
      eid: number;
      userSmsFlag?: boolean;
      userEmailFlag?: boolean;
      userSmsDailyAmount?: number;
      machineSmsDailyAmount?: number;
    },
  ): Promise<UserMsgConfig> {
    if (input.eid > 0) await access.requireMember(userId, input.eid);
    const current = await userConfigRow(userId, input.eid);
    const next = {
      userId,
      eid: input.eid,
      smsFlag: input.userSmsFlag ?? current.smsFlag,
      emailFlag: input.userEmailFlag ?? current.emailFlag,
      userSmsDaily: input.userSmsDailyAmount ?? current.userSmsDaily,
      machineSmsDaily: input.machineSmsDailyAmount ?? current.machineSmsDaily,
      updatedAt: clock.now(),
    };
    await db
      .insert(userMsgConfigs)
      .values(next)
      .onConflictDoUpdate({ target: [userMsgConfigs.userId, userMsgConfigs.eid], set: next });
    return getUserConfig(userId, input.eid);
  }

  async function entConfigRow(eid: number) {
    const [row] = await db.select().from(entMsgConfigs).where(eq(entMsgConfigs.eid, eid));
    return entSettings(row, eid, clock.now());
  }

  async function getEntConfig(userId: number, eid: number): Promise<EntMsgConfig> {
    const m = await access.requireMember(userId, eid);
    const [row, pool, [allocated]] = await Promise.all([
      entConfigRow(eid),
      account(db, eid, 0),
      db
        .select({ total: sql<number>`coalesce(sum(${smsAccounts.balance}), 0)::int` })
        .from(smsAccounts)
        .where(and(eq(smsAccounts.eid, eid), sql`${smsAccounts.userId} <> 0`)),
    ]);
    return {
      eid,
      smsFlag: flag(row.smsFlag),
      emailFlag: flag(row.emailFlag),
      smsDailyAmount: row.smsDaily,
      smsMachineDailyAmount: row.smsMachineDaily,
      poolBalance: pool.balance,
      allocatedBalance: Number(allocated?.total ?? 0),
      // The webhook is the admin's business.
      webhookUrl: m.admin ? row.webhookUrl : "",
      hasWebhookSecret: m.admin ? row.webhookSecret !== null : false,
      isAdmin: m.admin,
    };
  }

  async function setEntConfig(
    userId: number,
    input: {
      eid: number;
      smsFlag?: boolean;
      emailFlag?: boolean;
      smsDailyAmount?: number;
      smsMachineDailyAmount?: number;
      webhookUrl?: string;
      webhookSecret?: string;
    },
  ): Promise<EntMsgConfig> {
    await access.requireAdmin(userId, input.eid);
    const current = await entConfigRow(input.eid);
    const webhookUrl = input.webhookUrl ?? current.webhookUrl;
    let webhookSecret = current.webhookSecret;
    if (input.webhookSecret) webhookSecret = encryptSecret(deps.secretKey, input.webhookSecret);
    if (webhookUrl === "") webhookSecret = null;
    if (webhookUrl !== "" && !webhookSecret)
      throw AppError.invalid("webhookSecret", "v.webhookSecret");
    const next = {
      eid: input.eid,
      smsFlag: input.smsFlag ?? current.smsFlag,
      emailFlag: input.emailFlag ?? current.emailFlag,
      smsDaily: input.smsDailyAmount ?? current.smsDaily,
      smsMachineDaily: input.smsMachineDailyAmount ?? current.smsMachineDaily,
      webhookUrl,
      webhookSecret,
      // A corrected receiver is called at once: the old one's rest is not its.
      webhookUnansweredAt: webhookUrl === current.webhookUrl ? current.webhookUnansweredAt : null,
      updatedAt: clock.now(),
    };
    await db
      .insert(entMsgConfigs)
      .values(next)
      .onConflictDoUpdate({ target: entMsgConfigs.eid, set: next });
    return getEntConfig(userId, input.eid);
  }

  return { getUserConfig, setUserConfig, getEntConfig, setEntConfig };
}
