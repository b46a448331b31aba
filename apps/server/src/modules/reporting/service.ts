import { createHash } from "node:crypto";
import type { DataPayload } from "@keyway/protocol";
import type { ProjectDeliveryView } from "@keyway/shared";
import { and, asc, eq, inArray, isNull, lte, min, ne, or, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { signedText } from "../../infra/crypto.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import { enterprises } from "../enterprises/schema.ts";
import { type Project, projectMachines, projects } from "../projects/schema.ts";
import { reportDeliveries, reportPoints } from "./schema.ts";
import { createTransport, type ReportTransport, type TransportOptions } from "./transports.ts";

export type ReportingService = ReturnType<typeof createReportingService>;

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

export const QUOTA_ERROR = "available data count used up";

/**
 * The project feature is on for the project's context (SPEC §6: per-user or per-enterprise
 * flags): the owner's switch for a personal project, the enterprise's for the others.
 */
const featureOn = sql<boolean>`coalesce(case when ${projects.eid} = 0
  then (select ${users.enableProject} from ${users} where ${users.id} = ${projects.ownerId})
  else (select ${enterprises.enableProject} from ${enterprises} where ${enterprises.id} = ${projects.eid})
  end, false)`;

interface Device {
  id: number;
  code: string;
}

/** Thrown by the test hook to stop a delivery between the acknowledgement and the commit. */
export class SimulatedCrash extends Error {}

/**
 * Data reporting (issue 8): points of devices in a reporting project are queued in the
 * database before the device's PUBACK, then delivered per project in id order (so in order
 * per device) to the project's server, signed with the project's key, retried with backoff,
 * and counted against the project's available data count. See docs/decisions.md.
 */
/**
 * A point without the device's own id is known by its content: behind an external broker
 * every node reads every message (decision 165), and a retried publish is the same bytes, so
 * the same reading (device, time, values) is stored once.
 */
function contentUid(point: { time: number; values: Record<string, unknown> }): string {
  const digest = createHash("sha256").update(JSON.stringify([point.time, point.values]));
  return `~${digest.digest("base64url").slice(0, 27)}`;
}

export function createReportingService(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The key that signs a project's reports. */
  keyOf: (project: Project) => string;
  transport?: TransportOptions;
  /** Test hook: runs after the server acknowledged a batch, before the commit. */
  afterAcknowledged?: (projectId: number, seqs: number[]) => void;
  /** The lease (default a minute; the process-kill test shortens it). */
  leaseMs?: number;
}) {
  const { db, clock, log } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;

  // ---- Intake: before the device's PUBACK ----

  interface Incoming {
    device: Device;
    point: DataPayload;
  }

  const intake = createBatcher<Incoming, void>(async (batch) => {
    const now = clock.now();
    const deviceIds = [...new Set(batch.map((b) => b.device.id))];
    await db.transaction(async (tx) => {
      const targets = await tx
        .select({
          deviceId: projectMachines.deviceId,
          projectId: projects.id,
          room: sql<number>`(${projects.reportCount} - ${projects.delivered} - coalesce(${reportDeliveries.backlog}, 0))::int`,
        })
        .from(projectMachines)
        .innerJoin(projects, eq(projects.id, projectMachines.projectId))
        .leftJoin(reportDeliveries, eq(reportDeliveries.projectId, projects.id))
        .where(
          and(
            inArray(projectMachines.deviceId, deviceIds),
            eq(projects.reportState, true),
            featureOn,
          ),
        );
      if (targets.length === 0) return;
      const projectOf = new Map(targets.map((t) => [t.deviceId, t.projectId]));
      const room = new Map(targets.map((t) => [t.projectId, t.room]));
      const dropped = new Map<number, number>();
      const rows: (typeof reportPoints.$inferInsert)[] = [];
      for (const { device, point } of batch) {
        const projectId = projectOf.get(device.id);
        if (projectId === undefined) continue;
        const left = room.get(projectId) ?? 0;
        if (left <= 0) {
          dropped.set(projectId, (dropped.get(projectId) ?? 0) + 1);
          continue;
        }
        room.set(projectId, left - 1);
        rows.push({
          projectId,
          deviceId: device.id,
          uid: point.id ?? contentUid(point),
          time: new Date(point.time),
          values: point.values,
          createdAt: now,
        });
      }
      const stored = rows.length
        ? await tx
            .insert(reportPoints)
            .values(rows)
            .onConflictDoNothing()
            .returning({ projectId: reportPoints.projectId })
        : [];
      const added = new Map<number, number>();
      for (const s of stored) added.set(s.projectId, (added.get(s.projectId) ?? 0) + 1);
      for (const projectId of new Set([...added.keys(), ...dropped.keys()])) {
        const backlog = added.get(projectId) ?? 0;
        const refused = dropped.get(projectId) ?? 0;
        await tx
          .insert(reportDeliveries)
          .values({
            projectId,
            backlog,
            dropped: refused,
            ...(refused > 0 && { lastFailureAt: now, lastError: QUOTA_ERROR }),
          })
          .onConflictDoUpdate({
            target: reportDeliveries.projectId,
            set: {
              backlog: sql`${reportDeliveries.backlog} + ${backlog}`,
              dropped: sql`${reportDeliveries.dropped} + ${refused}`,
              ...(refused > 0 && { lastFailureAt: now, lastError: QUOTA_ERROR }),
            },
          });
      }
      if (dropped.size) log.warn({ dropped: Object.fromEntries(dropped) }, "data count used up");
    });
    wake();
    return batch.map(() => undefined);
  }, 500);

  /** Queues a device's data message (resolves once written; nothing if it reports nowhere). */
  function storePoint(device: Device, point: DataPayload): Promise<void> {
    return intake.submit({ device, point });
  }

  // ---- Delivery ----

  const transports = new Map<number, { server: string; transport: ReportTransport }>();
  function closeTransport(projectId: number) {
    const known = transports.get(projectId);
    if (!known) return;
    transports.delete(projectId);
    void known.transport.close().catch(() => {});
  }

  /**
   * Ends the connections of projects that no longer report (deleted, switched off, no server
   * or the feature off): an MQTT client would otherwise stay connected to the old broker.
   * Run on each pass, so a change made through another node is seen too.
   */
  async function closeIdleTransports() {
    if (transports.size === 0) return;
    const ids = [...transports.keys()];
    const live = await db
      .select({ id: projects.id, server: projects.server })
      .from(projects)
      .where(
        and(
          inArray(projects.id, ids),
          eq(projects.reportState, true),
          ne(projects.server, ""),
          featureOn,
        ),
      );
    const serverOf = new Map(live.map((p) => [p.id, p.server]));
    for (const id of ids) if (serverOf.get(id) !== transports.get(id)?.server) closeTransport(id);
  }
  function transportFor(projectId: number, server: string): ReportTransport {
    const known = transports.get(projectId);
    if (known?.server === server) return known.transport;
    if (known) void known.transport.close().catch(() => {});
    const transport = createTransport(server, deps.transport);
    transports.set(projectId, { server, transport });
    return transport;
  }

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
        closeTransport(projectId);
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
      const transport = transportFor(projectId, project.server);
      let available = project.reportCount - project.delivered;
      for (let turn = 0; turn < BATCHES_PER_TURN && !closing; turn++) {
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
    await closeIdleTransports();
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
    const queue = due.map((d) => d.projectId);
    async function worker() {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        // Not `delivered += await …`: that would read the sum before the other workers add.
        const sent = await deliverProject(id);
        delivered += sent;
      }
    }
    await Promise.all(Array.from({ length: Math.min(PROJECTS_IN_PARALLEL, queue.length) }, worker));
    return delivered;
  }

  // ---- The loop: a pass when points arrive, and every pollMs for retries ----

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  /** Set by stop(): a delivery finishes the batch in flight and takes no more. */
  let closing = false;

  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          // Keep going while a pass moved points: a backlog drains without waiting.
          while ((await deliverDue()) > 0 && !stopped) {}
        } catch (error) {
          log.error({ err: error }, "report delivery pass failed");
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  }

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
    await closeIdleTransports();
    await db
      .update(reportDeliveries)
      .set({ nextAttemptAt: null, failures: 0 })
      .where(eq(reportDeliveries.projectId, projectId));
    wake();
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

  return {
    storePoint,
    deliverDue,
    backlogTotal,
    view,
    retryNow,
    dropDevice,
    /**
     * Starts delivering: at once when points arrive, and every `pollMs` for retries and
     * intervals. 0 leaves it to `deliverDue` calls (tests).
     */
    start(pollMs = 1_000) {
      if (pollMs <= 0) return;
      stopped = false;
      timer = setInterval(wake, pollMs);
      timer.unref();
      wake();
    },
    /** Stops after the running pass; what it delivered is committed. */
    async stop() {
      stopped = true;
      closing = true;
      if (timer) clearInterval(timer);
      await running;
      await Promise.allSettled(delivering);
      await Promise.all([...transports.values()].map((t) => t.transport.close().catch(() => {})));
      transports.clear();
    },
  };
}
