import type { ProjectView } from "@keyway/shared";
import { count, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { type Project, projectMachines, projectUsers } from "./schema.ts";

const MASK = "********";

export type ProjectViews = ReturnType<typeof createProjectViews>;

/** A project as the API shows it, with its numbers of users and machines. */
export function createProjectViews(deps: { db: Db }) {
  const { db } = deps;

  async function lengths(projectIds: number[]) {
    if (projectIds.length === 0) return { users: new Map(), machines: new Map() };
    const [u, m] = await Promise.all([
      db
        .select({ projectId: projectUsers.projectId, n: count() })
        .from(projectUsers)
        .where(inArray(projectUsers.projectId, projectIds))
        .groupBy(projectUsers.projectId),
      db
        .select({ projectId: projectMachines.projectId, n: count() })
        .from(projectMachines)
        .where(inArray(projectMachines.projectId, projectIds))
        .groupBy(projectMachines.projectId),
    ]);
    return {
      users: new Map<number, number>(u.map((r) => [r.projectId, r.n])),
      machines: new Map<number, number>(m.map((r) => [r.projectId, r.n])),
    };
  }

  /** Several projects with the caller's level in each, the key masked. */
  async function viewMany(rows: { project: Project; level: number }[]): Promise<ProjectView[]> {
    const l = await lengths(rows.map((r) => r.project.id));
    return rows.map((r) =>
      view(r.project, r.level, {
        users: l.users.get(r.project.id) ?? 0,
        machines: l.machines.get(r.project.id) ?? 0,
      }),
    );
  }

  /** One project; `key` shows its key in clear (just made), otherwise masked. */
  async function viewOne(p: Project, level: number, key?: string): Promise<ProjectView> {
    const l = await lengths([p.id]);
    return view(
      p,
      level,
      { users: l.users.get(p.id) ?? 0, machines: l.machines.get(p.id) ?? 0 },
      key,
    );
  }

  return { viewMany, viewOne };
}

function view(
  p: Project,
  level: number,
  counts: { users: number; machines: number },
  key?: string,
): ProjectView {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    eid: p.eid,
    type: p.type,
    report_state: p.reportState ? 1 : 0,
    report_count: p.reportCount,
    available_count: Math.max(0, p.reportCount - p.delivered),
    enable_get_visit_url: p.enableGetVisitUrl ? 1 : 0,
    ownner: p.ownerId,
    server: p.server,
    secret_key: key ?? MASK,
    interval: p.intervalHours,
    limit_authority: level,
    user_length: counts.users,
    machine_length: counts.machines,
    created_at: p.createdAt.toISOString(),
  };
}
