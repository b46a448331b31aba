import { PROJECT_LEVEL, type ProjectUserView } from "@keyway/shared";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { AccountRef } from "../accounts/accountRef.ts";
import { users } from "../accounts/schema.ts";
import type { ProjectMembership } from "./membership.ts";
import { projects, projectUsers } from "./schema.ts";
import type { ProjectViews } from "./views.ts";

/** A project's people: the owner (level 3) adds and removes users, or hands the project on. */
export function createProjectMembers(deps: {
  db: Db;
  clock: Clock;
  access: ProjectMembership;
  views: ProjectViews;
  findUser: (ref: AccountRef) => Promise<{ id: number } | undefined>;
}) {
  const { db, clock } = deps;
  const { membership, requireOwner } = deps.access;

  async function usersOf(userId: number, projectId: number) {
    await membership(userId, projectId);
    const rows = await db
      .select({ user: users, level: projectUsers.level })
      .from(projectUsers)
      .innerJoin(users, eq(users.id, projectUsers.userId))
      .where(eq(projectUsers.projectId, projectId))
      .orderBy(sql`${projectUsers.level} desc`, projectUsers.id);
    const list: ProjectUserView[] = rows.map((r) => ({
      user_id: r.user.id,
      name: r.user.name,
      email: r.user.email ?? "",
      phone: r.user.phone ?? "",
      country_code: r.user.countryCode,
      limit_authority: r.level,
    }));
    return { list, total: list.length };
  }

  async function addUser(userId: number, projectId: number, ref: AccountRef) {
    await requireOwner(userId, projectId);
    const user = await deps.findUser(ref);
    if (!user) throw fail("PROJECT_USER_NOT_FOUND");
    const inserted = await db
      .insert(projectUsers)
      .values({ projectId, userId: user.id, level: PROJECT_LEVEL.user, createdAt: clock.now() })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) throw fail("PROJECT_USER_EXISTS");
    const all = await usersOf(userId, projectId);
    return all.list.find((u) => u.user_id === user.id) as ProjectUserView;
  }

  /** The owner removes a user; a level-2 user naming themselves leaves. */
  async function removeUser(userId: number, projectId: number, removedUserId: number) {
    const me = await membership(userId, projectId);
    if (removedUserId === userId) {
      if (me.level === PROJECT_LEVEL.owner) throw fail("PROJECT_OWNER_CANNOT_QUIT");
    } else if (me.level !== PROJECT_LEVEL.owner) throw fail("PROJECT_NOT_OWNER");
    const removed = await db
      .delete(projectUsers)
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, removedUserId)))
      .returning();
    if (removed.length === 0) throw fail("PROJECT_MEMBER_NOT_FOUND");
  }

  /**
   * The target (already a user) becomes the owner (3), the old owner drops to 2. A personal
   * project is open while its owner's switch is on (docs/architecture/reporting.md): a
   * target without the switch would lock everyone out, the new owner included, so it is
   * refused.
   */
  async function transfer(userId: number, projectId: number, targetUserId: number) {
    const current = await requireOwner(userId, projectId);
    if (targetUserId === userId) throw fail("PROJECT_MEMBER_NOT_FOUND");
    const [target] = await db
      .select({ enableProject: users.enableProject })
      .from(projectUsers)
      .innerJoin(users, eq(users.id, projectUsers.userId))
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, targetUserId)));
    if (!target) throw fail("PROJECT_MEMBER_NOT_FOUND");
    if (current.eid === 0 && !target.enableProject) throw fail("PROJECT_TRANSFER_TARGET_DISABLED");
    const project = await db.transaction(async (tx) => {
      const promoted = await tx
        .update(projectUsers)
        .set({ level: PROJECT_LEVEL.owner })
        .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, targetUserId)))
        .returning();
      if (promoted.length === 0) throw fail("PROJECT_MEMBER_NOT_FOUND");
      await tx
        .update(projectUsers)
        .set({ level: PROJECT_LEVEL.user })
        .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, userId)));
      const [p] = await tx
        .update(projects)
        .set({ ownerId: targetUserId })
        .where(eq(projects.id, projectId))
        .returning();
      return p;
    });
    return deps.views.viewOne(project, PROJECT_LEVEL.user);
  }

  return { usersOf, addUser, removeUser, transfer };
}
