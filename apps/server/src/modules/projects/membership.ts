import { PROJECT_LEVEL } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { users } from "../accounts/schema.ts";
import { enterprises } from "../enterprises/schema.ts";
import { projects, projectUsers } from "./schema.ts";

export interface ProjectContext {
  /** 0: personal projects; otherwise the enterprise. */
  eid: number;
  /** 1 enterprise projects, 2 maintenance projects (enterprise contexts only). */
  type: number;
}

export type ProjectMembership = ReturnType<typeof createProjectMembership>;

/** Who may use projects: the context's feature switch, and the caller's level in a project. */
export function createProjectMembership(deps: {
  db: Db;
  /** Refuses a caller who does not see the enterprise's list of `type`. */
  requireEnterpriseList: (userId: number, eid: number, type: 1 | 2) => Promise<unknown>;
}) {
  const { db } = deps;

  /**
   * The caller may use the projects of this context: personal projects need the user's own
   * switch (users.enable_project), an enterprise's need its enableProject and a member who
   * sees that list (SPEC §6: per-user or per-enterprise flags).
   */
  async function requireContext(userId: number, ctx: ProjectContext): Promise<void> {
    if (ctx.eid === 0) {
      const [user] = await db
        .select({ enableProject: users.enableProject })
        .from(users)
        .where(eq(users.id, userId));
      if (!user?.enableProject) throw fail("PROJECT_DISABLED_PERSONAL");
      return;
    }
    const [enterprise] = await db
      .select({ enableProject: enterprises.enableProject })
      .from(enterprises)
      .where(eq(enterprises.id, ctx.eid));
    if (!enterprise) throw fail("ENTERPRISE_NOT_FOUND");
    await deps.requireEnterpriseList(userId, ctx.eid, ctx.type === 2 ? 2 : 1);
    if (!enterprise.enableProject) throw fail("PROJECT_DISABLED");
  }

  /**
   * The project and the caller's level; a non-member gets PROJECT_NOT_FOUND. A project whose
   * context has the feature off (the owner's switch for a personal project, the
   * enterprise's otherwise) answers PROJECT_DISABLED to its members too.
   */
  async function membership(userId: number, projectId: number) {
    const [row] = await db
      .select({
        project: projects,
        level: projectUsers.level,
        ownerOn: users.enableProject,
        enterpriseOn: enterprises.enableProject,
      })
      .from(projects)
      .innerJoin(projectUsers, eq(projectUsers.projectId, projects.id))
      .innerJoin(users, eq(users.id, projects.ownerId))
      .leftJoin(enterprises, eq(enterprises.id, projects.eid))
      .where(and(eq(projects.id, projectId), eq(projectUsers.userId, userId)));
    if (!row) throw fail("PROJECT_NOT_FOUND");
    if (row.project.eid === 0 && !row.ownerOn) throw fail("PROJECT_DISABLED_PERSONAL");
    if (row.project.eid !== 0 && !row.enterpriseOn) throw fail("PROJECT_DISABLED");
    return { project: row.project, level: row.level };
  }

  async function requireOwner(userId: number, projectId: number) {
    const row = await membership(userId, projectId);
    if (row.level !== PROJECT_LEVEL.owner) throw fail("PROJECT_NOT_OWNER");
    return row.project;
  }

  return { requireContext, membership, requireOwner };
}
