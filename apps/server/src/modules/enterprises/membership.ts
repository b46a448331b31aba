import type {
  EnterpriseLogo,
  EnterpriseMember,
  EnterpriseSummary,
  MemberKind,
} from "@keyway/shared";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { type EnterpriseRoles, mayToggleProject, type Viewer } from "./roles.ts";
import { enterpriseMembers, enterprises } from "./schema.ts";
import { accountOf, summary } from "./views.ts";

export type Membership = ReturnType<typeof createMembership>;

/** An enterprise's members and admins, and what a member is shown of the enterprise. */
export function createMembership(deps: {
  db: Db;
  clock: Clock;
  roles: EnterpriseRoles;
  findUser: (ref: AccountRef) => Promise<{ id: number; activatedAt: Date | null } | undefined>;
}) {
  const { db, clock, roles } = deps;

  async function members(eid: number, kind?: MemberKind): Promise<EnterpriseMember[]> {
    const rows = await db
      .select({ member: enterpriseMembers, user: users })
      .from(enterpriseMembers)
      .innerJoin(users, eq(users.id, enterpriseMembers.userId))
      .where(
        and(
          eq(enterpriseMembers.enterpriseId, eid),
          kind ? eq(enterpriseMembers.kind, kind) : undefined,
        ),
      )
      .orderBy(asc(enterpriseMembers.createdAt), asc(users.id));
    return rows.map((r) => ({
      userId: r.user.id,
      name: r.user.name,
      account: accountOf(r.user),
      kind: r.member.kind,
      isAdmin: r.member.isAdmin ? 1 : 0,
    }));
  }

  async function listForUser(userId: number): Promise<EnterpriseSummary[]> {
    const rows = await db
      .select({
        enterprise: enterprises,
        kind: enterpriseMembers.kind,
        isAdmin: enterpriseMembers.isAdmin,
      })
      .from(enterpriseMembers)
      .innerJoin(enterprises, eq(enterprises.id, enterpriseMembers.enterpriseId))
      .where(eq(enterpriseMembers.userId, userId))
      .orderBy(asc(enterprises.id));
    const byId = new Map<number, EnterpriseSummary>();
    for (const row of rows) {
      const entry = byId.get(row.enterprise.id) ?? summary(row.enterprise);
      entry.kinds.push(row.kind);
      if (row.isAdmin) entry.isAdmin = 1;
      byId.set(row.enterprise.id, entry);
    }
    return [...byId.values()];
  }

  async function info(viewer: Viewer, eid: number): Promise<EnterpriseSummary> {
    const a = await roles.access(viewer, eid);
    return summary(a.enterprise, a.kinds, a.isAdmin);
  }

  async function logo(eid: number): Promise<EnterpriseLogo> {
    const e = await roles.requireEnterprise(eid);
    return { name: e.name, platformName: e.platformName, applyLogoUrl: e.applyLogoUrl };
  }

  async function permission(viewer: Viewer, eid: number) {
    const a = await roles.access(viewer, eid);
    return {
      eid,
      kinds: a.kinds,
      isAdmin: a.isAdmin ? 1 : 0,
      enableProject: a.enterprise.enableProject ? 1 : 0,
      canSeeEnterpriseDevices: a.canSee(1),
      canSeeMaintenanceDevices: a.canSee(2),
      canSetProject: mayToggleProject(viewer, a.enterprise, a.isAdmin),
    };
  }

  async function maintenanceTeam(viewer: Viewer, eid: number) {
    await roles.access(viewer, eid);
    return { list: await members(eid, "maintenance") };
  }

  async function listMembers(viewer: Viewer, eid: number) {
    await roles.requireAdmin(viewer, eid);
    const list = await members(eid);
    return { list, total: list.length };
  }

  async function addMember(
    viewer: Viewer,
    input: { eid: number; account: AccountRef; kind: MemberKind; isAdmin: boolean },
  ) {
    await roles.requireAdmin(viewer, input.eid);
    const user = await deps.findUser(input.account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    const inserted = await db
      .insert(enterpriseMembers)
      .values({
        enterpriseId: input.eid,
        userId: user.id,
        kind: input.kind,
        isAdmin: input.isAdmin,
        createdAt: clock.now(),
      })
      .onConflictDoNothing()
      .returning({ userId: enterpriseMembers.userId });
    if (inserted.length === 0) throw fail("MEMBER_EXISTS");
  }

  async function removeMember(
    viewer: Viewer,
    input: { eid: number; userId: number; kind: MemberKind },
  ) {
    await roles.requireAdmin(viewer, input.eid);
    const removed = await db
      .delete(enterpriseMembers)
      .where(
        and(
          eq(enterpriseMembers.enterpriseId, input.eid),
          eq(enterpriseMembers.userId, input.userId),
          eq(enterpriseMembers.kind, input.kind),
        ),
      )
      .returning({ userId: enterpriseMembers.userId });
    if (removed.length === 0) throw fail("MEMBER_NOT_FOUND");
  }

  return {
    members,
    listForUser,
    info,
    logo,
    permission,
    maintenanceTeam,
    listMembers,
    addMember,
    removeMember,
  };
}
