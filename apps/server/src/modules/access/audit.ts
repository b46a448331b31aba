import {
  type AccessKind,
  type AccessRequestView,
  AUDIT_STATE,
  type AuditState,
  type AuditStep,
  isFinalAuditState,
} from "@keyway/shared";
import { asc, eq, inArray } from "drizzle-orm";
import { fail } from "../../http/envelope.ts";
import { users } from "../accounts/schema.ts";
import { type Device, deviceLinks, devices } from "../devices/schema.ts";
import { type AccessContext, accountOf } from "./lookups.ts";
import { accessRequestSteps, accessRequests } from "./schema.ts";

export type Approver = "akey" | "bkey";

/**
 * The next audit state when an approver agrees (SPEC §4): in Akey+Bkey mode both sides must
 * pass; a device without a Bkey needs only its Akey. Undefined: this side already passed.
 */
export function nextStateOnAgree(
  state: AuditState,
  by: Approver,
  deviceHasBkey: boolean,
): AuditState | undefined {
  if (by === "akey") {
    if (state === AUDIT_STATE.pending)
      return deviceHasBkey ? AUDIT_STATE.akeyPassedWaitingBkey : AUDIT_STATE.allPassed;
    if (state === AUDIT_STATE.bkeyPassedWaitingAkey) return AUDIT_STATE.allPassed;
    return undefined;
  }
  if (state === AUDIT_STATE.pending) return AUDIT_STATE.bkeyPassedWaitingAkey;
  if (state === AUDIT_STATE.akeyPassedWaitingBkey) return AUDIT_STATE.allPassed;
  return undefined;
}

/** Whether an approver on this side may still answer a request in this state. */
export function awaits(state: number, by: Approver): boolean {
  if (state === AUDIT_STATE.pending) return true;
  return by === "akey"
    ? state === AUDIT_STATE.bkeyPassedWaitingAkey
    : state === AUDIT_STATE.akeyPassedWaitingBkey;
}

/** How requests read to their requester and the device's approvers, in lists and pushes. */
export function createAuditViews(ctx: AccessContext) {
  const { db, messages } = ctx;

  /** Requests as their requester or the device's approvers see them; others get nothing. */
  async function describe(
    requestIds: number[],
    viewerId: number,
  ): Promise<Map<number, { view: AccessRequestView; canReply: boolean }>> {
    const out = new Map<number, { view: AccessRequestView; canReply: boolean }>();
    if (requestIds.length === 0) return out;
    const rows = await db
      .select({
        req: accessRequests,
        code: devices.code,
        requesterName: users.name,
        requesterPhone: users.phone,
        requesterEmail: users.email,
      })
      .from(accessRequests)
      .innerJoin(devices, eq(devices.id, accessRequests.deviceId))
      .innerJoin(users, eq(users.id, accessRequests.requesterId))
      .where(inArray(accessRequests.id, requestIds));
    if (rows.length === 0) return out;
    const deviceIds = [...new Set(rows.map((r) => r.req.deviceId))];
    const links = await db
      .select({
        deviceId: deviceLinks.deviceId,
        userId: deviceLinks.userId,
        role: deviceLinks.role,
        name: deviceLinks.name,
      })
      .from(deviceLinks)
      .where(inArray(deviceLinks.deviceId, deviceIds));
    const steps = await db
      .select({ step: accessRequestSteps, actorName: users.name })
      .from(accessRequestSteps)
      .leftJoin(users, eq(users.id, accessRequestSteps.actorId))
      .where(inArray(accessRequestSteps.requestId, requestIds))
      .orderBy(asc(accessRequestSteps.id));
    for (const r of rows) {
      const deviceLinksOf = links.filter((l) => l.deviceId === r.req.deviceId);
      const viewerLink = deviceLinksOf.find((l) => l.userId === viewerId);
      const akey = deviceLinksOf.find((l) => l.role === "akey");
      const viewerSide =
        viewerLink?.role === "akey" || viewerLink?.role === "bkey" ? viewerLink.role : undefined;
      const isRequester = r.req.requesterId === viewerId;
      if (!isRequester && !viewerSide) continue;
      const state = r.req.state as AuditState;
      const account = accountOf({ phone: r.requesterPhone, email: r.requesterEmail });
      const stepViews: AuditStep[] = steps
        .filter((s) => s.step.requestId === r.req.id)
        .map((s) => ({
          by: s.step.by,
          name: s.actorName ?? "",
          result: s.step.result,
          message: s.step.message,
          at: s.step.at.toISOString(),
        }));
      out.set(r.req.id, {
        canReply: Boolean(viewerSide && !isFinalAuditState(state) && awaits(state, viewerSide)),
        view: {
          id: r.req.id,
          kind: r.req.kind,
          machine_id: r.req.deviceId,
          machine_code: r.code,
          machine_name: viewerLink?.name ?? akey?.name ?? r.code,
          requester_id: r.req.requesterId,
          requester_name: r.requesterName,
          requester_account: account.phone || account.email,
          terminal_name: r.req.terminalName,
          message: r.req.message,
          remarks: r.req.remarks,
          auditState: state,
          isResult: isFinalAuditState(state) ? 1 : 0,
          check_type: r.req.checkType === 1 ? 1 : 0,
          visit_time: r.req.visitMinutes,
          created_at: r.req.createdAt.toISOString(),
          updated_at: r.req.updatedAt.toISOString(),
          steps: stepViews,
        },
      });
    }
    return out;
  }

  async function auditProcess(viewerId: number, requestId: number): Promise<AccessRequestView> {
    const found = (await describe([requestId], viewerId)).get(requestId);
    if (!found) throw fail("REQUEST_NOT_FOUND");
    return found.view;
  }

  /** Pushes a request's new audit state to these users (after the write committed). */
  async function announceAudit(
    kind: AccessKind,
    device: Pick<Device, "id" | "code">,
    userIds: number[],
    auditState: number,
  ) {
    const isResult = isFinalAuditState(auditState) ? 1 : 0;
    await messages.announce(userIds, (totalUnreadMsg) => ({
      kind: "audit",
      of: kind,
      deviceCode: device.code,
      deviceId: device.id,
      isResult,
      auditState,
      totalUnreadMsg,
    }));
  }

  return { describe, auditProcess, announceAudit };
}

export type AuditViews = ReturnType<typeof createAuditViews>;
