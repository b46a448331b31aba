import {
  type AccessKind,
  type AccessRequestView,
  AUDIT_STATE,
  type AuditState,
  BIND_RETRY_MINUTES,
  isFinalAuditState,
  MESSAGE_TYPE,
  type ReplyResult,
} from "@keyway/shared";
import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { verifyPassword } from "../../infra/crypto.ts";
import { deviceLinks } from "../devices/schema.ts";
import type { NewMessage } from "../messages/service.ts";
import { type Approver, type AuditViews, awaits, nextStateOnAgree } from "./audit.ts";
import { type AccessContext, type Actor, grantValid, MINUTE_MS } from "./lookups.ts";
import type { Membership } from "./membership.ts";
import { type AccessRequest, accessRequestSteps, accessRequests, visitGrants } from "./schema.ts";

/** The visit / bind request workflow (SPEC §4): asking, and the approvers' answers. */
export function createRequests(ctx: AccessContext, views: AuditViews, membership: Membership) {
  const { db, clock, messages, requireDevice, linkOf, approversOf, requireApprover } = ctx;
  const { isBlacklisted, terminalOf, grantFor, userName, rightsChanged } = ctx;
  const { describe, announceAudit } = views;

  /**
   * A visit or bind request (SPEC §4 "Visit request outcomes"). In Akey+password mode the
   * device password grants it at once; otherwise the Akey and Bkeys are asked.
   */
  async function request(
    kind: AccessKind,
    actor: Actor,
    input: {
      deviceId: number;
      message: string;
      remarks?: string;
      terminalName?: string;
      password?: string;
    },
  ): Promise<AccessRequestView> {
    const device = await requireDevice(input.deviceId);
    if (await isBlacklisted(device.id, actor.userId)) throw fail("REQUEST_BLACKLISTED");
    const terminal = await terminalOf(actor.terminalId);
    const link = await linkOf(actor.userId, device.id);
    if (link) {
      if (kind === "bind" && link.role !== "visitor") throw fail("ALREADY_BOUND");
      if (link.role === "akey" || link.role === "bkey") throw fail("REQUEST_ADMINISTRATOR");
      if (link.role === "user") throw fail("REQUEST_GENERAL_USER");
      const grant = await grantFor(device.id, actor.userId, terminal.uuid);
      if (kind === "visit" && grant && grantValid(grant, clock.now()))
        throw fail("REQUEST_GENERAL_USER");
    }
    const approvers = await approversOf(device.id);
    if (!approvers.some((a) => a.role === "akey")) throw fail("MACHINE_CODE_NOT_FOUND");
    if (!device.cloudService) throw fail("CLOUD_EXPIRED");
    const since = new Date(clock.now().getTime() - BIND_RETRY_MINUTES * MINUTE_MS);
    const [recent] = await db
      .select({ id: accessRequests.id })
      .from(accessRequests)
      .where(
        and(
          eq(accessRequests.requesterId, actor.userId),
          eq(accessRequests.deviceId, device.id),
          eq(accessRequests.kind, kind),
          gt(accessRequests.createdAt, since),
        ),
      )
      .limit(1);
    if (recent) throw fail("TOO_FREQUENT");

    const byPassword = device.checkType === 1;
    if (byPassword) {
      if (!input.password || !(await verifyPassword(device.passwordHash, input.password)))
        throw fail("VISIT_PASSWORD_ERROR");
    }
    const now = clock.now();
    const akey = approvers.find((a) => a.role === "akey");
    const deviceName = akey?.name ?? device.code;
    const requester = await userName(actor.userId);
    const params = { device: deviceName, requester, kind };
    const requestId = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(accessRequests)
        .values({
          kind,
          deviceId: device.id,
          requesterId: actor.userId,
          terminalUuid: terminal.uuid,
          terminalName: input.terminalName || terminal.name,
          message: input.message,
          remarks: input.remarks ?? "",
          checkType: device.checkType,
          state: byPassword ? AUDIT_STATE.allPassed : AUDIT_STATE.pending,
          visitMinutes: byPassword ? -1 : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await tx.insert(accessRequestSteps).values([
        {
          requestId: row.id,
          actorId: actor.userId,
          by: "requester",
          result: "submitted",
          message: input.message,
          at: now,
        },
        ...(byPassword
          ? [
              {
                requestId: row.id,
                actorId: actor.userId,
                by: "password" as const,
                result: "agree" as const,
                message: "",
                at: now,
              },
            ]
          : []),
      ]);
      if (byPassword) await applyApproval(tx, row, deviceName);
      const application =
        kind === "visit" ? MESSAGE_TYPE.visitApplication : MESSAGE_TYPE.bindApplication;
      const items: NewMessage[] = approvers.map((a) => ({
        userId: a.userId,
        box: "inbox",
        type: application,
        deviceId: device.id,
        requestId: row.id,
        content: input.message,
        params,
      }));
      items.push({
        userId: actor.userId,
        box: "outbox",
        type: MESSAGE_TYPE.accessRequest,
        deviceId: device.id,
        requestId: row.id,
        content: input.message,
        params,
      });
      if (byPassword)
        items.push({
          userId: actor.userId,
          box: "inbox",
          type: kind === "visit" ? MESSAGE_TYPE.visitSuccess : MESSAGE_TYPE.bindSuccess,
          deviceId: device.id,
          requestId: row.id,
          params,
        });
      await messages.write(items, tx);
      return row.id;
    });
    const state = byPassword ? AUDIT_STATE.allPassed : AUDIT_STATE.pending;
    await announceAudit(
      kind,
      device,
      [...approvers.map((a) => a.userId), ...(byPassword ? [actor.userId] : [])],
      state,
    );
    const view = (await describe([requestId], actor.userId)).get(requestId);
    if (!view) throw fail("REQUEST_NOT_FOUND");
    return view.view;
  }

  /** All passed: a visit becomes a visit grant on the requesting terminal, a bind a membership. */
  async function applyApproval(tx: Db, req: AccessRequest, deviceName: string) {
    const now = clock.now();
    const link = await linkOf(req.requesterId, req.deviceId, tx);
    if (req.kind === "bind") {
      if (!link)
        await tx.insert(deviceLinks).values({
          deviceId: req.deviceId,
          userId: req.requesterId,
          role: "user",
          name: deviceName,
          remark: req.remarks,
          createdAt: now,
        });
      else if (link.role === "visitor")
        await tx.update(deviceLinks).set({ role: "user" }).where(eq(deviceLinks.id, link.id));
      return;
    }
    if (!link)
      await tx.insert(deviceLinks).values({
        deviceId: req.deviceId,
        userId: req.requesterId,
        role: "visitor",
        name: deviceName,
        // A visitor starts read-only and without alarms; an approver may change either.
        canWrite: false,
        receivesAlarms: false,
        createdAt: now,
      });
    const minutes = req.visitMinutes ?? -1;
    const expiresAt = minutes === -1 ? null : new Date(now.getTime() + minutes * MINUTE_MS);
    await tx
      .insert(visitGrants)
      .values({
        deviceId: req.deviceId,
        userId: req.requesterId,
        terminalUuid: req.terminalUuid,
        terminalName: req.terminalName,
        expiresAt,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [visitGrants.deviceId, visitGrants.userId, visitGrants.terminalUuid],
        set: { expiresAt, clearedAt: null, terminalName: req.terminalName, createdAt: now },
      });
  }

  /** An approver's answer (visitReply / bindReply / message verify). */
  async function reply(
    kind: AccessKind,
    actor: Actor,
    input: { requestId: number; result: ReplyResult; message: string; visitTime?: number },
  ): Promise<AccessRequestView> {
    const [req] = await db
      .select()
      .from(accessRequests)
      .where(and(eq(accessRequests.id, input.requestId), eq(accessRequests.kind, kind)))
      .limit(1);
    if (!req) throw fail("REQUEST_NOT_FOUND");
    const link = await requireApprover(actor.userId, req.deviceId);
    const by: Approver = link.role === "akey" ? "akey" : "bkey";
    const state = req.state as AuditState;
    if (isFinalAuditState(state) || !awaits(state, by)) throw fail("REQUEST_DECIDED");
    const approvers = await approversOf(req.deviceId);
    let next: AuditState;
    if (input.result === "agree") {
      const hasBkey = approvers.some((a) => a.role === "bkey");
      const agreed = nextStateOnAgree(state, by, hasBkey);
      if (agreed === undefined) throw fail("REQUEST_DECIDED");
      next = agreed;
    } else {
      next = by === "akey" ? AUDIT_STATE.refusedByAkey : AUDIT_STATE.refusedByBkey;
    }
    const device = await requireDevice(req.deviceId);
    const deviceName = approvers.find((a) => a.role === "akey")?.name ?? device.code;
    const now = clock.now();
    await db.transaction(async (tx) => {
      const updated = await tx
        .update(accessRequests)
        .set({
          state: next,
          updatedAt: now,
          ...(input.visitTime !== undefined && { visitMinutes: input.visitTime }),
        })
        // Two approvers answering at once: the first one wins, the other sees "handled".
        .where(and(eq(accessRequests.id, req.id), eq(accessRequests.state, state)))
        .returning();
      if (updated.length === 0) throw fail("REQUEST_DECIDED");
      await tx.insert(accessRequestSteps).values({
        requestId: req.id,
        actorId: actor.userId,
        by,
        result: input.result,
        message: input.message,
        at: now,
      });
      if (next === AUDIT_STATE.allPassed) await applyApproval(tx, updated[0], deviceName);
      if (input.result === "blacklist")
        await membership.addToBlackList(tx, req.deviceId, req.requesterId, actor.userId);
      const params = { device: deviceName, kind, result: input.result };
      const success = kind === "visit" ? MESSAGE_TYPE.visitSuccess : MESSAGE_TYPE.bindSuccess;
      await messages.write(
        [
          {
            userId: req.requesterId,
            box: "inbox",
            type:
              next === AUDIT_STATE.allPassed
                ? success
                : by === "akey"
                  ? MESSAGE_TYPE.akeyReply
                  : MESSAGE_TYPE.bkeyReply,
            deviceId: req.deviceId,
            requestId: req.id,
            content: input.message,
            params,
          },
        ],
        tx,
      );
    });
    if (input.result === "blacklist") rightsChanged(req.deviceId, req.requesterId);
    await announceAudit(kind, device, [req.requesterId, ...approvers.map((a) => a.userId)], next);
    const view = (await describe([req.id], actor.userId)).get(req.id);
    if (!view) throw fail("REQUEST_NOT_FOUND");
    return view.view;
  }

  return { request, reply };
}
