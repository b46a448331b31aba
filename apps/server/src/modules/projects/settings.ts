import { randomBytes } from "node:crypto";
import {
  PROJECT_LEVEL,
  type ProjectDeliveryView,
  type ProjectServerView,
  type ProjectView,
} from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, encryptSecret } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import type { ProjectContext, ProjectMembership } from "./membership.ts";
import { type Project, projects, projectUsers } from "./schema.ts";
import type { ProjectViews } from "./views.ts";

export interface ProjectSettings {
  name?: string;
  description?: string;
  report_state?: boolean;
  server?: string;
  enable_get_visit_url?: boolean;
  interval?: number;
}

/** Projects themselves: listed, created, their settings and key, deleted. */
export function createProjectSettings(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  access: ProjectMembership;
  views: ProjectViews;
  delivery?: (projectId: number) => Promise<ProjectDeliveryView>;
  reportSettingsChanged?: (projectId: number) => Promise<void>;
}) {
  const { db, clock, views } = deps;
  const { requireContext, membership, requireOwner } = deps.access;

  const newKey = () => randomBytes(24).toString("base64url");
  const seal = (key: string) => encryptSecret(deps.secretKey, key);

  /** The key that signs a project's reports (for the reporting module). */
  function keyOf(project: Project): string {
    return decryptSecret(deps.secretKey, project.secretKeySealed);
  }

  async function list(userId: number, ctx: ProjectContext) {
    await requireContext(userId, ctx);
    const rows = await db
      .select({ project: projects, level: projectUsers.level })
      .from(projects)
      .innerJoin(projectUsers, eq(projectUsers.projectId, projects.id))
      .innerJoin(users, eq(users.id, projects.ownerId))
      .where(
        and(
          eq(projectUsers.userId, userId),
          eq(projects.eid, ctx.eid),
          // A personal project shows while its owner has the feature (membership's rule).
          ctx.eid === 0 ? eq(users.enableProject, true) : eq(projects.type, ctx.type),
        ),
      )
      .orderBy(projects.id);
    const list = await views.viewMany(rows);
    return { list, total: list.length };
  }

  async function get(userId: number, projectId: number): Promise<ProjectView> {
    const row = await membership(userId, projectId);
    return views.viewOne(row.project, row.level);
  }

  async function add(
    userId: number,
    input: ProjectContext &
      Required<Omit<ProjectSettings, "report_state">> & {
        report_state: boolean;
      },
  ): Promise<ProjectView> {
    await requireContext(userId, input);
    const key = newKey();
    const now = clock.now();
    const project = await db.transaction(async (tx) => {
      const [p] = await tx
        .insert(projects)
        .values({
          name: input.name,
          description: input.description,
          eid: input.eid,
          type: input.eid === 0 ? 1 : input.type,
          ownerId: userId,
          reportState: input.report_state,
          server: input.server,
          secretKeySealed: seal(key),
          enableGetVisitUrl: input.enable_get_visit_url,
          intervalHours: input.interval,
          createdAt: now,
        })
        .returning();
      await tx
        .insert(projectUsers)
        .values({ projectId: p.id, userId, level: PROJECT_LEVEL.owner, createdAt: now });
      return p;
    });
    return views.viewOne(project, PROJECT_LEVEL.owner, key);
  }

  async function edit(userId: number, projectId: number, s: ProjectSettings) {
    await requireOwner(userId, projectId);
    const [p] = await db
      .update(projects)
      .set({
        ...(s.name !== undefined && { name: s.name }),
        ...(s.description !== undefined && { description: s.description }),
        ...(s.report_state !== undefined && { reportState: s.report_state }),
        ...(s.server !== undefined && { server: s.server }),
        ...(s.enable_get_visit_url !== undefined && { enableGetVisitUrl: s.enable_get_visit_url }),
        ...(s.interval !== undefined && { intervalHours: s.interval }),
      })
      .where(eq(projects.id, projectId))
      .returning();
    await deps.reportSettingsChanged?.(projectId);
    return views.viewOne(p, PROJECT_LEVEL.owner);
  }

  async function server(userId: number, projectId: number): Promise<ProjectServerView> {
    const { project } = await membership(userId, projectId);
    return {
      id: project.id,
      server: project.server,
      report_state: project.reportState ? 1 : 0,
      interval: project.intervalHours,
      delivery: (await deps.delivery?.(project.id)) ?? {
        backlog: 0,
        delivered: project.delivered,
        dropped: 0,
        next_attempt_at: null,
        last_success_at: null,
        last_failure_at: null,
        last_error: "",
      },
    };
  }

  async function resetKey(userId: number, projectId: number) {
    await requireOwner(userId, projectId);
    const key = newKey();
    await db
      .update(projects)
      .set({ secretKeySealed: seal(key) })
      .where(eq(projects.id, projectId));
    await deps.reportSettingsChanged?.(projectId);
    return { secret_key: key };
  }

  /** Deletes the project; its machines, users and queued points go with it (cascade). */
  async function remove(userId: number, projectId: number) {
    await requireOwner(userId, projectId);
    await db.delete(projects).where(eq(projects.id, projectId));
    // Its connection to the report server is closed.
    await deps.reportSettingsChanged?.(projectId);
  }

  return { list, get, add, edit, server, resetKey, remove, keyOf };
}
