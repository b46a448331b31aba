import type { ProjectDeliveryView } from "@keyway/shared";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { projects } from "../projects/schema.ts";
import type { ReportConnections } from "./connections.ts";
import { reportDeliveries, reportPoints } from "./schema.ts";

/** A project's delivery state: shown, its backoff ended, a machine's points dropped, summed. */
export function createDeliveryState(deps: {
  db: Db;
  connections: ReportConnections;
  /** Deliver now. */
  wake: () => void;
}) {
  const { db } = deps;

  async function view(projectId: number): Promise<ProjectDeliveryView> {
    const [state] = await db
      .select()
      .from(reportDeliveries)
      .where(eq(reportDeliveries.projectId, projectId));
    const [project] = await db
      .select({ delivered: projects.delivered })
      .from(projects)
      .where(eq(projects.id, projectId));
    return {
      backlog: state?.backlog ?? 0,
      delivered: project?.delivered ?? 0,
      dropped: state?.dropped ?? 0,
      next_attempt_at: state?.nextAttemptAt?.toISOString() ?? null,
      last_success_at: state?.lastSuccessAt?.toISOString() ?? null,
      last_failure_at: state?.lastFailureAt?.toISOString() ?? null,
      last_error: state?.lastError ?? "",
    };
  }

  /**
   * The project's settings changed (or it was deleted): a connection it no longer needs is
   * closed now, and a backoff ends (the owner just fixed what failed).
   */
  async function retryNow(projectId: number): Promise<void> {
    await deps.connections.closeIdle();
    await db
      .update(reportDeliveries)
      .set({ nextAttemptAt: null, failures: 0 })
      .where(eq(reportDeliveries.projectId, projectId));
    deps.wake();
  }

  /**
   * A machine left the project (removed, unbound, or out of the enterprise's list): its
   * points still queued there are dropped — nothing more of it goes to that server.
   */
  async function dropDevice(projectId: number, deviceId: number): Promise<number> {
    return db.transaction(async (tx) => {
      const removed = await tx
        .delete(reportPoints)
        .where(and(eq(reportPoints.projectId, projectId), eq(reportPoints.deviceId, deviceId)))
        .returning({ id: reportPoints.id });
      if (removed.length)
        await tx
          .update(reportDeliveries)
          .set({ backlog: sql`greatest(${reportDeliveries.backlog} - ${removed.length}, 0)` })
          .where(eq(reportDeliveries.projectId, projectId));
      return removed.length;
    });
  }

  /** Points queued for all projects' servers (the backlog counters summed): for /metrics. */
  async function backlogTotal(): Promise<number> {
    const [row] = await db
      .select({ n: sql<string | number>`coalesce(sum(${reportDeliveries.backlog}), 0)` })
      .from(reportDeliveries);
    return Number(row?.n ?? 0);
  }

  return { view, retryNow, dropDevice, backlogTotal };
}
