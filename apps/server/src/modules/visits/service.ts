import type { ConnectRight } from "@keyway/shared";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Actor } from "../access/service.ts";
import type { TunnelHub } from "../tunnel/service.ts";
import { createActivityRecorder } from "./activity.ts";
import { createActivityLog } from "./activityLog.ts";
import type { ActivityRecorder } from "./activityTypes.ts";
import { createVisitAdmission } from "./admission.ts";
import { createVisitCheck } from "./check.ts";
import { createConsent } from "./consent.ts";
import type { VisitHosts } from "./hosts.ts";
import { createVisitIssuer } from "./issue.ts";
import { createVisitRecheck } from "./recheck.ts";
import { createVisitRegistry } from "./registry.ts";
import { createRemoteSettings } from "./settings.ts";
import { createVisitStreams } from "./streams.ts";
import { createVisitLog } from "./visitLog.ts";

export { newVisitId } from "./issue.ts";
export type { VisitSession } from "./session.ts";

export type VisitService = ReturnType<typeof createVisitService>;

/**
 * Visits (ARCHITECTURE "Remote access"): issued only when `access.rights` holds, bound to
 * the user, terminal and device; every new stream re-checks the right (one check serves the
 * streams opened within a second), open visits are re-checked every few seconds and at once
 * when a right may have changed, and a failed check ends the visit and cuts its streams.
 * One file per job: issue.ts (URLs), registry.ts (the visits open on this node), check.ts,
 * admission.ts (ticket, cookie, caller), streams.ts, recheck.ts and visitLog.ts.
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
  /** How long the person at the machine has to accept a visit (ms; CONSENT_TIMEOUT_MS). */
  consentTimeoutMs?: number;
  /** How often activity older than VISIT_ACTIVITY_DAYS is deleted (ms; 0: only by hand). */
  activitySweepMs?: number;
}) {
  const registry = createVisitRegistry(deps);
  const { sessions, flush } = registry;
  const check = createVisitCheck({ ...deps, end: registry.end });
  const admission = createVisitAdmission({ ...deps, registry, check });
  const streams = createVisitStreams({ ...deps, sessions, check, touch: registry.touch });
  const recheck = createVisitRecheck({
    ...deps,
    registry,
    check,
    recheckMs: deps.recheckMs ?? 3000,
    idleMs: deps.idleMs ?? 10 * 60_000,
  });
  const settings = createRemoteSettings({
    ...deps,
    helloOf: async (deviceId) => (await deps.tunnels.locate(deviceId))?.hello ?? null,
  });
  const linkTtlMs = deps.linkTtlMs ?? 60_000;
  // On-site consent: asks the agent before a URL is answered, hears its answers and ends.
  const consent = createConsent({
    ...deps,
    registry,
    rules: settings.rules,
    timeoutMs: deps.consentTimeoutMs,
    linkTtlMs,
  });
  // Who may read a device's visit log and activity: one rule (settings.approverRole).
  const visitLog = createVisitLog({ ...deps, registry, approverRole: settings.approverRole });
  // What visitors did (issue 20): the relay reports, rows are written in batches.
  const recorder = createActivityRecorder(deps);
  const activity: ActivityRecorder = recorder;
  const activityLog = createActivityLog({
    ...deps,
    approverRole: settings.approverRole,
    flush: recorder.flush,
    sweepEveryMs: deps.activitySweepMs,
  });
  // A visit's last requests are in the database soon after it ends, whichever node ends it.
  const offEnded = deps.events.subscribe("visit.ended", () => void recorder.flush());

  async function close(): Promise<void> {
    recheck.stop();
    consent.close();
    activityLog.stop();
    offEnded();
    for (const session of sessions.values()) {
      for (const stream of session.streams) stream.destroy();
      for (const socket of session.sockets) socket.destroy();
      session.agent?.destroy();
      await flush(session).catch(() => {});
    }
    sessions.clear();
    // Sockets cut above report their sessions on their close events: let those run first.
    await new Promise((resolve) => setImmediate(resolve));
    await recorder.close();
  }

  return {
    issue: createVisitIssuer({ ...deps, linkTtlMs, consent }),
    claim: admission.claim,
    byCookie: admission.byCookie,
    byCookieNow: admission.byCookieNow,
    byCaller: admission.byCaller,
    nodeOf: registry.nodeOf,
    tunnelHere: registry.tunnelHere,
    openHere: registry.openHere,
    openStream: streams.openStream,
    agentOf: streams.agentOf,
    hold: registry.hold,
    touch: registry.touch,
    list: visitLog.list,
    endByOwner: visitLog.endByOwner,
    settings,
    activity,
    activityList: activityLog.list,
    activityCsv: activityLog.csv,
    /** Deletes activity older than VISIT_ACTIVITY_DAYS now (it also runs hourly). */
    sweepActivity: activityLog.sweep,
    /** Writes the activity rows this node still holds. */
    flushActivity: recorder.flush,
    sweep: recheck.sweep,
    stats: streams.stats,
    close,
  };
}
