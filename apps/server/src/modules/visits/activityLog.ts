import { Readable } from "node:stream";
import {
  type Lang,
  maskAccount,
  VISIT_ACTIVITY_DAYS,
  type VisitActivityItem,
  type VisitActivityPage,
} from "@keyway/shared";
import { and, desc, eq, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Actor } from "../access/service.ts";
import { users } from "../accounts/schema.ts";
import { devices } from "../devices/schema.ts";
import { csvHeader, csvLine, csvRow } from "./activityCsv.ts";
import { type VisitActivity, visitActivity, visits } from "./schema.ts";

const DAY_MS = 86_400_000;
/** Rows read per query while a CSV streams (keyset paging: each page as quick as the first). */
const CSV_PAGE = 1000;
/** Rows deleted per statement by the retention sweep, so that no delete holds locks for long. */
const SWEEP_CHUNK = 5000;

export interface ActivityFilter {
  deviceId: number;
  visitId?: string;
}

/**
 * A device's visit activity for its Akey and Bkeys (the one rule of settings.approverRole):
 * the page the web app shows, the CSV export, and the VISIT_ACTIVITY_DAYS retention sweep.
 */
export function createActivityLog(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  approverRole: (userId: number, deviceId: number) => Promise<unknown>;
  /** Rows this node still holds are written first, so that what just happened shows. */
  flush: () => Promise<void>;
  /** How often the retention sweep runs (ms; 0: only when called). */
  sweepEveryMs?: number;
}) {
  const { db, clock, log } = deps;

  const where = (f: ActivityFilter): SQL =>
    and(
      eq(visitActivity.deviceId, f.deviceId),
      f.visitId ? eq(visitActivity.visitId, f.visitId) : undefined,
    ) as SQL;

  function toItem(r: VisitActivity): VisitActivityItem {
    return {
      id: r.id,
      visit_id: r.visitId,
      kind: r.kind === "screen" ? "screen" : "http",
      at: r.at.toISOString(),
      ended_at: r.endedAt?.toISOString() ?? null,
      method: r.method,
      path: r.path,
      status: r.status,
      bytes_in: r.bytesIn,
      bytes_out: r.bytesOut,
      view_only: r.viewOnly,
      input_events: r.inputEvents,
      dropped_events: r.droppedEvents,
      requests: r.requests,
    };
  }

  /** A page of the device's activity (of one visit with visitId), newest first. */
  async function list(
    actor: Actor,
    q: ActivityFilter & { page: number; pageSize: number },
  ): Promise<VisitActivityPage> {
    await deps.approverRole(actor.userId, q.deviceId);
    await deps.flush().catch(() => {});
    const rows = await db
      .select({ row: visitActivity, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(visitActivity)
      .where(where(q))
      .orderBy(desc(visitActivity.at), desc(visitActivity.id))
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize);
    let total = rows[0]?.total ?? 0;
    if (rows.length === 0 && q.page > 1) {
      const [counted] = await db
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(visitActivity)
        .where(where(q));
      total = counted?.n ?? 0;
    }
    return { list: rows.map((r) => toItem(r.row)), total };
  }

  /**
   * The same rows as CSV, streamed page by page (90 days of a polling HMI page is many rows):
   * UTF-8 with a BOM (Excel then reads Chinese), the header in the caller's language. The
   * right is checked before the first byte: a refusal is the envelope with HTTP 403.
   */
  async function csv(
    actor: Actor,
    f: ActivityFilter,
    lang: Lang,
  ): Promise<{ filename: string; body: Readable }> {
    try {
      await deps.approverRole(actor.userId, f.deviceId);
    } catch (error) {
      if (error instanceof AppError) throw new AppError(error.key, error.data, 403);
      throw error;
    }
    await deps.flush().catch(() => {});
    const [device] = await db
      .select({ code: devices.code })
      .from(devices)
      .where(eq(devices.id, f.deviceId))
      .limit(1);
    const code = (device?.code ?? String(f.deviceId)).replace(/[^A-Za-z0-9._-]/g, "_");
    const day = clock.now().toISOString().slice(0, 10);
    const filename = `visits-${code}${f.visitId ? `-${f.visitId}` : ""}-${day}.csv`;

    async function* lines(): AsyncGenerator<string> {
      yield `\uFEFF${csvLine(csvHeader(lang))}`;
      let after: { at: Date; id: number } | null = null;
      for (;;) {
        const keyset: SQL | undefined = after
          ? or(
              lt(visitActivity.at, after.at),
              and(eq(visitActivity.at, after.at), lt(visitActivity.id, after.id)),
            )
          : undefined;
        const rows = await db
          .select({
            row: visitActivity,
            terminal: visits.terminalName,
            name: users.name,
            phone: users.phone,
            email: users.email,
          })
          .from(visitActivity)
          .innerJoin(visits, eq(visits.id, visitActivity.visitId))
          .leftJoin(users, eq(users.id, visits.userId))
          .where(and(where(f), keyset))
          .orderBy(desc(visitActivity.at), desc(visitActivity.id))
          .limit(CSV_PAGE);
        let chunk = "";
        for (const r of rows) {
          chunk += csvLine(
            csvRow(
              {
                ...r.row,
                visitor: r.name ?? "",
                account: maskAccount({ phone: r.phone, email: r.email }),
                terminal: r.terminal,
              },
              lang,
            ),
          );
        }
        if (chunk) yield chunk;
        const last = rows.at(-1);
        if (!last || rows.length < CSV_PAGE) return;
        after = { at: last.row.at, id: last.row.id };
      }
    }
    return { filename, body: Readable.from(lines()) };
  }

  /** Deletes activity older than VISIT_ACTIVITY_DAYS (by the clock), a chunk at a time. */
  async function sweep(): Promise<number> {
    const before = new Date(clock.now().getTime() - VISIT_ACTIVITY_DAYS * DAY_MS);
    let deleted = 0;
    for (;;) {
      const old = db
        .select({ id: visitActivity.id })
        .from(visitActivity)
        .where(lt(visitActivity.at, before))
        .limit(SWEEP_CHUNK);
      const gone = await db
        .delete(visitActivity)
        .where(inArray(visitActivity.id, old))
        .returning({ id: visitActivity.id });
      deleted += gone.length;
      if (gone.length < SWEEP_CHUNK) return deleted;
    }
  }

  // Every node sweeps (the delete is the same whoever runs it); hourly is plenty for days.
  const every = deps.sweepEveryMs ?? 3_600_000;
  const timer =
    every > 0
      ? setInterval(() => {
          sweep().catch((error) => log.warn({ err: error }, "visit activity sweep failed"));
        }, every)
      : undefined;
  timer?.unref();

  function stop(): void {
    clearInterval(timer);
  }

  return { list, csv, sweep, stop };
}

export type ActivityLog = ReturnType<typeof createActivityLog>;
