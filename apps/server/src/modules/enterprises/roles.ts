import type { MemberKind } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { ListType, Permissions } from "../permissions/service.ts";
import { type Enterprise, enterpriseMembers, enterprises } from "./schema.ts";

/** Device list type of the SPEC: 1 enterprise devices, 2 maintenance devices. */
export type { ListType };

const KIND_FOR_TYPE: Record<ListType, MemberKind> = { 1: "member", 2: "maintenance" };

export interface Viewer {
  userId: number;
  role: "user" | "operator";
}

/** The operator's own calls (the enterprise registry, brand switches, device assignment). */
export function requireOperator(viewer: Viewer) {
  if (viewer.role !== "operator") throw fail("NO_MANAGEMENT_ACCESS");
}

/**
 * Projects of an operator-created enterprise are the operator's to switch (a feature they
 * sell); a user-created enterprise's admins switch their own.
 */
export function mayToggleProject(viewer: Viewer, e: Enterprise, isAdmin: boolean): boolean {
  return viewer.role === "operator" || (isAdmin && e.createdBy !== null);
}

export type EnterpriseRoles = ReturnType<typeof createEnterpriseRoles>;

/**
 * Who may see and act in an enterprise: members see the list of their kind, admins both,
 * the operator everything; everyone else is refused the same way whether or not the
 * enterprise exists (docs/architecture/enterprises.md).
 */
export function createEnterpriseRoles(deps: {
  db: Db;
  permissions: Pick<Permissions, "enterpriseScope">;
}) {
  const { db } = deps;

  async function memberships(userId: number, eid: number) {
    return db
      .select({ kind: enterpriseMembers.kind, isAdmin: enterpriseMembers.isAdmin })
      .from(enterpriseMembers)
      .where(and(eq(enterpriseMembers.userId, userId), eq(enterpriseMembers.enterpriseId, eid)));
  }

  async function requireEnterprise(eid: number): Promise<Enterprise> {
    const [e] = await db.select().from(enterprises).where(eq(enterprises.id, eid)).limit(1);
    if (!e) throw fail("ENTERPRISE_NOT_FOUND");
    return e;
  }

  /** What the viewer may do in an enterprise; refuses non-members with NO_PERMISSION. */
  async function access(viewer: Viewer, eid: number) {
    const rows = await memberships(viewer.userId, eid);
    const operator = viewer.role === "operator";
    if (rows.length === 0 && !operator) throw fail("NO_PERMISSION");
    const enterprise = await requireEnterprise(eid);
    const isAdmin = operator || rows.some((r) => r.isAdmin);
    const kinds = rows.map((r) => r.kind);
    return {
      enterprise,
      kinds,
      isAdmin,
      canSee: (type: ListType) => isAdmin || kinds.includes(KIND_FOR_TYPE[type]),
    };
  }

  async function requireList(viewer: Viewer, eid: number, type: ListType) {
    const a = await access(viewer, eid);
    if (!a.canSee(type)) throw fail("NO_PERMISSION");
    return a;
  }

  /** Enterprise administration: the operator or an admin of this enterprise. */
  async function requireAdmin(viewer: Viewer, eid: number) {
    if (viewer.role !== "operator") {
      const rows = await memberships(viewer.userId, eid);
      if (!rows.some((r) => r.isAdmin)) throw fail("NO_MANAGEMENT_ACCESS");
    }
    return requireEnterprise(eid);
  }

  /**
   * The devices the viewer sees in an enterprise (the lists of their kinds; admins both), as
   * the permissions module's subquery other modules filter by (the alarm centre), with the
   * columns of a personal scope; `maintained`: held as a maintenance device. Refuses
   * non-members like the lists do.
   */
  async function deviceScope(viewer: Viewer, eid: number) {
    const a = await access(viewer, eid);
    const types = ([1, 2] as const).filter((type) => a.canSee(type));
    return {
      scope: deps.permissions.enterpriseScope(eid, types),
      isAdmin: a.isAdmin,
      isMaintenanceMember: a.kinds.includes("maintenance"),
    };
  }

  return { requireEnterprise, access, requireList, requireAdmin, deviceScope };
}
