import {
  type AlarmContact,
  type ContactKind,
  type EntMsgConfig,
  type MachineMsgConfig,
  maskAccount,
  normalizePhone,
  SMS_PUSH_DEFAULTS,
  type SmsStock,
  type SmsStockRecord,
  type StockOperate,
  type UserMsgConfig,
} from "@keyway/shared";
import { and, count, desc, eq, gte, ilike, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { encryptSecret } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers, enterprises } from "../enterprises/schema.ts";
import type { EnterpriseService } from "../enterprises/service.ts";
import {
  alarmContacts,
  deviceSmsSwitches,
  entMsgConfigs,
  smsAccounts,
  smsStockRecords,
  userMsgConfigs,
} from "./schema.ts";
import { createPushStats } from "./stats.ts";

export type AlarmPushService = ReturnType<typeof createAlarmPushService>;
type EnterpriseScope = Awaited<ReturnType<EnterpriseService["deviceScope"]>>["scope"];

const flag = (b: boolean): 0 | 1 => (b ? 1 : 0);
const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
/** The UTC day of an instant: caps reset at 00:00 UTC of the injected clock. */
export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Alarm push configuration (personal and enterprise), per-device SMS switch, alarm contacts
 * and the SMS stock (sale, allocation, transfer) with its records.
 */
export function createAlarmPushService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  /** Today's SMS count of a device in a context (the notify module owns the counters). */
  todayDeviceCounts?: (
    eid: number,
    userId: number,
    deviceIds: number[],
  ) => Promise<Map<number, number>>;
  /**
   * The devices a member sees in an enterprise (the enterprises module's deviceScope: members
   * the enterprise list, maintenance members the maintenance list, admins both).
   */
  enterpriseScope: (
    viewer: { userId: number; role: "user" | "operator" },
    eid: number,
  ) => Promise<{ scope: EnterpriseScope }>;
}) {
  const { db, clock } = deps;

  // ---- Who may do what ----

  async function membership(userId: number, eid: number) {
    const rows = await db
      .select({ isAdmin: enterpriseMembers.isAdmin })
      .from(enterpriseMembers)
      .where(and(eq(enterpriseMembers.enterpriseId, eid), eq(enterpriseMembers.userId, userId)));
    return { member: rows.length > 0, admin: rows.some((r) => r.isAdmin) };
  }

  async function requireEnterprise(eid: number) {
    const [row] = await db.select().from(enterprises).where(eq(enterprises.id, eid));
    if (!row) throw fail("ENTERPRISE_NOT_FOUND");
    return row;
  }

  /** Enterprise calls that change things: an admin of that enterprise only. */
  async function requireAdmin(userId: number, eid: number) {
    await requireEnterprise(eid);
    if (!(await membership(userId, eid)).admin) throw fail("NO_MANAGEMENT_ACCESS");
  }

  async function requireMember(userId: number, eid: number) {
    await requireEnterprise(eid);
    const m = await membership(userId, eid);
    if (!m.member) throw fail("NO_MANAGEMENT_ACCESS");
    return m;
  }

  // ---- Configuration ----

  async function userConfigRow(userId: number, eid: number) {
    const [row] = await db
      .select()
      .from(userMsgConfigs)
      .where(and(eq(userMsgConfigs.userId, userId), eq(userMsgConfigs.eid, eid)));
    return (
      row ?? {
        userId,
        eid,
        smsFlag: true,
        emailFlag: true,
        userSmsDaily: SMS_PUSH_DEFAULTS.perPhoneDaily,
        machineSmsDaily: SMS_PUSH_DEFAULTS.perDeviceDaily,
        updatedAt: clock.now(),
      }
    );
  }

  async function account(eid: number, userId: number) {
    const [row] = await db
      .select()
      .from(smsAccounts)
      .where(and(eq(smsAccounts.eid, eid), eq(smsAccounts.userId, userId)));
    return row ?? { eid, userId, balance: 0, received: 0, used: 0 };
  }

  async function getUserConfig(userId: number, eid: number): Promise<UserMsgConfig> {
    if (eid > 0) await requireMember(userId, eid);
    const [row, acc, [user]] = await Promise.all([
      userConfigRow(userId, eid),
      account(eid, userId),
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
    if (input.eid > 0) await requireMember(userId, input.eid);
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
    return (
      row ?? {
        eid,
        smsFlag: true,
        emailFlag: true,
        smsDaily: SMS_PUSH_DEFAULTS.perPhoneDaily,
        smsMachineDaily: SMS_PUSH_DEFAULTS.perDeviceDaily,
        webhookUrl: "",
        webhookSecret: null as string | null,
        updatedAt: clock.now(),
      }
    );
  }

  async function getEntConfig(userId: number, eid: number): Promise<EntMsgConfig> {
    const m = await requireMember(userId, eid);
    const [row, pool, [allocated]] = await Promise.all([
      entConfigRow(eid),
      account(eid, 0),
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
    await requireAdmin(userId, input.eid);
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
      updatedAt: clock.now(),
    };
    await db
      .insert(entMsgConfigs)
      .values(next)
      .onConflictDoUpdate({ target: entMsgConfigs.eid, set: next });
    return getEntConfig(userId, input.eid);
  }

  // ---- Per-device switch ----

  /** The caller's devices in a context, with the switch: personal links, or the enterprise's devices. */
  async function listDevices(
    userId: number,
    q: { eid: number; blur?: string; groupId?: number; page: number; pageSize: number },
  ): Promise<{ list: MachineMsgConfig[]; total: number }> {
    const blur = q.blur ? `%${q.blur.replace(/[%_\\]/g, "\\$&")}%` : undefined;
    let base: { id: number; name: string; code: string }[];
    if (q.eid === 0) {
      const where: (SQL | undefined)[] = [eq(deviceLinks.userId, userId)];
      if (q.groupId) where.push(eq(deviceLinks.groupId, q.groupId));
      if (blur) where.push(or(ilike(deviceLinks.name, blur), ilike(devices.code, blur)));
      base = await db
        .select({ id: devices.id, name: deviceLinks.name, code: devices.code })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...where))
        .orderBy(desc(devices.id));
    } else {
      await requireMember(userId, q.eid);
      const { scope } = await deps.enterpriseScope({ userId, role: "user" }, q.eid);
      const where: (SQL | undefined)[] = [eq(enterpriseDevices.enterpriseId, q.eid)];
      if (q.groupId) where.push(eq(enterpriseDevices.groupId, q.groupId));
      if (blur) where.push(or(ilike(enterpriseDevices.name, blur), ilike(devices.code, blur)));
      base = await db
        .selectDistinctOn([devices.id], {
          id: devices.id,
          name: enterpriseDevices.name,
          code: devices.code,
        })
        .from(enterpriseDevices)
        // Only the lists the caller sees (a member saw the maintenance list before).
        .innerJoin(scope, eq(scope.deviceId, enterpriseDevices.deviceId))
        .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
        .where(and(...where))
        .orderBy(desc(devices.id));
    }
    const total = base.length;
    const page = base.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);
    const ids = page.map((d) => d.id);
    const switchUser = q.eid === 0 ? userId : 0;
    const [switches, counts] = await Promise.all([
      ids.length
        ? db
            .select()
            .from(deviceSmsSwitches)
            .where(
              and(
                inArray(deviceSmsSwitches.deviceId, ids),
                eq(deviceSmsSwitches.eid, q.eid),
                eq(deviceSmsSwitches.userId, switchUser),
              ),
            )
        : [],
      deps.todayDeviceCounts?.(q.eid, switchUser, ids) ?? new Map<number, number>(),
    ]);
    const on = new Map(switches.map((s) => [s.deviceId, s.smsFlag]));
    return {
      list: page.map((d) => ({
        machineId: d.id,
        machineName: d.name,
        machineCode: d.code,
        smsFlag: flag(on.get(d.id) ?? true),
        todaySmsCount: counts.get(d.id) ?? 0,
      })),
      total,
    };
  }

  async function setDeviceSwitch(
    userId: number,
    input: { eid: number; machineId: number; smsFlag: boolean },
  ): Promise<MachineMsgConfig> {
    const [dev] = await db.select().from(devices).where(eq(devices.id, input.machineId));
    if (!dev) throw fail("EDIT_MACHINE_NOT_FOUND");
    let name: string;
    if (input.eid === 0) {
      const [link] = await db
        .select()
        .from(deviceLinks)
        .where(and(eq(deviceLinks.deviceId, dev.id), eq(deviceLinks.userId, userId)));
      if (!link) throw fail("DEVICE_NO_PERMISSION");
      name = link.name;
    } else {
      await requireAdmin(userId, input.eid);
      const [held] = await db
        .select()
        .from(enterpriseDevices)
        .where(
          and(
            eq(enterpriseDevices.enterpriseId, input.eid),
            eq(enterpriseDevices.deviceId, dev.id),
          ),
        );
      if (!held) throw fail("DEVICE_NO_PERMISSION");
      name = held.name;
    }
    const row = {
      deviceId: dev.id,
      eid: input.eid,
      userId: input.eid === 0 ? userId : 0,
      smsFlag: input.smsFlag,
      updatedAt: clock.now(),
    };
    await db
      .insert(deviceSmsSwitches)
      .values(row)
      .onConflictDoUpdate({
        target: [deviceSmsSwitches.deviceId, deviceSmsSwitches.eid, deviceSmsSwitches.userId],
        set: { smsFlag: row.smsFlag, updatedAt: row.updatedAt },
      });
    const counts = await deps.todayDeviceCounts?.(input.eid, row.userId, [dev.id]);
    return {
      machineId: dev.id,
      machineName: name,
      machineCode: dev.code,
      smsFlag: flag(input.smsFlag),
      todaySmsCount: counts?.get(dev.id) ?? 0,
    };
  }

  // ---- Contacts ----

  const contactView = (c: typeof alarmContacts.$inferSelect): AlarmContact => ({
    id: c.id,
    kind: c.kind,
    name: c.name,
    phone: c.phone,
    countryCode: c.countryCode,
    email: c.email,
    eid: c.eid,
    createTime: epoch(c.createdAt),
  });

  async function addContact(
    userId: number,
    input: {
      eid: number;
      kind: ContactKind;
      name: string;
      phone?: string;
      countryCode?: string;
      email?: string;
    },
  ): Promise<AlarmContact> {
    if (input.eid > 0) await requireAdmin(userId, input.eid);
    const ownerUser = input.eid > 0 ? 0 : userId;
    let phone = "";
    let countryCode = "";
    let email = "";
    if (input.kind === "phone") {
      countryCode = input.countryCode ?? "86";
      const normal = normalizePhone(input.phone ?? "", countryCode);
      if (normal === null) throw AppError.invalid("phone", "v.phone");
      phone = normal;
    } else {
      email = (input.email ?? "").trim().toLowerCase();
    }
    return db.transaction(async (tx) => {
      // One owner's contacts change one at a time: the limit holds under concurrent adds.
      await tx.execute(sql`select pg_advisory_xact_lock(${7_120_000 + input.eid}, ${ownerUser})`);
      const [{ n }] = await tx
        .select({ n: count() })
        .from(alarmContacts)
        .where(and(eq(alarmContacts.eid, input.eid), eq(alarmContacts.userId, ownerUser)));
      if (n >= SMS_PUSH_DEFAULTS.maxContacts) throw fail("ALARM_CONTACT_LIMIT");
      const [row] = await tx
        .insert(alarmContacts)
        .values({
          eid: input.eid,
          userId: ownerUser,
          kind: input.kind,
          name: input.name,
          phone,
          countryCode,
          email,
          createdAt: clock.now(),
        })
        .onConflictDoNothing()
        .returning();
      if (!row) throw fail("ALARM_CONTACT_EXISTS");
      return contactView(row);
    });
  }

  async function listContacts(
    userId: number,
    q: { eid: number; page: number; pageSize: number },
  ): Promise<{ list: AlarmContact[]; total: number }> {
    if (q.eid > 0) await requireMember(userId, q.eid);
    const where = and(
      eq(alarmContacts.eid, q.eid),
      eq(alarmContacts.userId, q.eid > 0 ? 0 : userId),
    );
    const [rows, [{ n }]] = await Promise.all([
      db
        .select()
        .from(alarmContacts)
        .where(where)
        .orderBy(desc(alarmContacts.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ n: count() }).from(alarmContacts).where(where),
    ]);
    return { list: rows.map(contactView), total: n };
  }

  async function deleteContact(userId: number, input: { eid: number; id: number }) {
    if (input.eid > 0) await requireAdmin(userId, input.eid);
    const gone = await db
      .delete(alarmContacts)
      .where(
        and(
          eq(alarmContacts.id, input.id),
          eq(alarmContacts.eid, input.eid),
          eq(alarmContacts.userId, input.eid > 0 ? 0 : userId),
        ),
      )
      .returning({ id: alarmContacts.id });
    if (gone.length === 0) throw fail("ALARM_CONTACT_NOT_FOUND");
  }

  // ---- Stock ----

  /** Credits an account inside a transaction (creating it on first use). */
  async function credit(tx: Db, eid: number, userId: number, amount: number) {
    await tx
      .insert(smsAccounts)
      .values({ eid, userId, balance: amount, received: amount, used: 0 })
      .onConflictDoUpdate({
        target: [smsAccounts.eid, smsAccounts.userId],
        set: {
          balance: sql`${smsAccounts.balance} + ${amount}`,
          received: sql`${smsAccounts.received} + ${amount}`,
        },
      });
  }

  /**
   * Takes `amount` from an account only if it holds that much: one conditional UPDATE, so
   * concurrent debits can never take it below zero. False when the stock is short.
   */
  async function debit(
    tx: Db,
    eid: number,
    userId: number,
    amount: number,
    usedBy: "send" | "move",
  ): Promise<boolean> {
    const rows = await tx
      .update(smsAccounts)
      .set({
        balance: sql`${smsAccounts.balance} - ${amount}`,
        ...(usedBy === "send" ? { used: sql`${smsAccounts.used} + ${amount}` } : {}),
        ...(usedBy === "move" ? { received: sql`${smsAccounts.received} - ${amount}` } : {}),
      })
      .where(
        and(
          eq(smsAccounts.eid, eid),
          eq(smsAccounts.userId, userId),
          gte(smsAccounts.balance, amount),
        ),
      )
      .returning({ balance: smsAccounts.balance });
    return rows.length === 1;
  }

  /** Gives back what a send took (the provider refused it). */
  async function refund(tx: Db, eid: number, userId: number, amount: number) {
    await tx
      .update(smsAccounts)
      .set({
        balance: sql`${smsAccounts.balance} + ${amount}`,
        used: sql`greatest(${smsAccounts.used} - ${amount}, 0)`,
      })
      .where(and(eq(smsAccounts.eid, eid), eq(smsAccounts.userId, userId)));
  }

  async function stockView(eid: number, userId: number): Promise<SmsStock> {
    const acc = await account(eid, userId);
    let name = "";
    let accountText = "";
    if (userId > 0) {
      const [u] = await db.select().from(users).where(eq(users.id, userId));
      name = u?.name ?? "";
      accountText = u ? maskAccount({ phone: u.phone, email: u.email }) : "";
    } else if (eid > 0) {
      name = (await requireEnterprise(eid)).name;
    }
    return {
      eid,
      userId,
      name,
      account: accountText,
      balance: acc.balance,
      received: acc.received,
      used: acc.used,
    };
  }

  /** The operator records a sale: an enterprise's pool, or a user's personal stock. */
  async function recordSale(
    operatorId: number,
    input: { eid: number; userId?: number; amount: number; remark?: string },
  ): Promise<SmsStock> {
    const eid = input.eid;
    const toUser = eid > 0 ? 0 : (input.userId ?? 0);
    if (eid > 0) await requireEnterprise(eid);
    else {
      const [u] = await db.select().from(users).where(eq(users.id, toUser));
      if (!u) throw fail("ACCOUNT_NOT_FOUND");
    }
    await db.transaction(async (tx) => {
      await credit(tx, eid, toUser, input.amount);
      await tx.insert(smsStockRecords).values({
        operate: "sale",
        eid,
        fromUserId: 0,
        toUserId: toUser,
        amount: input.amount,
        remark: input.remark ?? "",
        operatorId,
        createdAt: clock.now(),
      });
    });
    return stockView(eid, toUser);
  }

  async function requireMemberUser(eid: number, userId: number) {
    if (!(await membership(userId, eid)).member) throw fail("MEMBER_NOT_FOUND");
  }

  /** The admin allocates from the enterprise pool to a member. */
  async function allocate(
    adminId: number,
    input: { eid: number; userId: number; amount: number },
  ): Promise<SmsStock> {
    await requireAdmin(adminId, input.eid);
    await requireMemberUser(input.eid, input.userId);
    await db.transaction(async (tx) => {
      if (!(await debit(tx, input.eid, 0, input.amount, "move")))
        throw fail("SMS_STOCK_NOT_ENOUGH");
      await credit(tx, input.eid, input.userId, input.amount);
      await tx.insert(smsStockRecords).values({
        operate: "allocate",
        eid: input.eid,
        fromUserId: 0,
        toUserId: input.userId,
        amount: input.amount,
        operatorId: adminId,
        createdAt: clock.now(),
      });
    });
    return stockView(input.eid, input.userId);
  }

  /** The admin moves allocated stock from one member to another. */
  async function transfer(
    adminId: number,
    input: { eid: number; fromUserId: number; toUserId: number; amount: number },
  ) {
    await requireAdmin(adminId, input.eid);
    await requireMemberUser(input.eid, input.fromUserId);
    await requireMemberUser(input.eid, input.toUserId);
    await db.transaction(async (tx) => {
      // Both accounts locked in user order first: transfers both ways at once cannot deadlock.
      const pair = [input.fromUserId, input.toUserId].sort((a, b) => a - b);
      for (const userId of pair)
        await tx.insert(smsAccounts).values({ eid: input.eid, userId }).onConflictDoNothing();
      await tx
        .select({ userId: smsAccounts.userId })
        .from(smsAccounts)
        .where(and(eq(smsAccounts.eid, input.eid), inArray(smsAccounts.userId, pair)))
        .orderBy(smsAccounts.userId)
        .for("update");
      if (!(await debit(tx, input.eid, input.fromUserId, input.amount, "move")))
        throw fail("SMS_STOCK_NOT_ENOUGH");
      await credit(tx, input.eid, input.toUserId, input.amount);
      await tx.insert(smsStockRecords).values({
        operate: "transfer",
        eid: input.eid,
        fromUserId: input.fromUserId,
        toUserId: input.toUserId,
        amount: input.amount,
        operatorId: adminId,
        createdAt: clock.now(),
      });
    });
    return {
      from: await stockView(input.eid, input.fromUserId),
      to: await stockView(input.eid, input.toUserId),
    };
  }

  /** A member's stock: their own, or (admin) anyone's of the enterprise. */
  async function userStock(callerId: number, eid: number, userId?: number): Promise<SmsStock> {
    const m = await requireMember(callerId, eid);
    const target = userId ?? callerId;
    if (target !== callerId) {
      if (!m.admin) throw fail("NO_MANAGEMENT_ACCESS");
      await requireMemberUser(eid, target);
    }
    return stockView(eid, target);
  }

  /** Every member's stock (admin), the pool first. */
  async function stockList(adminId: number, eid: number) {
    await requireAdmin(adminId, eid);
    const members = await db
      .selectDistinct({ userId: enterpriseMembers.userId })
      .from(enterpriseMembers)
      .where(eq(enterpriseMembers.enterpriseId, eid))
      .orderBy(enterpriseMembers.userId);
    const list = [await stockView(eid, 0)];
    for (const m of members) list.push(await stockView(eid, m.userId));
    return { list, total: list.length };
  }

  // ---- Records ----

  async function stockRecords(q: {
    eid?: number;
    toUserId?: number;
    operates: StockOperate[];
    startTime?: number;
    endTime?: number;
    page: number;
    pageSize: number;
  }): Promise<{ list: SmsStockRecord[]; total: number }> {
    const where = and(
      inArray(smsStockRecords.operate, q.operates),
      q.eid !== undefined ? eq(smsStockRecords.eid, q.eid) : undefined,
      q.toUserId !== undefined ? eq(smsStockRecords.toUserId, q.toUserId) : undefined,
      q.startTime !== undefined
        ? gte(smsStockRecords.createdAt, new Date(q.startTime * 1000))
        : undefined,
      q.endTime !== undefined
        ? lte(smsStockRecords.createdAt, new Date(q.endTime * 1000))
        : undefined,
    );
    const [rows, [{ n }]] = await Promise.all([
      db
        .select()
        .from(smsStockRecords)
        .where(where)
        .orderBy(desc(smsStockRecords.createdAt), desc(smsStockRecords.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ n: count() }).from(smsStockRecords).where(where),
    ]);
    const userIds = [
      ...new Set(rows.flatMap((r) => [r.fromUserId, r.toUserId, r.operatorId ?? 0])),
    ].filter((id) => id > 0);
    const eids = [...new Set(rows.map((r) => r.eid))].filter((id) => id > 0);
    const [names, entNames] = await Promise.all([
      userIds.length
        ? db
            .select({ id: users.id, name: users.name })
            .from(users)
            .where(inArray(users.id, userIds))
        : [],
      eids.length
        ? db
            .select({ id: enterprises.id, name: enterprises.name })
            .from(enterprises)
            .where(inArray(enterprises.id, eids))
        : [],
    ]);
    const nameOf = new Map(names.map((u) => [u.id, u.name]));
    const entOf = new Map(entNames.map((e) => [e.id, e.name]));
    return {
      list: rows.map((r) => ({
        id: r.id,
        operate: r.operate,
        eid: r.eid,
        enterpriseName: entOf.get(r.eid) ?? "",
        fromUserId: r.fromUserId,
        fromName: r.fromUserId ? (nameOf.get(r.fromUserId) ?? "") : (entOf.get(r.eid) ?? ""),
        toUserId: r.toUserId,
        toName: r.toUserId ? (nameOf.get(r.toUserId) ?? "") : (entOf.get(r.eid) ?? ""),
        amount: r.amount,
        remark: r.remark,
        operatorName: r.operatorId ? (nameOf.get(r.operatorId) ?? "") : "",
        createTime: epoch(r.createdAt),
      })),
      total: n,
    };
  }

  /** Sales: an enterprise's (admin), or those to the caller personally (eid 0). */
  async function saleList(
    userId: number,
    q: { eid: number; startTime?: number; endTime?: number; page: number; pageSize: number },
  ) {
    if (q.eid > 0) await requireAdmin(userId, q.eid);
    return stockRecords({
      ...q,
      toUserId: q.eid > 0 ? undefined : userId,
      operates: ["sale"],
    });
  }

  async function allocationList(
    userId: number,
    q: { eid: number; startTime?: number; endTime?: number; page: number; pageSize: number },
  ) {
    if (q.eid === 0) return { list: [], total: 0 };
    await requireAdmin(userId, q.eid);
    return stockRecords({ ...q, operates: ["allocate", "transfer"] });
  }

  return {
    requireAdmin,
    requireMember,
    membership,
    getUserConfig,
    setUserConfig,
    getEntConfig,
    setEntConfig,
    listDevices,
    setDeviceSwitch,
    addContact,
    listContacts,
    deleteContact,
    credit,
    debit,
    refund,
    recordSale,
    allocate,
    transfer,
    userStock,
    personalStock: (userId: number) => stockView(0, userId),
    stockList,
    saleList,
    allSales: (q: {
      eid: number;
      startTime?: number;
      endTime?: number;
      page: number;
      pageSize: number;
    }) => stockRecords({ ...q, eid: q.eid > 0 ? q.eid : undefined, operates: ["sale"] }),
    allocationList,
    /** The data centre's charts (stats.ts). */
    statistics: createPushStats({ db, clock, push: { requireMember } }),
  };
}
