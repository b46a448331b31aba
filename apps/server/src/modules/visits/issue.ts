import { randomBytes } from "node:crypto";
import { formatTarget, parseTarget } from "@keyway/protocol";
import type { ConnectRight, VisitUrl } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken } from "../../infra/crypto.ts";
import type { Actor } from "../access/service.ts";
import { terminals } from "../accounts/schema.ts";
import type { TunnelHub } from "../tunnel/service.ts";
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
}) {
  const { db, clock, access, tunnels, linkTtlMs } = deps;

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
      kind: options.target ? "tcp" : "web",
      view_only: !right.write,
      consent: "none",
    };
  }

  return issue;
}
