import { and, asc, eq, inArray, isNull, lte, min, ne, or, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { signedText } from "../../infra/crypto.ts";
import { eachAtMost } from "../../infra/pool.ts";
import { devices } from "../devices/schema.ts";
import { type Project, projects } from "../projects/schema.ts";
import type { ReportConnections } from "./connections.ts";
import { featureOn, QUOTA_ERROR } from "./reportable.ts";
import { reportDeliveries, reportPoints } from "./schema.ts";

/** Points in one signed batch (one POST / one MQTT message). */
export const REPORT_BATCH = 500;
/** Batches one project may send in a row before others get their turn. */
const BATCHES_PER_TURN = 20;
/** Projects delivered at the same time by one node. */
const PROJECTS_IN_PARALLEL = 4;
/** A node holds a project this long per batch; a crashed node's lease runs out. */
const LEASE_MS = 60_000;
/** Retry after 1 s, 2 s, 4 s … at most a minute apart. */
const MAX_BACKOFF_MS = 60_000;
/** With the data count used up, look again this often (adding a machine raises it). */
const QUOTA_RETRY_MS = 5 * 60_000;

/** Thrown by the test hook to stop a delivery between the acknowledgement and the commit. */
export class SimulatedCrash extends Error {}

/**
 * Delivery: per project, under a lease, in id order (so in order per device), signed with
 * the project's key, committed after the server's acknowledgement, retried with backoff.
 */
export function createDelivery(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  connections: ReportConnections;
  /** The key that signs a project's reports. */
  keyOf: (project: Project) => string;
  /** Test hook: runs after the server acknowledged a batch, before the commit. */
  afterAcknowledged?: (projectId: number, seqs: number[]) => void;
  /** The lease (default a minute; the process-kill test shortens it). */
  leaseMs?: number;
  /** True once stopping: a delivery finishes the batch in flight and takes no more. */
  closing: () => boolean;
}) {
  const { db, clock, log, connections } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;

  /** Takes the project for this node unless another holds it. */
  async function lease(projectId: number): Promise<boolean> {
    const now = clock.now();
    const taken = await db
      .update(reportDeliveries)
      .set({ leaseUntil: new Date(now.getTime() + leaseMs) })
      .where(
        and(
          eq(reportDeliveries.projectId, projectId),
          or(isNull(reportDeliveries.leaseUntil), lte(reportDeliveries.leaseUntil, now)),
        ),
      )
      .returning({ projectId: reportDeliveries.projectId });
    return taken.length > 0;
  }

  async function release(projectId: number, set: Partial<typeof reportDeliveries.$inferInsert>) {
    await db
      .update(reportDeliveries)
      .set({ ...set, leaseUntil: null })
      .where(eq(reportDeliveries.projectId, projectId));
  }

  function signedBatch(project: Project, points: PendingPoint[]) {
    const body = JSON.stringify({
      project: { id: project.id, name: project.name },
      points: points.map((p) => ({
        seq: p.id,
        machineCode: p.machineCode,
        time: p.time.toISOString(),
        values: p.values,
      })),
    });
    const timestamp = String(Math.floor(clock.now().getTime() / 1000));
    return {
      projectId: project.id,
      body,
      timestamp,
      signature: signedText(deps.keyOf(project), timestamp, body),
      batchId: `${points[0].id}-${points[points.length - 1].id}`,
    };
  }

  type PendingPoint = Awaited<ReturnType<typeof pendingOf>>[number];
  function pendingOf(projectId: number, limit: number) {
    return db
      .select({
        id: reportPoints.id,
        machineCode: devices.code,
        time: reportPoints.time,
        values: reportPoints.values,
      })
      .from(reportPoints)
      .innerJoin(devices, eq(devices.id, reportPoints.deviceId))
      .where(eq(reportPoints.projectId, projectId))
      .orderBy(asc(reportPoints.id))
      .limit(limit);
  }

  const delivering = new Set<Promise<number>>();
  /** Delivers one project's backlog (a turn of it); returns the points delivered. */
  function deliverProject(projectId: number): Promise<number> {
    const turn = deliverTurn(projectId).finally(() => delivering.delete(turn));
    delivering.add(turn);
    return turn;
  }

  async function deliverTurn(projectId: number): Promise<number> {
    if (!(await lease(projectId))) return 0;
    let sent = 0;
    try {
      const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
      if (!project?.reportState || !project.server) {
        connections.close(projectId);
        await release(projectId, {});
        return 0;
      }
      // Interval reporting: points wait until the oldest has waited the interval.
      if (project.intervalHours > 0) {
        const [oldest] = await db
          .select({ at: min(reportPoints.createdAt) })
          .from(reportPoints)
          .where(eq(reportPoints.projectId, projectId));
        const dueAt = oldest?.at ? oldest.at.getTime() + project.intervalHours * 3_600_000 : 0;
        if (dueAt > clock.now().getTime()) {
          await release(projectId, { nextAttemptAt: new Date(dueAt) });
          return 0;
        }
      }
      const transport = connections.transportFor(projectId, project.server);
      let available = project.reportCount - project.delivered;
      for (let turn = 0; turn < BATCHES_PER_TURN && !deps.closing(); turn++) {
        if (available <= 0) {
          await release(projectId, {
            nextAttemptAt: new Date(clock.now().getTime() + QUOTA_RETRY_MS),
            lastFailureAt: clock.now(),
            lastError: QUOTA_ERROR,
          });
          return sent;
        }
        const points = await pendingOf(projectId, Math.min(REPORT_BATCH, available));
        if (points.length === 0) break;
        await transport.send(signedBatch(project, points));
        const seqs = points.map((p) => p.id);
        deps.afterAcknowledged?.(projectId, seqs);
        const now = clock.now();
        await db.transaction(async (tx) => {
          const removed = await tx
            .delete(reportPoints)
            .where(inArray(reportPoints.id, seqs))
            .returning({ id: reportPoints.id });
          await tx
            .update(reportDeliveries)
            .set({
              backlog: sql`greatest(${reportDeliveries.backlog} - ${removed.length}, 0)`,
              failures: 0,
              lastSuccessAt: now,
              nextAttemptAt: null,
              leaseUntil: new Date(now.getTime() + leaseMs),
            })
            .where(eq(reportDeliveries.projectId, projectId));
          await tx
            .update(projects)
            .set({ delivered: sql`${projects.delivered} + ${removed.length}` })
            .where(eq(projects.id, projectId));
        });
        sent += points.length;
        available -= points.length;
      }
      await release(projectId, {});
      return sent;
    } catch (error) {
      if (error instanceof SimulatedCrash) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const [state] = await db
        .select({ failures: reportDeliveries.failures })
        .from(reportDeliveries)
        .where(eq(reportDeliveries.projectId, projectId));
      const failures = (state?.failures ?? 0) + 1;
      const backoff = Math.min(1000 * 2 ** (failures - 1), MAX_BACKOFF_MS);
      const now = clock.now();
      await release(projectId, {
        failures,
        lastFailureAt: now,
        lastError: message.slice(0, 300),
        nextAttemptAt: new Date(now.getTime() + backoff * (1 + Math.random() * 0.1)),
      });
      log.warn({ projectId, failures, err: message }, "report delivery failed");
      return sent;
    }
  }

  /** One pass over the projects with points due now; returns the points delivered. */
  async function deliverDue(): Promise<number> {
    await connections.closeIdle();
    const now = clock.now();
    const due = await db
      .select({ projectId: reportDeliveries.projectId })
      .from(reportDeliveries)
      .innerJoin(projects, eq(projects.id, reportDeliveries.projectId))
      .where(
        and(
          sql`${reportDeliveries.backlog} > 0`,
          eq(projects.reportState, true),
          ne(projects.server, ""),
          featureOn,
          or(isNull(reportDeliveries.nextAttemptAt), lte(reportDeliveries.nextAttemptAt, now)),
          or(isNull(reportDeliveries.leaseUntil), lte(reportDeliveries.leaseUntil, now)),
        ),
      )
      .orderBy(asc(reportDeliveries.lastSuccessAt))
      .limit(50);
    let delivered = 0;
    await eachAtMost(
      due.map((d) => d.projectId),
      PROJECTS_IN_PARALLEL,
      async (id) => {
        // Not `delivered += await …`: that would read the sum before the other workers add.
        const sent = await deliverProject(id);
        delivered += sent;
      },
    );
    return delivered;
  }

  return {
    deliverDue,
    /** Waits for the deliveries under way (each commits or fails on its own). */
    settled: () => Promise.allSettled(delivering),
  };
}
