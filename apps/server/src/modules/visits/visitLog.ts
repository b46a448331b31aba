import {
  maskAccount,
  type VisitEndReason,
  type VisitItem,
  type VisitKind,
  type VisitPage,
} from "@keyway/shared";
import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Actor } from "../access/service.ts";
import { users } from "../accounts/schema.ts";
import type { VisitRegistry } from "./registry.ts";
import { type Visit, visits } from "./schema.ts";

/** The visit log of a device, for its Akey and Bkeys, who may also end a running visit. */
export function createVisitLog(deps: {
  db: Db;
  clock: Clock;
  events: Events;
  registry: VisitRegistry;
  /** The Akey or a Bkey of the device, else refused (settings.approverRole: the one rule). */
  approverRole: (userId: number, deviceId: number) => Promise<unknown>;
}) {
  const { db, clock, events } = deps;
  const { sessions, row, totals, end } = deps.registry;
  const requireApprover = deps.approverRole;

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
      kind: v.kind as VisitKind,
      view_only: v.viewOnly,
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

  return { list, endByOwner };
}
