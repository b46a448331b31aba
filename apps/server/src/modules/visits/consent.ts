import { AGENT_FEATURE_CONTROL, type AgentHello, CONSENT_TIMEOUT_MS } from "@keyway/protocol";
import { maskAccount, type VisitEndReason, type VisitKind } from "@keyway/shared";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import type { AgentControl, TunnelHub } from "../tunnel/service.ts";
import type { VisitRegistry } from "./registry.ts";
import { visits } from "./schema.ts";
import type { RemoteRules } from "./settings.ts";

type Answer = "accept" | "refuse" | "unsupported";

/** Bounded maps: whatever a peer does, a node remembers at most this many visits per map. */
const MAX_REMEMBERED = 10_000;
/** Visits ended on site being looked up at once; more from agents wait for nobody (dropped). */
const MAX_ENDING = 16;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value ?? "");
  map.set(key, value);
}

/**
 * On-site consent (docs/architecture/remote-access.md "On-site consent"). With the device's
 * `onsiteConsent` on, issuing a visit URL inserts the visit, asks the agent (the person at
 * the machine) and holds the call until the answer, at most `timeoutMs`: no answer is a
 * refusal. The ask goes out as a domain event, so the node holding the tunnel passes it on
 * wherever the call landed, and the answer comes back the same way. Every node notes the
 * accepted visits, so the one holding the tunnel tells the agent when they end; an agent's
 * `visit.end` ends a running visit of its own device (`ended_on_site`).
 *
 * A hostile agent is heard only about what was asked of it: an answer for a visit not asked
 * of its device, or one nobody asked, is dropped; `visit.end` counts only for its own visits.
 */
export function createConsent(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  events: Events;
  tunnels: TunnelHub;
  registry: VisitRegistry;
  rules: (deviceId: number) => Promise<RemoteRules>;
  /** How long the person at the machine has (default CONSENT_TIMEOUT_MS; tests shorten it). */
  timeoutMs?: number;
  /** How long an issued URL may wait to be opened, counted again from the acceptance. */
  linkTtlMs: number;
}) {
  const { db, clock, log, events, tunnels, registry, linkTtlMs } = deps;
  const timeoutMs = deps.timeoutMs ?? CONSENT_TIMEOUT_MS;
  /** Issuing node: asks whose call is held, by visit. */
  const waiting = new Map<string, { deviceId: number; settle: (answer: Answer | null) => void }>();
  /** Issuing node: asks it gave up on, in case an acceptance crosses the cancel. */
  const timedOut = new Map<string, number>();
  /** Node holding the tunnel: asks passed to its agent (cancelled: given up by the issuer). */
  const asked = new Map<string, { deviceId: number; cancelled: boolean }>();
  /** Every node: accepted visits, by visit → device, until they end. */
  const consented = new Map<string, number>();
  const ending = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  function later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  /**
   * Whether a visit of the device must be accepted on site; refused at once (before any row)
   * when the agent has nobody to ask: it did not announce "control".
   */
  async function required(deviceId: number, hello: AgentHello | null): Promise<boolean> {
    if (!(await deps.rules(deviceId)).onsiteConsent) return false;
    if (!hello?.features?.includes(AGENT_FEATURE_CONTROL)) throw fail("CONSENT_UNSUPPORTED");
    return true;
  }

  /** A visit that never began ends here; it shows in the log from when it was asked. */
  async function endUnstarted(visitId: string, reason: VisitEndReason): Promise<boolean> {
    const ended = await db
      .update(visits)
      .set({
        endedAt: clock.now(),
        endReason: reason,
        ticketHash: null,
        startedAt: sql`coalesce(${visits.startedAt}, ${visits.createdAt})`,
      })
      .where(and(eq(visits.id, visitId), isNull(visits.endedAt)))
      .returning({ id: visits.id });
    return ended.length > 0;
  }

  /**
   * Asks the person at the machine about an inserted visit and waits. Accepted: the URL's
   * new expiry (its minute counts from now). Refused, unanswered or not askable: the visit
   * is ended (or removed) and the refusal thrown.
   */
  async function ask(visit: {
    visitId: string;
    deviceId: number;
    userId: number;
    kind: VisitKind;
    viewOnly: boolean;
  }): Promise<Date> {
    const { visitId, deviceId } = visit;
    const [user] = await db
      .select({ name: users.name, phone: users.phone, email: users.email })
      .from(users)
      .where(eq(users.id, visit.userId))
      .limit(1);
    const answer = await new Promise<Answer | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      waiting.set(visitId, {
        deviceId,
        settle: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
      });
      events.publish("consent.ask", {
        visitId,
        deviceId,
        visitor: (user?.name ?? "").slice(0, 200),
        account: user ? maskAccount(user) : "",
        kind: visit.kind,
        viewOnly: visit.viewOnly,
        timeoutMs,
      });
    });
    waiting.delete(visitId);
    if (answer === "accept") {
      const expires = new Date(clock.now().getTime() + linkTtlMs);
      await db
        .update(visits)
        .set({ urlExpiresAt: expires })
        .where(and(eq(visits.id, visitId), isNull(visits.endedAt)));
      // Accepted but never opened: it ends once its link is spent, and the agent is told.
      later(linkTtlMs + 5000, () => void endIfUnopened(visitId));
      return expires;
    }
    if (answer === "unsupported") {
      await db.delete(visits).where(eq(visits.id, visitId));
      throw fail("CONSENT_UNSUPPORTED");
    }
    if (answer === null) {
      remember(timedOut, visitId, deviceId);
      later(60_000, () => timedOut.delete(visitId));
      events.publish("consent.cancel", { visitId, deviceId });
    }
    const refused = answer === "refuse";
    await endUnstarted(visitId, refused ? "consent_refused" : "consent_timeout");
    log.info({ visit: visitId, answer: answer ?? "none" }, "visit not consented on site");
    throw fail(refused ? "CONSENT_REFUSED" : "CONSENT_TIMEOUT");
  }

  async function endIfUnopened(visitId: string): Promise<void> {
    try {
      const [row] = await db
        .select({ startedAt: visits.startedAt, endedAt: visits.endedAt })
        .from(visits)
        .where(eq(visits.id, visitId))
        .limit(1);
      if (!row || row.startedAt || row.endedAt) return;
      if (await endUnstarted(visitId, "idle"))
        events.publish("visit.ended", { visitId, reason: "idle" });
    } catch (error) {
      log.warn({ err: error, visit: visitId }, "unopened consented visit not ended");
    }
  }

  /** The person at the machine ends a visit of the agent's own device (any other: ignored). */
  async function endOnSite(deviceId: number, visitId: string): Promise<void> {
    if (ending.has(visitId) || ending.size >= MAX_ENDING) return;
    ending.add(visitId);
    try {
      const session = registry.sessions.get(visitId);
      if (session) {
        if (session.deviceId === deviceId) await registry.end(session, "ended_on_site");
        return;
      }
      const [row] = await db
        .select({ deviceId: visits.deviceId, endedAt: visits.endedAt })
        .from(visits)
        .where(eq(visits.id, visitId))
        .limit(1);
      if (row?.deviceId !== deviceId) return;
      if (row.endedAt) {
        // Over already: the agent's list is out of date (it missed the notice while offline).
        tunnels.sendControl(deviceId, { t: "visit.ended", visit: visitId });
        return;
      }
      // Another node may hold its streams: it hears the event and cuts them.
      if (await endUnstarted(visitId, "ended_on_site"))
        events.publish("visit.ended", { visitId, reason: "ended_on_site" });
    } catch (error) {
      log.warn({ err: error, visit: visitId }, "visit not ended on site");
    } finally {
      ending.delete(visitId);
    }
  }

  function fromAgent(deviceId: number, message: AgentControl): void {
    if (message.t === "visit.end") return void endOnSite(deviceId, message.visit);
    const entry = asked.get(message.visit);
    if (entry?.deviceId !== deviceId) return;
    asked.delete(message.visit);
    if (entry.cancelled) {
      // Accepted after the visitor was told "no answer": the agent must not list it.
      if (message.accept) tunnels.sendControl(deviceId, { t: "visit.ended", visit: message.visit });
      return;
    }
    events.publish("consent.answered", {
      visitId: message.visit,
      deviceId,
      answer: message.accept ? "accept" : "refuse",
    });
  }

  const unsubscribe = [
    tunnels.onControl(fromAgent),
    events.subscribe("consent.ask", (m) => {
      if (!tunnels.isOnline(m.deviceId)) return;
      const sent = tunnels.sendControl(m.deviceId, {
        t: "consent.ask",
        visit: m.visitId,
        visitor: m.visitor,
        account: m.account,
        kind: m.kind,
        viewOnly: m.viewOnly,
        timeoutMs: m.timeoutMs,
      });
      if (!sent) {
        events.publish("consent.answered", {
          visitId: m.visitId,
          deviceId: m.deviceId,
          answer: "unsupported",
        });
        return;
      }
      remember(asked, m.visitId, { deviceId: m.deviceId, cancelled: false });
      // Forgotten once nobody can be waiting for it any more.
      later(m.timeoutMs + 60_000, () => asked.delete(m.visitId));
    }),
    events.subscribe("consent.answered", (m) => {
      if (m.answer === "accept") remember(consented, m.visitId, m.deviceId);
      const held = waiting.get(m.visitId);
      if (held?.deviceId === m.deviceId) return held.settle(m.answer);
      if (m.answer === "accept" && timedOut.get(m.visitId) === m.deviceId) {
        timedOut.delete(m.visitId);
        events.publish("visit.ended", { visitId: m.visitId, reason: "consent_timeout" });
      }
    }),
    events.subscribe("consent.cancel", (m) => {
      const entry = asked.get(m.visitId);
      if (entry?.deviceId !== m.deviceId) return;
      entry.cancelled = true;
      tunnels.sendControl(m.deviceId, { t: "consent.cancel", visit: m.visitId });
    }),
    // A consented visit is over, for whatever reason: the node holding the tunnel tells the agent.
    events.subscribe("visit.ended", (m) => {
      const deviceId = consented.get(m.visitId);
      if (deviceId === undefined) return;
      consented.delete(m.visitId);
      tunnels.sendControl(deviceId, { t: "visit.ended", visit: m.visitId });
    }),
  ];

  function close(): void {
    for (const off of unsubscribe) off();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    // The node is stopping: calls still held end as unanswered.
    for (const held of waiting.values()) held.settle(null);
  }

  return { required, ask, close };
}

export type Consent = ReturnType<typeof createConsent>;
