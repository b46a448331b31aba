import { randomBytes } from "node:crypto";
import { formatTarget, parseTarget } from "@keyway/protocol";
import type { ConnectRight, VisitKind, VisitUrl } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken } from "../../infra/crypto.ts";
import type { Actor } from "../access/service.ts";
import { terminals } from "../accounts/schema.ts";
import type { TunnelHub } from "../tunnel/service.ts";
import type { Consent } from "./consent.ts";
import type { VisitHosts } from "./hosts.ts";
import { visits } from "./schema.ts";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** 26 characters × 5 random bits: an unguessable id that is also one DNS label. */
export function newVisitId(): string {
  const bytes = randomBytes(26);
  let id = "";
  for (const b of bytes) id += BASE32[b & 31];
  return id;
}

/**
 * Visit URLs: issued only when `access.rights` holds and the device's tunnel is up
 * (on any node), bound to the user, terminal and device, with a one-time ticket that
 * must be opened within `linkTtlMs`.
 */
export function createVisitIssuer(deps: {
  db: Db;
  clock: Clock;
  access: { rights(actor: Actor, deviceId: number): Promise<ConnectRight> };
  tunnels: TunnelHub;
  publicUrl: string;
  hosts: VisitHosts;
  linkTtlMs: number;
  /** On-site consent (consent.ts): asked before the URL is answered when the device wants it. */
  consent?: Pick<Consent, "required" | "ask">;
}) {
  const { db, clock, access, tunnels, linkTtlMs } = deps;

  /** The screen viewer's WebSocket, on Keyway's own host (its page opens it). */
  function screenUrlOf(id: string, ticket: string) {
    const base = deps.publicUrl.replace(/\/$/, "").replace(/^http/, "ws");
    return `${base}/visit-screen/${id}?kw_ticket=${ticket}`;
  }

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
    options: { target?: string; kind?: "web" | "screen" } = {},
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
    const screen = options.kind === "screen";
    if (screen) {
      // The screen is the agent's VNC server (hello.vnc); a target names something else.
      if (options.target) throw AppError.invalid("target", "v.target");
      if (!hello?.vnc) throw fail("SCREEN_NOT_OFFERED", { machine_id: deviceId });
      target = hello.vnc;
    }
    const kind: VisitKind = screen ? "screen" : options.target ? "tcp" : "web";
    const viewOnly = !right.write;
    // A raw TCP stream carries anything (a PLC's writes, a VNC server's input): not for a
    // read-only visitor, whom the relay can only hold to reading what it can follow.
    if (kind === "tcp" && viewOnly) throw fail("VIEW_ONLY");
    // Refused before any row when the device wants consent and its agent cannot ask.
    const onsite = (await deps.consent?.required(deviceId, hello)) ?? false;
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
      kind,
      viewOnly,
    });
    // The call is held until the person at the machine answers (at most CONSENT_TIMEOUT_MS);
    // a refusal ends the visit and is thrown. Accepted: the link's minute starts now.
    const consented = onsite
      ? await deps.consent?.ask({ visitId: id, deviceId, userId: actor.userId, kind, viewOnly })
      : undefined;
    return {
      visit_id: id,
      ...urlsOf(id, ticket),
      expires_at: (consented ?? urlExpiresAt).toISOString(),
      machine_id: deviceId,
      online: true,
      target,
      role: right.role,
      right_expires_at: right.expires_at,
      kind,
      view_only: viewOnly,
      ...(screen && { ws_url: screenUrlOf(id, ticket) }),
      consent: consented ? "accepted" : "none",
    };
  }

  return issue;
}
