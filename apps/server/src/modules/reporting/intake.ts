import { createHash } from "node:crypto";
import type { DataPayload } from "@keyway/protocol";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { projectMachines, projects } from "../projects/schema.ts";
import { featureOn, QUOTA_ERROR } from "./reportable.ts";
import { reportDeliveries, reportPoints } from "./schema.ts";

interface Device {
  id: number;
  code: string;
}

/**
 * A point without the device's own id is known by its content: behind an external broker
 * every node reads every message (docs/architecture/scale-out.md), and a retried publish is
 * the same bytes, so the same reading (device, time, values) is stored once.
 */
function contentUid(point: { time: number; values: Record<string, unknown> }): string {
  const digest = createHash("sha256").update(JSON.stringify([point.time, point.values]));
  return `~${digest.digest("base64url").slice(0, 27)}`;
}

/**
 * Intake, before the device's PUBACK: points of devices in a reporting project are queued in
 * the database while the project has room in its data count; the rest are counted dropped.
 */
export function createIntake(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Points were queued: deliver them now. */
  wake: () => void;
}) {
  const { db, clock, log } = deps;

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
    deps.wake();
    return batch.map(() => undefined);
  }, 500);

  /** Queues a device's data message (resolves once written; nothing if it reports nowhere). */
  function storePoint(device: Device, point: DataPayload): Promise<void> {
    return intake.submit({ device, point });
  }

  return storePoint;
}
