import { maskAccount, type SmsStock } from "@keyway/shared";
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import { enterpriseMembers } from "../enterprises/schema.ts";
import type { PushAccess } from "./access.ts";
import { smsAccounts, smsStockRecords } from "./schema.ts";

/** An SMS stock account; one never used reads as empty. */
export async function account(db: Db, eid: number, userId: number) {
  const [row] = await db
    .select()
    .from(smsAccounts)
    .where(and(eq(smsAccounts.eid, eid), eq(smsAccounts.userId, userId)));
  return row ?? { eid, userId, balance: 0, received: 0, used: 0 };
}

/** Credits an account inside a transaction (creating it on first use). */
export async function credit(tx: Db, eid: number, userId: number, amount: number) {
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
export async function debit(
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
export async function refund(tx: Db, eid: number, userId: number, amount: number) {
  await tx
    .update(smsAccounts)
    .set({
      balance: sql`${smsAccounts.balance} + ${amount}`,
      used: sql`greatest(${smsAccounts.used} - ${amount}, 0)`,
    })
    .where(and(eq(smsAccounts.eid, eid), eq(smsAccounts.userId, userId)));
}

/** The SMS stock: the operator's sales, an enterprise admin's allocations and transfers. */
export function createStock(deps: { db: Db; clock: Clock; access: PushAccess }) {
  const { db, clock, access } = deps;

  async function stockView(eid: number, userId: number): Promise<SmsStock> {
    const acc = await account(db, eid, userId);
    let name = "";
    let accountText = "";
    if (userId > 0) {
      const [u] = await db.select().from(users).where(eq(users.id, userId));
      name = u?.name ?? "";
      accountText = u ? maskAccount({ phone: u.phone, email: u.email }) : "";
    } else if (eid > 0) {
      name = (await access.requireEnterprise(eid)).name;
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
    if (eid > 0) await access.requireEnterprise(eid);
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

  /** The admin allocates from the enterprise pool to a member. */
  async function allocate(
    adminId: number,
    input: { eid: number; userId: number; amount: number },
  ): Promise<SmsStock> {
    await access.requireAdmin(adminId, input.eid);
    await access.requireMemberUser(input.eid, input.userId);
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
    await access.requireAdmin(adminId, input.eid);
    await access.requireMemberUser(input.eid, input.fromUserId);
    await access.requireMemberUser(input.eid, input.toUserId);
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
    const m = await access.requireMember(callerId, eid);
    const target = userId ?? callerId;
    if (target !== callerId) {
      if (!m.admin) throw fail("NO_MANAGEMENT_ACCESS");
      await access.requireMemberUser(eid, target);
    }
    return stockView(eid, target);
  }

  /** Every member's stock (admin), the pool first. */
  async function stockList(adminId: number, eid: number) {
    await access.requireAdmin(adminId, eid);
    const members = await db
      .selectDistinct({ userId: enterpriseMembers.userId })
      .from(enterpriseMembers)
      .where(eq(enterpriseMembers.enterpriseId, eid))
      .orderBy(enterpriseMembers.userId);
    const list = [await stockView(eid, 0)];
    for (const m of members) list.push(await stockView(eid, m.userId));
    return { list, total: list.length };
  }

  return {
    recordSale,
    allocate,
    transfer,
    userStock,
    personalStock: (userId: number) => stockView(0, userId),
    stockList,
  };
}
