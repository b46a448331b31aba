import {
  type AccessKind,
  type AccessRequestView,
  type AdminEntry,
  AUDIT_STATE,
  type AuditState,
  type AuditStep,
  BIND_RETRY_MINUTES,
  type BlackListEntry,
  type ConnectRight,
  isFinalAuditState,
  LEVEL,
  MESSAGE_TYPE,
  maskPhone,
  type ReplyResult,
  type ScanCodeResult,
  type WhiteListEntry,
} from "@keyway/shared";
import { and, asc, count, desc, eq, gt, inArray, isNull, ne, or } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { verifyPassword } from "../../infra/crypto.ts";
import { terminals, users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { alarms } from "../alarms/schema.ts";
import { type Device, type DeviceLink, deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import type { MessageService, NewMessage } from "../messages/service.ts";
import {
  type AccessRequest,
  accessRequestSteps,
  accessRequests,
  blackList,
  type VisitGrant,
  visitGrants,
} from "./schema.ts";

const MINUTE_MS = 60_000;

/** Who is acting: the user and the terminal (its terminalUUID binds visit grants). */
export interface Actor {
  userId: number;
  terminalId: number;
}

type Approver = "akey" | "bkey";

function accountOf(u: { email: string | null; phone: string | null }) {
  return { phone: u.phone ? maskPhone(u.phone) : "", email: u.email ?? "" };
}

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
function awaits(state: number, by: Approver): boolean {
  if (state === AUDIT_STATE.pending) return true;
  return by === "akey"
    ? state === AUDIT_STATE.bkeyPassedWaitingAkey
    : state === AUDIT_STATE.akeyPassedWaitingBkey;
}

export type AccessService = ReturnType<typeof createAccessService>;

/**
 * The permission model of a device: visit and bind requests and their audit, the authority
 * lists (members, visit grants, black list), and the connect check every remote access
 * goes through (`rights`).
 */
export function createAccessService(deps: {
  db: Db;
  clock: Clock;
  messages: MessageService;
  findUser: (ref: AccountRef) => Promise<{ id: number } | undefined>;
  /** Told when a user's right on a device may have ended (remote access closes streams). */
  onRightsChanged?: (deviceId: number, userId?: number) => void;
}) {
  const { db, clock, messages } = deps;
  const rightsChanged = (deviceId: number, userId?: number) =>
    deps.onRightsChanged?.(deviceId, userId);

  async function requireDevice(deviceId: number): Promise<Device> {
    const [device] = await db.select().from(devices).where(eq(devices.id, deviceId)).limit(1);
    if (!device) throw fail("EDIT_MACHINE_NOT_FOUND");
    return device;
  }

  async function linkOf(userId: number, deviceId: number, tx: Db = db) {
    const [link] = await tx
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    return link as DeviceLink | undefined;
  }

  /** The caller's approver side on a device: its Akey or a Bkey; anyone else is refused. */
  async function requireApprover(userId: number, deviceId: number): Promise<DeviceLink> {
    const link = await linkOf(userId, deviceId);
    if (!link || (link.role !== "akey" && link.role !== "bkey")) throw fail("DEVICE_NO_PERMISSION");
    return link;
  }

  async function requireAkey(userId: number, deviceId: number): Promise<DeviceLink> {
    const link = await requireApprover(userId, deviceId);
    if (link.role !== "akey") throw fail("DEVICE_NO_PERMISSION");
    return link;
  }

  async function approversOf(deviceId: number, tx: Db = db) {
    return tx
      .select({ userId: deviceLinks.userId, role: deviceLinks.role, name: deviceLinks.name })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.deviceId, deviceId),
          or(eq(deviceLinks.role, "akey"), eq(deviceLinks.role, "bkey")),
        ),
      );
  }

  async function isBlacklisted(deviceId: number, userId: number): Promise<boolean> {
    const [row] = await db
      .select({ id: blackList.id })
      .from(blackList)
      .where(and(eq(blackList.deviceId, deviceId), eq(blackList.userId, userId)))
      .limit(1);
    return Boolean(row);
  }

  async function terminalOf(terminalId: number) {
    const [t] = await db
      .select({ uuid: terminals.uuid, name: terminals.name })
      .from(terminals)
      .where(eq(terminals.id, terminalId))
      .limit(1);
    return t ?? { uuid: "", name: "" };
  }

  const grantValid = (g: VisitGrant, now: Date) =>
    !g.clearedAt && (g.expiresAt === null || g.expiresAt > now);

  async function grantFor(deviceId: number, userId: number, terminalUuid: string) {
    const [grant] = await db
      .select()
      .from(visitGrants)
      .where(
        and(
          eq(visitGrants.deviceId, deviceId),
          eq(visitGrants.userId, userId),
          eq(visitGrants.terminalUuid, terminalUuid),
        ),
      )
      .limit(1);
    return grant as VisitGrant | undefined;
  }

  // ---- Requests ----

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

  async function userName(userId: number): Promise<string> {
    const [u] = await db
      .select({ name: users.name })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    return u?.name ?? "";
  }

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
        await addToBlackList(tx, req.deviceId, req.requesterId, actor.userId);
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

  /** Akey+password mode: checks a device password without asking anyone. */
  async function checkPassword(deviceId: number, password: string) {
    const device = await requireDevice(deviceId);
    if (!(await verifyPassword(device.passwordHash, password))) throw fail("VISIT_PASSWORD_ERROR");
    return { ok: true };
  }

  // ---- Connect check ----

  /**
   * Whether the user, on this terminal, may reach the device now (SPEC "Connect check"). The
   * one place the rights of remote access are computed.
   */
  async function rights(actor: Actor, deviceId: number): Promise<ConnectRight> {
    const device = await requireDevice(deviceId);
    if (await isBlacklisted(deviceId, actor.userId)) throw fail("REQUEST_BLACKLISTED");
    const link = await linkOf(actor.userId, deviceId);
    let right: ConnectRight | undefined;
    if (link && link.role !== "visitor") {
      right = {
        machine_id: deviceId,
        role: link.role,
        visitAlidTimeID: null,
        expires_at: null,
        write: link.role === "user" ? link.canWrite : true,
      };
    } else {
      const held = await db
        .select({
          type: enterpriseDevices.type,
          kind: enterpriseMembers.kind,
          isAdmin: enterpriseMembers.isAdmin,
        })
        .from(enterpriseDevices)
        .innerJoin(
          enterpriseMembers,
          and(
            eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
            eq(enterpriseMembers.userId, actor.userId),
          ),
        )
        .where(eq(enterpriseDevices.deviceId, deviceId));
      const seen = held.find(
        (h) =>
          h.isAdmin ||
          (h.type === 1 && h.kind === "member") ||
          (h.type === 2 && h.kind === "maintenance"),
      );
      if (seen) {
        right = {
          machine_id: deviceId,
          role: seen.type === 2 ? "maintainer" : "enterprise",
          visitAlidTimeID: null,
          expires_at: null,
          write: true,
        };
      } else if (link?.role === "visitor") {
        const terminal = await terminalOf(actor.terminalId);
        const grant = await grantFor(deviceId, actor.userId, terminal.uuid);
        if (!grant) throw fail("NOT_BOUND");
        if (!grantValid(grant, clock.now())) throw fail("VISIT_TIMEOUT");
        right = {
          machine_id: deviceId,
          role: "visitor",
          visitAlidTimeID: grant.id,
          expires_at: grant.expiresAt?.toISOString() ?? null,
          write: link.canWrite,
        };
      }
    }
    if (!right) throw fail("NOT_BOUND");
    if (!device.cloudService) throw fail("CLOUD_CLOSED");
    return right;
  }

  async function scanCode(userId: number, code: string): Promise<ScanCodeResult> {
    const [device] = await db
      .select()
      .from(devices)
      .where(eq(devices.code, code.trim().toUpperCase()))
      .limit(1);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const link = await linkOf(userId, device.id);
    const [akey] = await db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.deviceId, device.id), eq(deviceLinks.role, "akey")))
      .limit(1);
    return {
      machine_id: device.id,
      machine_code: device.code,
      role: link?.role ?? "none",
      blacklisted: await isBlacklisted(device.id, userId),
      has_akey: Boolean(akey),
      check_type: device.checkType === 1 ? 1 : 0,
      cloud_service: device.cloudService ? 1 : 0,
    };
  }

  // ---- Authority ----

  async function members(actor: Actor, deviceId: number): Promise<AdminEntry[]> {
    await requireApprover(actor.userId, deviceId);
    const rows = await db
      .select({ link: deviceLinks, name: users.name, phone: users.phone, email: users.email })
      .from(deviceLinks)
      .innerJoin(users, eq(users.id, deviceLinks.userId))
      .where(eq(deviceLinks.deviceId, deviceId))
      .orderBy(asc(deviceLinks.id));
    const order = { akey: 0, bkey: 1, user: 2, visitor: 3 };
    return rows
      .sort((a, b) => order[a.link.role] - order[b.link.role])
      .map((r) => ({
        id: r.link.id,
        user_id: r.link.userId,
        name: r.name,
        ...accountOf(r),
        limit_authority: r.link.role === "akey" ? 3 : 2,
        role: r.link.role,
        machine_id: deviceId,
        write: r.link.role === "user" || r.link.role === "visitor" ? (r.link.canWrite ? 1 : 0) : 1,
        alarm: r.link.receivesAlarms ? 1 : 0,
      }));
  }

  function whiteListEntry(
    r: { grant: VisitGrant; name: string; phone: string | null; email: string | null },
    now: Date,
  ): WhiteListEntry {
    const g = r.grant;
    const left = g.expiresAt ? Math.ceil((g.expiresAt.getTime() - now.getTime()) / MINUTE_MS) : -1;
    return {
      visitTimeId: g.id,
      user_id: g.userId,
      name: r.name,
      ...accountOf(r),
      terminal_name: g.terminalName,
      visitTime: grantValid(g, now) ? left : 0,
      expires_at: g.expiresAt?.toISOString() ?? null,
      created_at: g.createdAt.toISOString(),
    };
  }

  const grantColumns = {
    grant: visitGrants,
    name: users.name,
    phone: users.phone,
    email: users.email,
  };

  /** Valid visit times (infoType 3): grants that let someone in now. */
  async function validVisits(actor: Actor, deviceId: number, start: number, size: number) {
    await requireApprover(actor.userId, deviceId);
    const now = clock.now();
    const rows = await db
      .select(grantColumns)
      .from(visitGrants)
      .innerJoin(users, eq(users.id, visitGrants.userId))
      .where(eq(visitGrants.deviceId, deviceId))
      .orderBy(desc(visitGrants.id));
    const valid = rows.filter((r) => grantValid(r.grant, now));
    return {
      list: valid.slice(start, start + size).map((r) => whiteListEntry(r, now)),
      total: valid.length,
    };
  }

  /** The white list: every visit grant of the device, newest first (visit detail page). */
  async function whiteList(actor: Actor, deviceId: number, page: number, pageSize: number) {
    await requireApprover(actor.userId, deviceId);
    const now = clock.now();
    const where = eq(visitGrants.deviceId, deviceId);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select(grantColumns)
        .from(visitGrants)
        .innerJoin(users, eq(users.id, visitGrants.userId))
        .where(where)
        .orderBy(desc(visitGrants.createdAt), desc(visitGrants.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db.select({ total: count() }).from(visitGrants).where(where),
    ]);
    return { list: rows.map((r) => whiteListEntry(r, now)), total };
  }

  async function blackListOf(actor: Actor, deviceId: number, start: number, size: number) {
    await requireApprover(actor.userId, deviceId);
    const where = eq(blackList.deviceId, deviceId);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({ entry: blackList, name: users.name, phone: users.phone, email: users.email })
        .from(blackList)
        .innerJoin(users, eq(users.id, blackList.userId))
        .where(where)
        .orderBy(desc(blackList.id))
        .limit(size)
        .offset(start),
      db.select({ total: count() }).from(blackList).where(where),
    ]);
    const list: BlackListEntry[] = rows.map((r) => ({
      id: r.entry.id,
      user_id: r.entry.userId,
      name: r.name,
      ...accountOf(r),
      created_at: r.entry.createdAt.toISOString(),
    }));
    return { list, total };
  }

  /** Removes a user's identity and visit grants on a device (not the Akey's). */
  async function removeUser(tx: Db, deviceId: number, userId: number) {
    await tx
      .delete(deviceLinks)
      .where(
        and(
          eq(deviceLinks.deviceId, deviceId),
          eq(deviceLinks.userId, userId),
          ne(deviceLinks.role, "akey"),
        ),
      );
    await tx
      .delete(visitGrants)
      .where(and(eq(visitGrants.deviceId, deviceId), eq(visitGrants.userId, userId)));
  }

  async function addToBlackList(tx: Db, deviceId: number, userId: number, by: number) {
    await removeUser(tx, deviceId, userId);
    await tx
      .insert(blackList)
      .values({ deviceId, userId, addedBy: by, createdAt: clock.now() })
      .onConflictDoNothing();
    // Pending requests of a black-listed user are refused on the spot.
    await tx
      .update(accessRequests)
      .set({ state: AUDIT_STATE.refusedByBkey, updatedAt: clock.now() })
      .where(
        and(
          eq(accessRequests.deviceId, deviceId),
          eq(accessRequests.requesterId, userId),
          inArray(accessRequests.state, [
            AUDIT_STATE.pending,
            AUDIT_STATE.akeyPassedWaitingBkey,
            AUDIT_STATE.bkeyPassedWaitingAkey,
          ]),
        ),
      );
  }

  /**
   * Whether the actor may change the target's identity: the Akey never; a Bkey only
   * ordinary users and visitors; the Akey anyone else.
   */
  function mayManage(actorLink: DeviceLink, target: DeviceLink | undefined) {
    if (target?.role === "akey") throw fail("AKEY_UNCHANGEABLE");
    if (actorLink.role === "bkey" && target?.role === "bkey" && target.userId !== actorLink.userId)
      throw fail("DEVICE_NO_PERMISSION");
  }

  async function memberById(deviceId: number, id: number) {
    const [target] = await db
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.id, id), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    if (!target) throw fail("MEMBER_NOT_FOUND");
    return target as DeviceLink;
  }

  async function blacklistAdd(actor: Actor, deviceId: number, userId: number) {
    const own = await requireApprover(actor.userId, deviceId);
    if (userId === actor.userId) throw fail("DEVICE_NO_PERMISSION");
    const target = await linkOf(userId, deviceId);
    mayManage(own, target);
    const [exists] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
    if (!exists) throw fail("MEMBER_NOT_FOUND");
    await db.transaction((tx) => addToBlackList(tx, deviceId, userId, actor.userId));
    rightsChanged(deviceId, userId);
  }

  async function blacklistRemove(actor: Actor, deviceId: number, userId: number) {
    await requireApprover(actor.userId, deviceId);
    const removed = await db
      .delete(blackList)
      .where(and(eq(blackList.deviceId, deviceId), eq(blackList.userId, userId)))
      .returning({ id: blackList.id });
    if (removed.length === 0) throw fail("MEMBER_NOT_FOUND");
  }

  async function removeMember(actor: Actor, deviceId: number, id: number) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await memberById(deviceId, id);
    mayManage(own, target);
    await db.transaction((tx) => removeUser(tx, deviceId, target.userId));
    rightsChanged(deviceId, target.userId);
  }

  /** Adds a Bkey by account (SPEC admin/push): 01010304 no such account, 01010305 already Bkey. */
  async function addBkey(actor: Actor, deviceId: number, ref: AccountRef) {
    await requireApprover(actor.userId, deviceId);
    const user = await deps.findUser(ref);
    if (!user) throw fail("BKEY_ACCOUNT_NOT_FOUND");
    const target = await linkOf(user.id, deviceId);
    if (target?.role === "akey" || target?.role === "bkey") throw fail("BKEY_EXISTS");
    const device = await requireDevice(deviceId);
    const [akey] = await approversOf(deviceId).then((a) => a.filter((x) => x.role === "akey"));
    const deviceName = akey?.name ?? device.code;
    await db.transaction(async (tx) => {
      // An explicit appointment lifts an earlier black-listing.
      await tx
        .delete(blackList)
        .where(and(eq(blackList.deviceId, deviceId), eq(blackList.userId, user.id)));
      if (target)
        await tx
          .update(deviceLinks)
          .set({ role: "bkey", canWrite: true })
          .where(eq(deviceLinks.id, target.id));
      else
        await tx.insert(deviceLinks).values({
          deviceId,
          userId: user.id,
          role: "bkey",
          name: deviceName,
          createdAt: clock.now(),
        });
      await messages.write(
        [
          {
            userId: user.id,
            box: "inbox",
            type: MESSAGE_TYPE.bindSuccess,
            deviceId,
            params: { device: deviceName },
          },
        ],
        tx,
      );
    });
    await announceAudit("bind", device, [user.id], AUDIT_STATE.allPassed);
    return members(actor, deviceId);
  }

  /** SPEC updateLevel: white-list visitor or ordinary user → Bkey (2); Bkey or visitor → ordinary user (1). */
  async function updateLevel(actor: Actor, deviceId: number, id: number, limit: number) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await memberById(deviceId, id);
    mayManage(own, target);
    const role = limit === LEVEL.bkey ? "bkey" : "user";
    await db
      .update(deviceLinks)
      .set({ role, ...(role === "bkey" && { canWrite: true }) })
      .where(eq(deviceLinks.id, target.id));
    rightsChanged(deviceId, target.userId);
    return members(actor, deviceId);
  }

  async function requireGrant(deviceId: number, visitTimeId: number) {
    const [grant] = await db
      .select()
      .from(visitGrants)
      .where(and(eq(visitGrants.id, visitTimeId), eq(visitGrants.deviceId, deviceId)))
      .limit(1);
    if (!grant) throw fail("VISIT_TIME_GONE");
    return grant as VisitGrant;
  }

  /** Clears a visit time (SPEC zeroVisitTime): 01010408 when it already ended or the terminal is gone. */
  async function clearVisitTime(actor: Actor, deviceId: number, visitTimeId: number) {
    await requireApprover(actor.userId, deviceId);
    const grant = await requireGrant(deviceId, visitTimeId);
    const [terminal] = await db
      .select({ id: terminals.id })
      .from(terminals)
      .where(
        and(
          eq(terminals.userId, grant.userId),
          eq(terminals.uuid, grant.terminalUuid),
          gt(terminals.expiresAt, clock.now()),
        ),
      )
      .limit(1);
    if (!grantValid(grant, clock.now()) || !terminal) throw fail("VISIT_TIME_GONE");
    await db
      .update(visitGrants)
      .set({ clearedAt: clock.now() })
      .where(eq(visitGrants.id, grant.id));
    rightsChanged(deviceId, grant.userId);
  }

  /** Sets a visit time: -1 forever, or at least 10 minutes from now. */
  async function setVisitTime(
    actor: Actor,
    deviceId: number,
    visitTimeId: number,
    minutes: number,
  ) {
    await requireApprover(actor.userId, deviceId);
    const grant = await requireGrant(deviceId, visitTimeId);
    const expiresAt = minutes === -1 ? null : new Date(clock.now().getTime() + minutes * MINUTE_MS);
    await db
      .update(visitGrants)
      .set({ expiresAt, clearedAt: null })
      .where(eq(visitGrants.id, grant.id));
    rightsChanged(deviceId, grant.userId);
  }

  /** Member levels (SPEC §6): read-only or read and write; alarm or no alarm. */
  async function setLevel(
    actor: Actor,
    deviceId: number,
    userId: number,
    level: { write?: boolean; alarm?: boolean },
  ) {
    const own = await requireApprover(actor.userId, deviceId);
    const target = await linkOf(userId, deviceId);
    if (!target) throw fail("MEMBER_NOT_FOUND");
    // Anyone else's levels follow who may change whom (a Bkey silenced the Akey's or another
    // Bkey's alarms before); an approver's own alarm switch is theirs.
    const ownAlarm = level.write === undefined && target.userId === actor.userId;
    if (!ownAlarm) mayManage(own, target);
    await db
      .update(deviceLinks)
      .set({
        ...(level.write !== undefined && { canWrite: level.write }),
        ...(level.alarm !== undefined && { receivesAlarms: level.alarm }),
      })
      .where(eq(deviceLinks.id, target.id));
    if (level.write !== undefined) rightsChanged(deviceId, userId);
  }

  /** Audit mode (SPEC cloudSet/updateMachineInfo): only the Akey; password mode needs the password. */
  async function updateDeviceInfo(
    actor: Actor,
    input: { code: string; name?: string; checkType: number; password?: string },
  ) {
    const [device] = await db
      .select()
      .from(devices)
      .where(eq(devices.code, input.code.trim().toUpperCase()))
      .limit(1);
    if (!device) throw fail("EDIT_MACHINE_NOT_FOUND");
    const own = await requireAkey(actor.userId, device.id);
    if (input.checkType === 1 && device.checkType !== 1) {
      if (!input.password || !(await verifyPassword(device.passwordHash, input.password)))
        throw fail("DEVICE_PASSWORD_ERROR");
    }
    await db.transaction(async (tx) => {
      await tx.update(devices).set({ checkType: input.checkType }).where(eq(devices.id, device.id));
      if (input.name)
        await tx.update(deviceLinks).set({ name: input.name }).where(eq(deviceLinks.id, own.id));
    });
    return { machine_id: device.id, check_type: input.checkType };
  }

  /** The Akey hands the device over; the old Akey stays on as a Bkey. */
  async function transfer(actor: Actor, deviceId: number, ref: AccountRef) {
    const own = await requireAkey(actor.userId, deviceId);
    const user = await deps.findUser(ref);
    if (!user) throw fail("BKEY_ACCOUNT_NOT_FOUND");
    if (user.id === actor.userId || (await isBlacklisted(deviceId, user.id)))
      throw fail("TRANSFER_TARGET_INVALID");
    const target = await linkOf(user.id, deviceId);
    await db.transaction(async (tx) => {
      await tx.update(deviceLinks).set({ role: "bkey" }).where(eq(deviceLinks.id, own.id));
      if (target)
        await tx
          .update(deviceLinks)
          .set({ role: "akey", canWrite: true, receivesAlarms: true })
          .where(eq(deviceLinks.id, target.id));
      else
        await tx.insert(deviceLinks).values({
          deviceId,
          userId: user.id,
          role: "akey",
          name: own.name,
          createdAt: clock.now(),
        });
    });
    rightsChanged(deviceId);
    return { machine_id: deviceId };
  }

  /**
   * One-click confirmation of a device's alarms: only its Akey (personal context) or a
   * maintainer of an enterprise that maintains it (SPEC §6).
   */
  async function confirmAllAlarms(actor: Actor, deviceId: number) {
    await requireDevice(deviceId);
    if (!(await mayConfirmAllAlarms(actor.userId, deviceId))) throw fail("DEVICE_NO_PERMISSION");
    const confirmed = await db
      .update(alarms)
      .set({ confirmedAt: clock.now(), confirmedBy: actor.userId })
      .where(and(eq(alarms.deviceId, deviceId), isNull(alarms.confirmedAt)))
      .returning({ id: alarms.id });
    return { confirmed: confirmed.length };
  }

  /** The rule of confirmAllAlarms, for the alarm centre to offer the button. */
  async function mayConfirmAllAlarms(userId: number, deviceId: number): Promise<boolean> {
    const link = await linkOf(userId, deviceId);
    if (link?.role === "akey") return true;
    const [maintainer] = await db
      .select({ id: enterpriseMembers.userId })
      .from(enterpriseDevices)
      .innerJoin(
        enterpriseMembers,
        and(
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
          eq(enterpriseMembers.userId, userId),
          eq(enterpriseMembers.kind, "maintenance"),
        ),
      )
      .where(and(eq(enterpriseDevices.deviceId, deviceId), eq(enterpriseDevices.type, 2)))
      .limit(1);
    return Boolean(maintainer);
  }

  return {
    request,
    reply,
    describe,
    auditProcess,
    checkPassword,
    rights,
    scanCode,
    members,
    validVisits,
    whiteList,
    blackList: blackListOf,
    blacklistAdd,
    blacklistRemove,
    removeMember,
    addBkey,
    updateLevel,
    clearVisitTime,
    setVisitTime,
    setLevel,
    updateDeviceInfo,
    transfer,
    confirmAllAlarms,
    mayConfirmAllAlarms,
  };
}
