import { randomBytes } from "node:crypto";
import {
  PROJECT_LEVEL,
  PROJECT_REPORT_COUNT_WEIGHT,
  type ProjectDeliveryView,
  type ProjectMachineView,
  type ProjectServerView,
  type ProjectUserView,
  type ProjectView,
} from "@keyway/shared";
import { and, count, eq, inArray, notExists, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, encryptSecret } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterprises } from "../enterprises/schema.ts";
import { type Project, projectMachines, projects, projectUsers } from "./schema.ts";

export type ProjectService = ReturnType<typeof createProjectService>;

export interface ProjectContext {
  /** 0: personal projects; otherwise the enterprise. */
  eid: number;
  /** 1 enterprise projects, 2 maintenance projects (enterprise contexts only). */
  type: number;
}

export interface ProjectSettings {
  name?: string;
  description?: string;
  report_state?: boolean;
  server?: string;
  enable_get_visit_url?: boolean;
  interval?: number;
}

const MASK = "********";

/**
 * Projects (SPEC §3, §4 "Project", §6, §7 "Projects"): the owner (level 3) manages people,
 * machines, report settings and the key; other users (level 2) see the project and may
 * quit. A non-member is told the project does not exist. Enterprise projects need the
 * enterprise's enableProject and a member who sees that list.
 */
export function createProjectService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  findUser: (ref: AccountRef) => Promise<{ id: number } | undefined>;
  /** Refuses a caller who does not see the enterprise's list of `type`. */
  requireEnterpriseList: (userId: number, eid: number, type: 1 | 2) => Promise<unknown>;
  /** Delivery figures of a project (the reporting module); zeros until it reports. */
  delivery?: (projectId: number) => Promise<ProjectDeliveryView>;
  /**
   * The project's server, key, switch or data count changed: a delivery waiting out a
   * backoff is tried again now (the owner just fixed what failed).
   */
  reportSettingsChanged?: (projectId: number) => Promise<void>;
  /** A machine left a project: its points still queued for that project are dropped. */
  machineReleased?: (projectId: number, deviceId: number) => Promise<unknown>;
}) {
  const { db, clock } = deps;

  const newKey = () => randomBytes(24).toString("base64url");
  const seal = (key: string) => encryptSecret(deps.secretKey, key);

  /** The key that signs a project's reports (for the reporting module). */
  function keyOf(project: Project): string {
    return decryptSecret(deps.secretKey, project.secretKeySealed);
  }

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

  async function viewOne(p: Project, level: number, key?: string): Promise<ProjectView> {
    const l = await lengths([p.id]);
    return view(
      p,
      level,
      { users: l.users.get(p.id) ?? 0, machines: l.machines.get(p.id) ?? 0 },
      key,
    );
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
    const l = await lengths(rows.map((r) => r.project.id));
    const list = rows.map((r) =>
      view(r.project, r.level, {
        users: l.users.get(r.project.id) ?? 0,
        machines: l.machines.get(r.project.id) ?? 0,
      }),
    );
    return { list, total: list.length };
  }

  async function get(userId: number, projectId: number): Promise<ProjectView> {
    const row = await membership(userId, projectId);
    return viewOne(row.project, row.level);
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
    return viewOne(project, PROJECT_LEVEL.owner, key);
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
    return viewOne(p, PROJECT_LEVEL.owner);
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
   * project is open while its owner's switch is on (decision 131): a target without the
   * switch would lock everyone out, the new owner included, so it is refused.
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
    return viewOne(project, PROJECT_LEVEL.user);
  }

  /** Deletes the project; its machines, users and queued points go with it (cascade). */
  async function remove(userId: number, projectId: number) {
    await requireOwner(userId, projectId);
    await db.delete(projects).where(eq(projects.id, projectId));
    // Its connection to the report server is closed.
    await deps.reportSettingsChanged?.(projectId);
  }

  async function machinesOf(userId: number, projectId: number) {
    const { project } = await membership(userId, projectId);
    const rows = await db
      .select({ device: devices, link: projectMachines })
      .from(projectMachines)
      .innerJoin(devices, eq(devices.id, projectMachines.deviceId))
      .where(eq(projectMachines.projectId, projectId))
      .orderBy(projectMachines.id);
    const names = await deviceNames(
      userId,
      project,
      rows.map((r) => r.device.id),
    );
    const list: ProjectMachineView[] = rows.map((r) => ({
      machine_id: r.device.id,
      machine_code: r.device.code,
      machine_name: names.get(r.device.id) || r.device.code,
      emq_project_id: projectId,
      name: project.name,
      online: r.device.online,
    }));
    return { list, total: list.length };
  }

  /** What the project's context calls its devices: the owner's names, or the enterprise's. */
  async function deviceNames(userId: number, project: Project, deviceIds: number[]) {
    if (deviceIds.length === 0) return new Map<number, string>();
    const rows =
      project.eid === 0
        ? await db
            .select({ deviceId: deviceLinks.deviceId, name: deviceLinks.name })
            .from(deviceLinks)
            .where(
              and(
                inArray(deviceLinks.deviceId, deviceIds),
                inArray(deviceLinks.userId, [userId, project.ownerId]),
              ),
            )
        : await db
            .select({ deviceId: enterpriseDevices.deviceId, name: enterpriseDevices.name })
            .from(enterpriseDevices)
            .where(
              and(
                eq(enterpriseDevices.enterpriseId, project.eid),
                inArray(enterpriseDevices.deviceId, deviceIds),
              ),
            );
    return new Map(rows.map((r) => [r.deviceId, r.name]));
  }

  /**
   * A machine joins the project: the owner must manage it — Akey or Bkey of a personal
   * device for a personal project, the device in the enterprise's list for an enterprise
   * one. machine_length + 1 and report_count + 100,000 (SPEC §4).
   */
  async function addMachine(userId: number, projectId: number, deviceId: number) {
    const project = await requireOwner(userId, projectId);
    const [managed] =
      project.eid === 0
        ? await db
            .select({ id: deviceLinks.id })
            .from(deviceLinks)
            .where(
              and(
                eq(deviceLinks.deviceId, deviceId),
                eq(deviceLinks.userId, userId),
                inArray(deviceLinks.role, ["akey", "bkey"]),
              ),
            )
        : await db
            .select({ id: enterpriseDevices.deviceId })
            .from(enterpriseDevices)
            .where(
              and(
                eq(enterpriseDevices.enterpriseId, project.eid),
                eq(enterpriseDevices.type, project.type),
                eq(enterpriseDevices.deviceId, deviceId),
              ),
            );
    if (!managed) throw fail("PROJECT_MACHINE_NOT_FOUND");
    await db.transaction(async (tx) => {
      const added = await tx
        .insert(projectMachines)
        .values({ projectId, deviceId, createdAt: clock.now() })
        .onConflictDoNothing()
        .returning();
      if (added.length === 0) throw fail("PROJECT_MACHINE_TAKEN");
      await tx
        .update(projects)
        .set({ reportCount: sql`${projects.reportCount} + ${PROJECT_REPORT_COUNT_WEIGHT}` })
        .where(eq(projects.id, projectId));
    });
    await deps.reportSettingsChanged?.(projectId);
    const all = await machinesOf(userId, projectId);
    return all.list.find((m) => m.machine_id === deviceId) as ProjectMachineView;
  }

  async function removeMachine(userId: number, projectId: number, deviceId: number) {
    await requireOwner(userId, projectId);
    await db.transaction(async (tx) => {
      const removed = await tx
        .delete(projectMachines)
        .where(
          and(eq(projectMachines.projectId, projectId), eq(projectMachines.deviceId, deviceId)),
        )
        .returning();
      if (removed.length === 0) throw fail("PROJECT_MACHINE_NOT_FOUND");
      await tx
        .update(projects)
        .set({
          reportCount: sql`greatest(${projects.reportCount} - ${PROJECT_REPORT_COUNT_WEIGHT}, 0)`,
        })
        .where(eq(projects.id, projectId));
    });
    await deps.machineReleased?.(projectId, deviceId);
  }

  /**
   * Takes the device out of the projects selected by `which` (there is one at most: a
   * device reports to one project), as delMachine does: machine_length − 1, report_count
   * − 100,000, its queued points dropped. For devices leaving their owners' hands.
   */
  async function release(deviceId: number, which: SQL | undefined): Promise<number[]> {
    const released = await db.transaction(async (tx) => {
      const rows = await tx
        .select({ id: projectMachines.id, projectId: projectMachines.projectId })
        .from(projectMachines)
        .innerJoin(projects, eq(projects.id, projectMachines.projectId))
        .where(and(eq(projectMachines.deviceId, deviceId), which));
      if (rows.length === 0) return [];
      await tx.delete(projectMachines).where(
        inArray(
          projectMachines.id,
          rows.map((r) => r.id),
        ),
      );
      await tx
        .update(projects)
        .set({
          reportCount: sql`greatest(${projects.reportCount} - ${PROJECT_REPORT_COUNT_WEIGHT}, 0)`,
        })
        .where(
          inArray(
            projects.id,
            rows.map((r) => r.projectId),
          ),
        );
      return rows.map((r) => r.projectId);
    });
    for (const projectId of released) await deps.machineReleased?.(projectId, deviceId);
    return released;
  }

  /**
   * After identities on a personal device ended (the Akey deleted it — unbound — or a Bkey
   * left it): personal projects whose owner no longer manages the device let it go.
   */
  function releaseUnmanaged(deviceId: number): Promise<number[]> {
    const manages = db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.deviceId, deviceId),
          eq(deviceLinks.userId, projects.ownerId),
          inArray(deviceLinks.role, ["akey", "bkey"]),
        ),
      );
    return release(deviceId, and(eq(projects.eid, 0), notExists(manages)));
  }

  /** The operator took the device out of an enterprise's list (type 1 or 2). */
  function releaseFromEnterprise(eid: number, type: number, deviceId: number) {
    return release(deviceId, and(eq(projects.eid, eid), eq(projects.type, type)));
  }

  /**
   * Before /eapi/web/c/machine/getVisitUrl issues a URL: a machine of a project is reached
   * through its project — with or without the project id in the request — only by one of
   * the project's users and only while its enable_get_visit_url is on. `projectId`, when
   * given, must be the machine's project. The switch allows the call; it grants no rights:
   * the visit still needs the caller's own right on the device (docs/decisions.md 130).
   */
  async function checkVisit(userId: number, deviceId: number, projectId?: number) {
    // A named project first: a non-member learns nothing about its machines.
    if (projectId) await membership(userId, projectId);
    const [row] = await db
      .select({ projectId: projectMachines.projectId })
      .from(projectMachines)
      .where(eq(projectMachines.deviceId, deviceId));
    if (!row) {
      if (projectId) throw fail("PROJECT_MACHINE_NOT_FOUND");
      return;
    }
    if (projectId && row.projectId !== projectId) throw fail("PROJECT_MACHINE_NOT_FOUND");
    const { project } = await membership(userId, row.projectId);
    if (!project.enableGetVisitUrl) throw fail("PROJECT_VISIT_DISABLED");
  }

  return {
    list,
    get,
    add,
    edit,
    server,
    resetKey,
    usersOf,
    addUser,
    removeUser,
    transfer,
    remove,
    machinesOf,
    addMachine,
    removeMachine,
    releaseUnmanaged,
    releaseFromEnterprise,
    checkVisit,
    keyOf,
  };
}
