import type { SmsStockRecord, StockOperate } from "@keyway/shared";
import { and, count, desc, eq, gte, inArray, lte } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../accounts/schema.ts";
import { enterprises } from "../enterprises/schema.ts";
import type { PushAccess } from "./access.ts";
import { smsStockRecords } from "./schema.ts";
import { epoch } from "./wire.ts";

type Page = { eid: number; startTime?: number; endTime?: number; page: number; pageSize: number };

/** The stock ledger as read back: sales, allocations and transfers, with the names. */
export function createStockLedger(deps: { db: Db; access: PushAccess }) {
  const { db, access } = deps;

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
  async function saleList(userId: number, q: Page) {
    if (q.eid > 0) await access.requireAdmin(userId, q.eid);
    return stockRecords({
      ...q,
      toUserId: q.eid > 0 ? undefined : userId,
      operates: ["sale"],
    });
  }

  async function allocationList(userId: number, q: Page) {
    if (q.eid === 0) return { list: [], total: 0 };
    await access.requireAdmin(userId, q.eid);
    return stockRecords({ ...q, operates: ["allocate", "transfer"] });
  }

  return {
    saleList,
    /** Every sale (the operator), of one enterprise when eid > 0. */
    allSales: (q: Page) =>
      stockRecords({ ...q, eid: q.eid > 0 ? q.eid : undefined, operates: ["sale"] }),
    allocationList,
  };
}
