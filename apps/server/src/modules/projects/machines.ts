import { PROJECT_REPORT_COUNT_WEIGHT, type ProjectMachineView } from "@keyway/shared";
import { and, eq, inArray, notExists, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices } from "../enterprises/schema.ts";
import type { ProjectMembership } from "./membership.ts";
import { type Project, projectMachines, projects } from "./schema.ts";

/**
 * A project's machines: added by the owner, removed, released when a device leaves its
 * owner's hands, and the project's say on a visit of one of them.
 */
export function createProjectMachines(deps: {
  db: Db;
  clock: Clock;
  access: ProjectMembership;
  reportSettingsChanged?: (projectId: number) => Promise<void>;
  machineReleased?: (projectId: number, deviceId: number) => Promise<unknown>;
}) {
  const { db, clock } = deps;
  const { membership, requireOwner } = deps.access;

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
   * the visit still needs the caller's own right on the device
   * (docs/architecture/remote-access.md).
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
    machinesOf,
    addMachine,
    removeMachine,
    releaseUnmanaged,
    releaseFromEnterprise,
    checkVisit,
  };
}
