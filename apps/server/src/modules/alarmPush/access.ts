import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { enterpriseMembers, enterprises } from "../enterprises/schema.ts";

export type PushAccess = ReturnType<typeof createPushAccess>;

/** Who may read or change an enterprise's push settings and stock. */
export function createPushAccess(db: Db) {
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

  /** The target of a stock move must be a member of the enterprise. */
  async function requireMemberUser(eid: number, userId: number) {
    if (!(await membership(userId, eid)).member) throw fail("MEMBER_NOT_FOUND");
  }

  return { membership, requireEnterprise, requireAdmin, requireMember, requireMemberUser };
}
