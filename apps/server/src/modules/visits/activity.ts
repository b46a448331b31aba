import { eq, inArray } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { isForeignKeyViolation } from "../../db/errors.ts";
import { insertUnnest } from "../../db/unnest.ts";
import type { Clock } from "../../infra/clock.ts";
import type { HttpActivity, ScreenActivity, ScreenCounters, ScreenOpen } from "./activityTypes.ts";
import { visitActivity, visits } from "./schema.ts";

export type { ActivityRecorder } from "./activityTypes.ts";

type Row = typeof visitActivity.$inferInsert;
/** A row a repeat may still join, its times as numbers until it is written. */
interface Joinable {
  row: Row;
  atMs: number;
  endMs: number;
}

/** Longest path kept: enough to tell pages apart, never a whole payload smuggled in a path. */
export const PATH_MAX = 512;
const METHOD_MAX = 16;
/** Rows held while the database cannot take them; beyond this the oldest go (and are logged). */
const PENDING_MAX = 20_000;
const INT_MAX = 2_147_483_647;

/**
 * A request's path as the activity log keeps it: no query string or fragment (they carry
 * tickets, tokens and form fields), no visit secret of a path-mode URL
 * (`/visit/<id>.<secret>/…`), no control characters, at most PATH_MAX characters.
 */
export function activityPath(raw: string): string {
  let path = raw;
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  path = path.replace(/^\/visit\/[a-z2-7]{26}(?:\.[^/]*)?(?=\/|$)/, "");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
  path = path.replace(/[\u0000-\u001f\u007f]/g, "");
  if (!path.startsWith("/")) path = `/${path}`;
  return path.length > PATH_MAX ? path.slice(0, PATH_MAX) : path;
}

/** The method as a token of capitals ("GET"), capped; anything else reads "OTHER". */
export function activityMethod(raw: string): string {
  const method = raw.trim().toUpperCase().slice(0, METHOD_MAX);
  return /^[A-Z][A-Z0-9_-]*$/.test(method) ? method : "OTHER";
}

/** A counter as the columns take it: a non-negative integer. */
const count = (n: number, max = Number.MAX_SAFE_INTEGER) =>
  Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), max) : 0;

/**
 * The visit activity recorder (issue 20): what the relay reports, written to `visit_activity`
 * in batches — at most `flushMs` after the first row of a batch, at once when `maxRows` are
 * waiting, on every visit end (`flush`) and on close. Screen sessions are written when they
 * open (ended_at null) and completed when they close, so a crash still leaves the session.
 */
export function createActivityRecorder(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  flushMs?: number;
  maxRows?: number;
}) {
  const { db, clock, log } = deps;
  const flushMs = deps.flushMs ?? 250;
  const maxRows = deps.maxRows ?? 200;

  let pending: Row[] = [];
  /**
   * The HTTP rows of `pending` a repeat may still join, by what makes requests the same
   * (visit, method, path, status, view only). Emptied whenever rows are taken for writing, so
   * a row is never changed once it is on its way; repeats join only within one batch window.
   */
  const repeats = new Map<string, Joinable>();
  /**
   * The last request's fields as the relay gave them, and its row: a polled page repeats
   * them, and joins that row without its method, path and key read again.
   */
  let last: {
    visitId: string;
    method: string;
    path: string;
    status: number;
    viewOnly: boolean;
    joinable: Joinable;
  } | null = null;
  let timer: NodeJS.Timeout | undefined;
  /** The write running now; the next waits for it (rows stay in order). */
  let writing: Promise<void> = Promise.resolve();
  /** Screen rows being opened or completed. */
  const screenWrites = new Set<Promise<unknown>>();
  /** Open screen sessions, completed at close from their last counters when they can tell. */
  const openScreens = new Set<{ finish: (endedAt: Date) => void }>();
  let closed = false;

  function schedule(): void {
    if (pending.length >= maxRows) return void flush();
    if (!timer) {
      timer = setTimeout(() => void flush(), flushMs);
      timer.unref();
    }
  }

  async function insert(rows: Row[]): Promise<void> {
    try {
      // One array per column (db/unnest.ts): drizzle's multi-row VALUES for every relayed
      // request cost about a quarter of the relay's time on small requests (issue 19).
      // Nothing back: parsing the rows returned was a fifth of the database's time there.
      await insertUnnest(db, visitActivity, rows, { returning: false });
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      // Rows of a visit deleted meanwhile (with its device) go; the others are written in one
      // statement. Any other failure throws, so the batch waits and nothing is lost.
      const ids = [...new Set(rows.map((row) => row.visitId))];
      const live = await db.select({ id: visits.id }).from(visits).where(inArray(visits.id, ids));
      const liveIds = new Set(live.map((v) => v.id));
      const kept = rows.filter((row) => liveIds.has(row.visitId));
      if (kept.length === rows.length) throw error;
      if (kept.length) await insert(kept);
    }
  }

  async function writeBatch(): Promise<void> {
    while (pending.length) {
      const rows = pending.slice(0, maxRows);
      pending = pending.slice(rows.length);
      closeJoins();
      try {
        await insert(rows);
      } catch (error) {
        if (isForeignKeyViolation(error)) continue; // its visit is gone
        // The database is away: the rows wait for the next flush, the oldest go past a bound.
        pending = rows.concat(pending);
        if (pending.length > PENDING_MAX) {
          const dropped = pending.length - PENDING_MAX;
          pending = pending.slice(dropped);
          log.error({ dropped }, "visit activity rows dropped: the database is not taking them");
        }
        log.warn({ err: error, rows: rows.length }, "visit activity not written yet");
        if (!closed) {
          clearTimeout(timer);
          timer = setTimeout(() => void flush(), 1000);
          timer.unref();
        }
        return;
      }
    }
  }

  /**
   * Writes what is waiting, screen rows being written included; resolves once it is in the
   * database (or failed and waits for the next flush).
   */
  async function flush(): Promise<void> {
    if (screenWrites.size) await Promise.allSettled([...screenWrites]);
    clearTimeout(timer);
    timer = undefined;
    writing = writing.then(writeBatch, writeBatch);
    return writing;
  }

  /** No row joins any more (they are being written): their times become Dates. */
  function closeJoins(): void {
    for (const joinable of repeats.values()) {
      const { row } = joinable;
      if ((row.at as Date).getTime() !== joinable.atMs) row.at = new Date(joinable.atMs);
      if ((row.endedAt as Date).getTime() !== joinable.endMs)
        row.endedAt = new Date(joinable.endMs);
    }
    repeats.clear();
    last = null;
  }

  /**
   * One request. A repeat of a request still waiting in this batch (the same visit, method,
   * path, status and view only; an HMI page polling its tags) joins its row: one more request,
   * its bytes added, the row's time stretched over both. A row per request cost the relay
   * a third of its CPU on small requests (decision 217); what a request did is kept whole.
   */
  function http(entry: HttpActivity): void {
    const endMs = entry.endedAtMs ?? clock.ms();
    const atMs = entry.atMs ?? (entry.endedAtMs === undefined ? endMs : clock.ms());
    const seen = last;
    if (
      seen &&
      seen.visitId === entry.visitId &&
      seen.method === entry.method &&
      seen.path === entry.path &&
      seen.status === entry.status &&
      seen.viewOnly === entry.viewOnly
    ) {
      join(seen.joinable, entry, atMs, endMs);
      return;
    }
    const method = activityMethod(entry.method);
    const path = activityPath(entry.path);
    const status = count(entry.status, 999);
    const key = `${entry.visitId}\n${method}\n${status}\n${entry.viewOnly ? 1 : 0}\n${path}`;
    let joinable = repeats.get(key);
    if (joinable) join(joinable, entry, atMs, endMs);
    else {
      const row: Row = {
        visitId: entry.visitId,
        deviceId: entry.deviceId,
        kind: "http",
        at: new Date(atMs),
        endedAt: new Date(endMs),
        method,
        path,
        status,
        bytesIn: count(entry.bytesIn),
        bytesOut: count(entry.bytesOut),
        viewOnly: entry.viewOnly,
        requests: 1,
      };
      joinable = { row, atMs, endMs };
      repeats.set(key, joinable);
      pending.push(row);
      schedule();
    }
    last = {
      visitId: entry.visitId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      viewOnly: entry.viewOnly,
      joinable,
    };
  }

  /** A repeat joins its row: its time stretched (Dates made when it is written), its bytes added. */
  function join(joinable: Joinable, entry: HttpActivity, atMs: number, endMs: number): void {
    const { row } = joinable;
    row.requests = Math.min((row.requests ?? 1) + 1, INT_MAX);
    row.bytesIn = count((row.bytesIn ?? 0) + count(entry.bytesIn));
    row.bytesOut = count((row.bytesOut ?? 0) + count(entry.bytesOut));
    if (atMs < joinable.atMs) joinable.atMs = atMs;
    if (endMs > joinable.endMs) joinable.endMs = endMs;
  }

  function track<T>(p: Promise<T>): Promise<T> {
    screenWrites.add(p);
    void p.finally(() => screenWrites.delete(p)).catch(() => {});
    return p;
  }

  function screenOpen(entry: ScreenOpen): ScreenActivity {
    const base: Row = {
      visitId: entry.visitId,
      deviceId: entry.deviceId,
      kind: "screen",
      at: entry.at ?? clock.now(),
      viewOnly: entry.viewOnly,
    };
    // Its own insert (one per session): the id it answers is what close() completes.
    const opened = track(
      db
        .insert(visitActivity)
        .values(base)
        .returning({ id: visitActivity.id })
        .then(([row]) => row?.id ?? null)
        .catch((error) => {
          log.warn({ err: error, visit: entry.visitId }, "screen session row not written");
          return null;
        }),
    );
    let done = false;
    const finish = (counters: ScreenCounters, endedAt: Date) => {
      if (done) return;
      done = true;
      openScreens.delete(handle);
      const totals = {
        endedAt,
        bytesIn: count(counters.bytesIn),
        bytesOut: count(counters.bytesOut),
        inputEvents: count(counters.inputEvents, INT_MAX),
        droppedEvents: count(counters.droppedEvents, INT_MAX),
      };
      track(
        opened.then(async (id) => {
          if (id === null) {
            // The open row was not written: the whole session goes in with the batch.
            pending.push({ ...base, ...totals });
            return schedule();
          }
          await db.update(visitActivity).set(totals).where(eq(visitActivity.id, id));
        }),
      ).catch((error) =>
        log.warn({ err: error, visit: entry.visitId }, "screen session not completed"),
      );
    };
    const handle = {
      finish: (endedAt: Date) => {
        const counters = entry.counters?.();
        if (counters) finish(counters, endedAt);
      },
    };
    openScreens.add(handle);
    return { close: (counters, endedAt) => finish(counters, endedAt ?? clock.now()) };
  }

  /** Flushes everything, screen sessions still open included (when they can tell their counters). */
  async function close(): Promise<void> {
    const now = clock.now();
    for (const screen of [...openScreens]) screen.finish(now);
    await Promise.allSettled([...screenWrites]);
    closed = true;
    await flush();
    clearTimeout(timer);
  }

  return {
    http,
    screenOpen,
    flush,
    close,
    get pending(): number {
      return pending.length;
    },
  };
}

export type ActivityRecorderService = ReturnType<typeof createActivityRecorder>;
