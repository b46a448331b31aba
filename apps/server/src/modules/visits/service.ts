import { randomBytes } from "node:crypto";
import http from "node:http";
import { formatTarget, parseTarget, TUNNEL_RESET } from "@keyway/protocol";
import { TunnelError, type TunnelStream } from "@keyway/protocol/mux";
import {
  type ConnectRight,
  type HwKey,
  maskAccount,
  type VisitEndReason,
  type VisitItem,
  type VisitPage,
  type VisitUrl,
} from "@keyway/shared";
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken } from "../../infra/crypto.ts";
import type { Actor } from "../access/service.ts";
import { terminals, users } from "../accounts/schema.ts";
import { deviceLinks } from "../devices/schema.ts";
import { DeviceOfflineError, type TunnelHub } from "../tunnel/service.ts";
import type { VisitHosts } from "./hosts.ts";
import { type Visit, visits } from "./schema.ts";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** 26 characters × 5 random bits: an unguessable id that is also one DNS label. */
export function newVisitId(): string {
  const bytes = randomBytes(26);
  let id = "";
  for (const b of bytes) id += BASE32[b & 31];
  return id;
}

/** Why a refused right ends a visit. */
function endReasonFor(key: HwKey): VisitEndReason {
  if (key === "VISIT_TIMEOUT") return "visit_time_expired";
  if (key === "CLOUD_CLOSED") return "cloud_closed";
  return "rights_revoked";
}

/** A visit in use on this node: its streams, its HTTP connection pool, its counters. */
export interface VisitSession {
  readonly id: string;
  readonly deviceId: number;
  readonly actor: Actor;
  /** The target of the device UI ("host:port"). */
  readonly target: string;
  cookieHash: string | null;
  ended: boolean;
  readonly streams: Set<TunnelStream>;
  /** Sockets handed over whole (WebSocket upgrades, TCP forwards), cut with the visit. */
  readonly sockets: Set<{ destroy(error?: Error): void }>;
  agent: TunnelAgent | null;
  /**
   * Path mode's cookie jar: the device's cookies kept here, never in the browser (its page
   * runs sandboxed, in an opaque origin that sends and stores no cookies).
   */
  readonly jar: Map<string, string>;
  targets: Set<string>;
  targetsDirty: boolean;
  /** Bytes of the row when loaded plus those of closed streams. */
  bytesIn: number;
  bytesOut: number;
  flushedIn: number;
  flushedOut: number;
  /** Last traffic, by the clock (idle ending) and by the process timer (re-checks). */
  lastActive: Date;
  lastActiveMs: number;
  /** When the last rights check passed (process ms), and the right's own end. */
  checkedAtMs: number;
  rightEndsAt: Date | null;
  checking: Promise<void> | null;
}

/**
 * Node's HTTP client pooling keep-alive connections to the device UI, each one a tunnel
 * stream; a new connection is a new stream, so it goes through the rights check.
 */
export class TunnelAgent extends http.Agent {
  constructor(private readonly openStream: () => Promise<TunnelStream>) {
    super({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32, timeout: 30_000 });
  }

  override createConnection(
    _options: http.ClientRequestArgs,
    callback?: (error: Error | null, stream: import("node:stream").Duplex) => void,
  ): undefined {
    this.openStream().then(
      (stream) => {
        // A device closing its side ends the connection, as a TCP socket without half-open
        // would: a pooled stream must not wait half-closed for a request that cannot succeed.
        stream.once("end", () => stream.end());
        callback?.(null, stream);
      },
      (error) => callback?.(error, undefined as never),
    );
    return undefined;
  }
}

export type VisitService = ReturnType<typeof createVisitService>;

/**
 * Visits (ARCHITECTURE "Remote access"): issued only when `access.rights` holds, bound to
 * the user, terminal and device; every new stream re-checks the right (one check serves the
 * streams opened within a second), open visits are re-checked every few seconds and at once
 * when a right may have changed, and a failed check ends the visit and cuts its streams.
 */
export function createVisitService(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  events: Events;
  access: { rights(actor: Actor, deviceId: number): Promise<ConnectRight> };
  tunnels: TunnelHub;
  publicUrl: string;
  hosts: VisitHosts;
  /** How often open visits are re-checked (ms). */
  recheckMs?: number;
  /** A visit with no stream for this long ends (ms, by the clock). */
  idleMs?: number;
  /** How long an issued URL may wait to be opened (ms). */
  linkTtlMs?: number;
}) {
  const { db, clock, log, events, access, tunnels } = deps;
  const recheckMs = deps.recheckMs ?? 3000;
  const idleMs = deps.idleMs ?? 10 * 60_000;
  const linkTtlMs = deps.linkTtlMs ?? 60_000;
  /** A passed check serves new streams this long (ms); rights events invalidate it. */
  const freshMs = 1000;
  const sessions = new Map<string, VisitSession>();
  /** Payload bytes of this node's closed visit streams, since start (/metrics; live ones in stats). */
  const relayed = { fromDevice: 0, toDevice: 0 };

  // ---- URLs ----

  function urlsOf(id: string, ticket: string) {
    const query = `?kw_ticket=${ticket}`;
    const base = deps.publicUrl.replace(/\/$/, "");
    const pathUrl = `${base}/visit/${id}/${query}`;
    const origin = deps.hosts.originOf(id);
    return { url: origin ? `${origin}/${query}` : pathUrl, path_url: pathUrl };
  }

  // ---- Issuing ----

  async function issue(
    actor: Actor,
    deviceId: number,
    options: { target?: string } = {},
  ): Promise<VisitUrl> {
    const right = await access.rights(actor, deviceId);
    // The tunnel may be held by any node (the relay carries the visit there).
    const place = await tunnels.locate(deviceId);
    if (!place) throw fail("DEVICE_OFFLINE", { machine_id: deviceId, online: false });
    const hello = place.hello;
    let target = hello?.target ?? "";
    if (options.target) {
      const parsed = parseTarget(options.target);
      if (!parsed) throw AppError.invalid("target", "v.target");
      target = formatTarget(parsed);
      // The agent decides (it refuses what is not on its list); asking first gives a clear answer.
      if (hello && !hello.allow.includes(target)) throw fail("TARGET_NOT_ALLOWED", { target });
    }
    const [terminal] = await db
      .select({ name: terminals.name })
      .from(terminals)
      .where(eq(terminals.id, actor.terminalId))
      .limit(1);
    const id = newVisitId();
    const ticket = newToken();
    const now = clock.now();
    const urlExpiresAt = new Date(now.getTime() + linkTtlMs);
    await db.insert(visits).values({
      id,
      userId: actor.userId,
      terminalId: actor.terminalId,
      terminalName: terminal?.name ?? "",
      deviceId,
      target,
      ticketHash: hashToken(ticket),
      createdAt: now,
      urlExpiresAt,
    });
    return {
      visit_id: id,
      ...urlsOf(id, ticket),
      expires_at: urlExpiresAt.toISOString(),
      machine_id: deviceId,
      online: true,
      target,
      role: right.role,
      right_expires_at: right.expires_at,
    };
  }

  // ---- Sessions ----

  /** Visit id → device (a visit's device never changes); bounded, oldest dropped first. */
  const deviceOfVisit = new Map<string, number>();

  /**
   * The node that holds the tunnel of a visit's device when it is another one (its URL), so
   * that the relay carries the request there; null: here, or unknown (refused here).
   */
  async function nodeOf(id: string): Promise<string | null> {
    let deviceId = sessions.get(id)?.deviceId ?? deviceOfVisit.get(id);
    if (deviceId === undefined) {
      deviceId = (await row(id))?.deviceId;
      if (deviceId === undefined) return null;
      if (deviceOfVisit.size >= 10_000)
        deviceOfVisit.delete(deviceOfVisit.keys().next().value ?? "");
      deviceOfVisit.set(id, deviceId);
    }
    if (tunnels.isOnline(deviceId)) return null;
    return (await tunnels.locate(deviceId))?.node ?? null;
  }

  async function row(id: string): Promise<Visit | undefined> {
    const [visit] = await db.select().from(visits).where(eq(visits.id, id)).limit(1);
    return visit;
  }

  function sessionOf(visit: Visit): VisitSession {
    const existing = sessions.get(visit.id);
    if (existing) return existing;
    const session: VisitSession = {
      id: visit.id,
      deviceId: visit.deviceId,
      actor: { userId: visit.userId ?? 0, terminalId: visit.terminalId },
      target: visit.target.split(",")[0]?.trim() ?? "",
      cookieHash: visit.cookieHash,
      ended: false,
      streams: new Set(),
      sockets: new Set(),
      agent: null,
      jar: new Map(),
      targets: new Set(
        visit.target
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      ),
      targetsDirty: false,
      bytesIn: visit.bytesIn,
      bytesOut: visit.bytesOut,
      flushedIn: visit.bytesIn,
      flushedOut: visit.bytesOut,
      lastActive: clock.now(),
      lastActiveMs: Date.now(),
      checkedAtMs: 0,
      rightEndsAt: null,
      checking: null,
    };
    sessions.set(visit.id, session);
    return session;
  }

  /**
   * The first open of a visit URL: its one-time ticket becomes the visit cookie. Refused when
   * the ticket is wrong, used or late, or the right no longer holds.
   */
  async function claim(
    id: string,
    ticket: string,
  ): Promise<{ session: VisitSession; cookie: string }> {
    const visit = await row(id);
    const now = clock.now();
    if (!visit?.ticketHash || visit.ticketHash !== hashToken(ticket))
      throw new AppError("VISIT_LINK_INVALID", null, 403);
    if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
    if (visit.urlExpiresAt <= now) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const cookie = newToken();
    const [claimed] = await db
      .update(visits)
      .set({ ticketHash: null, cookieHash: hashToken(cookie), startedAt: now, lastActiveAt: now })
      .where(
        and(eq(visits.id, id), eq(visits.ticketHash, visit.ticketHash), isNull(visits.endedAt)),
      )
      .returning();
    if (!claimed) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const session = sessionOf(claimed);
    session.cookieHash = claimed.cookieHash;
    await check(session, true);
    return { session, cookie };
  }

  /** The visit a browser's visit cookie belongs to; refused for any other cookie. */
  async function byCookie(id: string, cookie: string | undefined): Promise<VisitSession> {
    if (!cookie) throw new AppError("VISIT_LINK_INVALID", null, 403);
    const hash = hashToken(cookie);
    let session = sessions.get(id);
    if (!session) {
      const visit = await row(id);
      if (!visit || visit.cookieHash !== hash) throw new AppError("VISIT_LINK_INVALID", null, 403);
      if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
      session = sessionOf(visit);
    }
    if (session.cookieHash !== hash) throw new AppError("VISIT_LINK_INVALID", null, 403);
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    await check(session, false);
    return session;
  }

  /** A visit used by its own user and terminal through the API (TCP forwards). */
  async function byCaller(id: string, actor: Actor): Promise<VisitSession> {
    let session = sessions.get(id);
    if (!session) {
      const visit = await row(id);
      if (!visit || visit.userId !== actor.userId || visit.terminalId !== actor.terminalId)
        throw new AppError("VISIT_NOT_FOUND", null, 404);
      if (visit.endedAt) throw new AppError("VISIT_ENDED", null, 410);
      const now = clock.now();
      if (!visit.startedAt) {
        // Forwarded before it was opened in a browser: the link is spent.
        await db
          .update(visits)
          .set({ startedAt: now, lastActiveAt: now, ticketHash: null })
          .where(and(eq(visits.id, id), isNull(visits.startedAt)));
      }
      session = sessionOf(visit);
    }
    if (session.actor.userId !== actor.userId || session.actor.terminalId !== actor.terminalId)
      throw new AppError("VISIT_NOT_FOUND", null, 404);
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    await check(session, false);
    return session;
  }

  /**
   * The rights check of a visit. `force`: always ask again (periodic and event re-checks);
   * otherwise a check that passed within a second (and whose right has not run out) serves.
   * A refused right ends the visit; the refusal is thrown.
   */
  async function check(session: VisitSession, force: boolean): Promise<void> {
    if (session.ended) throw new AppError("VISIT_ENDED", null, 410);
    if (!force) {
      const fresh = Date.now() - session.checkedAtMs < freshMs;
      const running = !session.rightEndsAt || session.rightEndsAt > clock.now();
      if (fresh && running) return;
      if (session.checking) return session.checking;
    } else if (session.checking) {
      // A check begun before the change may have read the old right: ask once more.
      await session.checking.catch(() => {});
    }
    const run = (async () => {
      try {
        const [terminal] = await db
          .select({ id: terminals.id })
          .from(terminals)
          .where(
            and(
              eq(terminals.id, session.actor.terminalId),
              eq(terminals.userId, session.actor.userId),
              gt(terminals.expiresAt, clock.now()),
            ),
          )
          .limit(1);
        // The visitor signed out on that terminal (or its session ran out): the visit goes too.
        if (!terminal) {
          await end(session, "rights_revoked");
          throw new AppError("VISIT_ENDED", null, 410);
        }
        const right = await access.rights(session.actor, session.deviceId);
        session.checkedAtMs = Date.now();
        session.rightEndsAt = right.expires_at ? new Date(right.expires_at) : null;
      } catch (error) {
        if (error instanceof AppError && error.key !== "VISIT_ENDED") {
          await end(session, endReasonFor(error.key));
        }
        throw error;
      }
    })();
    session.checking = run;
    try {
      await run;
    } finally {
      if (session.checking === run) session.checking = null;
    }
  }

  function touch(session: VisitSession): void {
    session.lastActive = clock.now();
    session.lastActiveMs = Date.now();
  }

  /**
   * A new stream of a visit to `target` ("host:port"; null: the device UI). Re-checks the
   * right first. Failures are AppErrors with an HTTP status for the relay's pages.
   */
  async function openStream(session: VisitSession, target: string | null): Promise<TunnelStream> {
    await check(session, false);
    const parsed = target ? parseTarget(target) : null;
    if (target && !parsed) throw new AppError("BAD_REQUEST", { field: "target" }, 400);
    // The agent refuses what is off its list too; asking first keeps such a request from
    // ever reaching the device (and gives the same answer as issuing a visit).
    const named = parsed && formatTarget(parsed);
    const allow = tunnels.hello(session.deviceId)?.allow;
    if (named && allow && !allow.includes(named))
      throw new AppError("TARGET_NOT_ALLOWED", { target: named }, 403);
    let stream: TunnelStream;
    try {
      stream = await tunnels.open(session.deviceId, parsed);
    } catch (error) {
      throw streamFailure(error);
    }
    if (session.ended) {
      stream.destroy(new TunnelError(TUNNEL_RESET.rightsEnded, "visit ended"));
      throw new AppError("VISIT_ENDED", null, 410);
    }
    session.streams.add(stream);
    touch(session);
    if (parsed) {
      const text = formatTarget(parsed);
      if (!session.targets.has(text) && session.targets.size < 8) {
        session.targets.add(text);
        session.targetsDirty = true;
      }
    }
    stream.once("close", () => {
      session.streams.delete(stream);
      session.bytesIn += stream.bytesIn;
      session.bytesOut += stream.bytesOut;
      relayed.fromDevice += stream.bytesIn;
      relayed.toDevice += stream.bytesOut;
      touch(session);
    });
    return stream;
  }

  function streamFailure(error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof DeviceOfflineError) return new AppError("DEVICE_OFFLINE", null, 502);
    if (error instanceof TunnelError) {
      if (error.code === TUNNEL_RESET.refused)
        return new AppError("TARGET_NOT_ALLOWED", { reason: error.message }, 502);
      if (error.code === TUNNEL_RESET.timeout)
        return new AppError("TARGET_UNREACHABLE", { reason: error.message }, 504);
      return new AppError("TARGET_UNREACHABLE", { reason: error.message }, 502);
    }
    log.error({ err: error }, "tunnel stream failed");
    return new AppError("SERVER_ERROR", null, 500);
  }

  /** The visit's keep-alive pool to the device UI. */
  function agentOf(session: VisitSession): TunnelAgent {
    session.agent ??= new TunnelAgent(() => openStream(session, null));
    return session.agent;
  }

  /** Holds a socket handed over whole so that ending the visit cuts it. */
  function hold(
    session: VisitSession,
    socket: { destroy(error?: Error): void; once: (event: "close", f: () => void) => unknown },
  ) {
    session.sockets.add(socket);
    socket.once("close", () => session.sockets.delete(socket));
  }

  function totals(session: VisitSession) {
    let bytesIn = session.bytesIn;
    let bytesOut = session.bytesOut;
    for (const stream of session.streams) {
      bytesIn += stream.bytesIn;
      bytesOut += stream.bytesOut;
    }
    return { bytesIn, bytesOut };
  }

  /** Ends a visit on this node: its streams and sockets are cut, the row says why. */
  async function end(session: VisitSession, reason: VisitEndReason, by?: number): Promise<void> {
    if (session.ended) return;
    session.ended = true;
    const cut = new TunnelError(TUNNEL_RESET.rightsEnded, `visit ended: ${reason}`);
    for (const stream of session.streams) stream.destroy(cut);
    for (const socket of session.sockets) socket.destroy();
    session.agent?.destroy();
    const { bytesIn, bytesOut } = totals(session);
    const now = clock.now();
    try {
      await db
        .update(visits)
        .set({
          endedAt: now,
          endReason: reason,
          endedBy: by ?? null,
          bytesIn,
          bytesOut,
          lastActiveAt: session.lastActive,
          target: [...session.targets].join(", ") || session.target,
        })
        .where(and(eq(visits.id, session.id), isNull(visits.endedAt)));
    } finally {
      // Only now: a request in between finds the ended session (410), not a row that still
      // looks open and would be checked again (403).
      sessions.delete(session.id);
    }
    log.info({ visit: session.id, reason }, "visit ended");
    events.publish("visit.ended", { visitId: session.id, reason });
  }

  /** Bytes and last activity of open visits go to their rows every re-check. */
  async function flush(session: VisitSession): Promise<void> {
    const { bytesIn, bytesOut } = totals(session);
    if (bytesIn === session.flushedIn && bytesOut === session.flushedOut && !session.targetsDirty)
      return;
    session.flushedIn = bytesIn;
    session.flushedOut = bytesOut;
    session.targetsDirty = false;
    await db
      .update(visits)
      .set({
        bytesIn,
        bytesOut,
        lastActiveAt: session.lastActive,
        target: [...session.targets].join(", ") || session.target,
      })
      .where(and(eq(visits.id, session.id), isNull(visits.endedAt)));
  }

  // ---- Re-checks ----

  let sweeping = false;
  let lastOrphanSweep = 0;
  async function sweep(): Promise<void> {
    if (sweeping) return;
    sweeping = true;
    try {
      const now = clock.now();
      for (const session of [...sessions.values()]) {
        if (session.ended) continue;
        try {
          const busy = session.streams.size > 0 || session.sockets.size > 0;
          if (!busy && now.getTime() - session.lastActive.getTime() > idleMs) {
            await end(session, "idle");
            continue;
          }
          if (busy || Date.now() - session.lastActiveMs < recheckMs * 2)
            await check(session, true).catch((error) => {
              if (!(error instanceof AppError)) throw error;
            });
          if (!session.ended) await flush(session);
        } catch (error) {
          log.warn({ err: error, visit: session.id }, "visit re-check failed");
        }
      }
      // Visits left running by a stopped process end once idle (nobody holds their streams).
      if (Date.now() - lastOrphanSweep > 60_000) {
        lastOrphanSweep = Date.now();
        const stale = new Date(now.getTime() - idleMs);
        const held = [...sessions.keys()];
        const orphans = await db
          .select({ id: visits.id })
          .from(visits)
          .where(
            and(
              isNull(visits.endedAt),
              isNotNull(visits.startedAt),
              lt(visits.lastActiveAt, stale),
            ),
          )
          .limit(500);
        const ids = orphans.map((o) => o.id).filter((id) => !held.includes(id));
        if (ids.length)
          await db
            .update(visits)
            .set({ endedAt: now, endReason: "idle" })
            .where(and(inArray(visits.id, ids), isNull(visits.endedAt)));
      }
    } catch (error) {
      log.warn({ err: error }, "visit sweep failed");
    } finally {
      sweeping = false;
    }
  }
  const timer = setInterval(() => void sweep(), recheckMs);
  timer.unref();

  /** Re-checks this node's open visits of a device (of one user when given) now. */
  function recheckDevice(deviceId: number, userId?: number): void {
    for (const session of sessions.values()) {
      if (session.deviceId !== deviceId) continue;
      if (userId !== undefined && session.actor.userId !== userId) continue;
      check(session, true).catch((error) => {
        if (!(error instanceof AppError)) log.warn({ err: error }, "visit re-check failed");
      });
    }
  }

  // Every node hears these (src/events.ts) and acts on the visits it holds.
  const unsubscribe = [
    events.subscribe("rights.changed", (m) => recheckDevice(m.deviceId, m.userId)),
    events.subscribe("visit.ended", (m) => {
      const session = sessions.get(m.visitId);
      if (session) void end(session, m.reason);
    }),
    events.subscribe("tunnel.link", (m) => linkChanged(m.deviceId)),
  ];

  /** A device's tunnel went away or came back: its visits' pooled connections are stale. */
  function linkChanged(deviceId: number): void {
    for (const session of sessions.values()) {
      if (session.deviceId !== deviceId || !session.agent) continue;
      session.agent.destroy();
      session.agent = null;
    }
  }

  // ---- The visit log ----

  async function requireApprover(userId: number, deviceId: number): Promise<void> {
    const [link] = await db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.userId, userId),
          eq(deviceLinks.deviceId, deviceId),
          inArray(deviceLinks.role, ["akey", "bkey"]),
        ),
      )
      .limit(1);
    if (!link) throw fail("DEVICE_NO_PERMISSION");
  }

  function toItem(r: {
    visit: Visit;
    name: string | null;
    phone: string | null;
    email: string | null;
  }): VisitItem {
    const v = r.visit;
    const live = sessions.get(v.id);
    const bytes = live ? totals(live) : { bytesIn: v.bytesIn, bytesOut: v.bytesOut };
    return {
      visit_id: v.id,
      user_id: v.userId,
      user_name: r.name ?? "",
      account: maskAccount({ phone: r.phone, email: r.email }),
      terminal_name: v.terminalName,
      target: live ? [...live.targets].join(", ") || v.target : v.target,
      started_at: (v.startedAt ?? v.createdAt).toISOString(),
      ended_at: v.endedAt?.toISOString() ?? null,
      bytes_in: bytes.bytesIn,
      bytes_out: bytes.bytesOut,
      state: v.endedAt ? "ended" : "running",
      end_reason: (v.endReason as VisitEndReason | null) ?? null,
    };
  }

  /** The visits of a device, newest first: for its Akey and Bkeys only. */
  async function list(
    actor: Actor,
    deviceId: number,
    page: number,
    pageSize: number,
  ): Promise<VisitPage> {
    await requireApprover(actor.userId, deviceId);
    const rows = await db
      .select({
        visit: visits,
        name: users.name,
        phone: users.phone,
        email: users.email,
        total: sql<number>`count(*) over ()`.mapWith(Number),
      })
      .from(visits)
      .leftJoin(users, eq(users.id, visits.userId))
      .where(and(eq(visits.deviceId, deviceId), isNotNull(visits.startedAt)))
      .orderBy(desc(visits.startedAt), desc(visits.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
    let total = rows[0]?.total ?? 0;
    if (rows.length === 0 && page > 1) {
      const [counted] = await db
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(visits)
        .where(and(eq(visits.deviceId, deviceId), isNotNull(visits.startedAt)));
      total = counted?.n ?? 0;
    }
    return { list: rows.map(toItem), total };
  }

  async function item(id: string): Promise<VisitItem> {
    const [r] = await db
      .select({ visit: visits, name: users.name, phone: users.phone, email: users.email })
      .from(visits)
      .leftJoin(users, eq(users.id, visits.userId))
      .where(eq(visits.id, id))
      .limit(1);
    if (!r) throw fail("VISIT_NOT_FOUND");
    return toItem(r);
  }

  /** The Akey or a Bkey ends a running visit: its streams are cut at once. */
  async function endByOwner(actor: Actor, id: string): Promise<VisitItem> {
    const visit = await row(id);
    if (!visit?.startedAt) throw fail("VISIT_NOT_FOUND");
    await requireApprover(actor.userId, visit.deviceId);
    if (!visit.endedAt) {
      const session = sessions.get(id);
      if (session) await end(session, "ended_by_owner", actor.userId);
      else {
        await db
          .update(visits)
          .set({ endedAt: clock.now(), endReason: "ended_by_owner", endedBy: actor.userId })
          .where(and(eq(visits.id, id), isNull(visits.endedAt)));
        // Another node may hold its streams.
        events.publish("visit.ended", { visitId: id, reason: "ended_by_owner" });
      }
    }
    return item(id);
  }

  function stats() {
    let streams = 0;
    let { fromDevice, toDevice } = relayed;
    for (const s of sessions.values()) {
      streams += s.streams.size;
      for (const stream of s.streams) {
        fromDevice += stream.bytesIn;
        toDevice += stream.bytesOut;
      }
    }
    // Bytes only grow: closed streams' plus what the open ones have carried so far.
    return { sessions: sessions.size, streams, bytes: { fromDevice, toDevice } };
  }

  async function close(): Promise<void> {
    clearInterval(timer);
    for (const off of unsubscribe) off();
    for (const session of sessions.values()) {
      for (const stream of session.streams) stream.destroy();
      for (const socket of session.sockets) socket.destroy();
      session.agent?.destroy();
      await flush(session).catch(() => {});
    }
    sessions.clear();
  }

  return {
    issue,
    claim,
    byCookie,
    byCaller,
    nodeOf,
    openStream,
    agentOf,
    hold,
    touch,
    list,
    endByOwner,
    sweep,
    stats,
    close,
  };
}
