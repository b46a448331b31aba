import {
  type DeviceAudit,
  type DeviceInform,
  LOGOUT_REASON,
  PUSH_SCENES,
  type PushMessage,
} from "@keyway/protocol";
import {
  type AccessRequestView,
  type AuditState,
  type Lang,
  MESSAGE_TYPE,
  type MessageBox,
  type MessageType,
  type MessageView,
  messageTitle,
} from "@keyway/shared";
import { and, count, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import type { TerminalsEnded } from "../accounts/service.ts";
import { alarms } from "../alarms/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import { type MessageRow, messages } from "./schema.ts";

/** What a message centre change tells the user's open sockets (mapped to push scenes). */
export type PushEvent =
  | {
      kind: "audit";
      of: "visit" | "bind";
      deviceCode: string;
      deviceId: number;
      isResult: 0 | 1;
      auditState: number;
      totalUnreadMsg: number;
    }
  | {
      kind: "inform";
      of: "alarm" | "voice" | "projectAlarm";
      deviceCode: string;
      deviceId: number;
      totalUnreadMsg: number;
      /** The alarm itself, for the live pop-up (optional fields of DeviceInformResp). */
      alarmId?: number;
      level?: number;
      content?: string;
      deviceName?: string;
    };

const INFORM_SCENES = {
  alarm: PUSH_SCENES.deviceAlarm,
  voice: PUSH_SCENES.deviceVoice,
  projectAlarm: PUSH_SCENES.projectAlarm,
} as const;

/** The push channel frame (SPEC §4 scenes) of a message centre event. */
export function toPushMessage(event: PushEvent): PushMessage {
  const { kind: _kind, of, ...body } = event;
  if (event.kind === "audit") {
    const scene = of === "visit" ? PUSH_SCENES.deviceVisit : PUSH_SCENES.deviceBind;
    return { scene, body: body as DeviceAudit };
  }
  return { scene: INFORM_SCENES[event.of], body: body as DeviceInform };
}

export interface NewMessage {
  userId: number;
  box: MessageBox;
  type: MessageType;
  deviceId?: number | null;
  requestId?: number | null;
  alarmId?: number | null;
  content?: string;
  params?: Record<string, string | number>;
}

/** Access requests as the message centre shows them, from the access module. */
export type DescribeRequests = (
  requestIds: number[],
  viewerId: number,
) => Promise<Map<number, { view: AccessRequestView; canReply: boolean }>>;

export type MessageService = ReturnType<typeof createMessageService>;

/**
 * The message centre: inbox and outbox per user. A message is written (by the caller's
 * transaction) before anything is pushed; pushes carry the new unread total.
 */
export function createMessageService(deps: {
  db: Db;
  clock: Clock;
  push: (userId: number, message: PushMessage) => void;
  describeRequests: DescribeRequests;
}) {
  const { db, clock } = deps;

  /** Writes messages inside the caller's transaction (or on their own). */
  async function write(items: NewMessage[], tx: Db = db): Promise<MessageRow[]> {
    if (items.length === 0) return [];
    // A statement carries at most 65,535 parameters: long lists go in slices.
    if (items.length > 2000) {
      const rows: MessageRow[] = [];
      for (let i = 0; i < items.length; i += 2000)
        rows.push(...(await write(items.slice(i, i + 2000), tx)));
      return rows;
    }
    const now = clock.now();
    return tx
      .insert(messages)
      .values(
        items.map((m) => ({
          userId: m.userId,
          box: m.box,
          type: m.type,
          deviceId: m.deviceId ?? null,
          requestId: m.requestId ?? null,
          alarmId: m.alarmId ?? null,
          content: m.content ?? "",
          params: m.params ?? {},
          // What the user sent themselves is never "unread".
          readAt: m.box === "outbox" ? now : null,
          createdAt: now,
        })),
      )
      .returning();
  }

  /**
   * A login elsewhere stays in the inbox: one message per terminal kind (web, phone app, TV),
   * replaced by the next login of that kind — the latest address and time, unread again and
   * newest in the list — so that logins do not bury requests. One upsert on the unique
   * (user, replace key): two logins at once still leave one message, of the later time.
   */
  async function terminalsEnded(ended: TerminalsEnded): Promise<void> {
    if (ended.reason !== LOGOUT_REASON.loginElsewhere) return;
    const kind = ended.terminalType || "web";
    await db
      .insert(messages)
      .values({
        userId: ended.userId,
        box: "inbox",
        type: MESSAGE_TYPE.logout,
        content: ended.loginIp,
        params: { ip: ended.loginIp, terminal: kind },
        replaceKey: `logout:${kind}`,
        readAt: null,
        createdAt: clock.now(),
      })
      .onConflictDoUpdate({
        target: [messages.userId, messages.replaceKey],
        targetWhere: sql`${messages.replaceKey} is not null`,
        set: {
          content: sql`excluded.content`,
          params: sql`excluded.params`,
          readAt: null,
          createdAt: sql`excluded.created_at`,
        },
        setWhere: sql`${messages.createdAt} <= excluded.created_at`,
      });
  }

  async function totalUnread(userId: number): Promise<number> {
    const [{ n }] = await db
      .select({ n: count() })
      .from(messages)
      .where(and(eq(messages.userId, userId), eq(messages.box, "inbox"), isNull(messages.readAt)));
    return n;
  }

  /** Pushes an event to each user with their current unread total (after the write committed). */
  async function announce(
    userIds: Iterable<number>,
    event: (totalUnreadMsg: number, userId: number) => PushEvent,
  ): Promise<void> {
    for (const userId of new Set(userIds)) {
      deps.push(userId, toPushMessage(event(await totalUnread(userId), userId)));
    }
  }

  async function views(rows: MessageRow[], viewerId: number, lang: Lang): Promise<MessageView[]> {
    const requestIds = [...new Set(rows.map((r) => r.requestId).filter((id) => id !== null))];
    const requests = requestIds.length
      ? await deps.describeRequests(requestIds, viewerId)
      : new Map<number, { view: AccessRequestView; canReply: boolean }>();
    const deviceIds = [...new Set(rows.map((r) => r.deviceId).filter((id) => id !== null))];
    const codes = new Map(
      deviceIds.length
        ? (
            await db
              .select({ id: devices.id, code: devices.code })
              .from(devices)
              .where(inArray(devices.id, deviceIds))
          ).map((d) => [d.id, d.code])
        : [],
    );
    return rows.map((r) => {
      const request = r.requestId ? requests.get(r.requestId) : undefined;
      const auditState: AuditState | null = request ? request.view.auditState : null;
      return {
        id: r.id,
        type: r.type as MessageType,
        box: r.box,
        read: r.readAt !== null,
        title: messageTitle(r.type, r.params, lang),
        content: r.content,
        machine_id: r.deviceId,
        machine_code: r.deviceId ? (codes.get(r.deviceId) ?? "") : "",
        request: request?.view ?? null,
        canReply: r.box === "inbox" && (request?.canReply ?? false),
        alarm_id: r.alarmId,
        isResult: request?.view.isResult ?? 0,
        auditState,
        created_at: r.createdAt.toISOString(),
      };
    });
  }

  function ofUser(userId: number, box: MessageBox, extra: (SQL | undefined)[] = []) {
    return and(eq(messages.userId, userId), eq(messages.box, box), ...extra);
  }

  async function page(
    userId: number,
    lang: Lang,
    q: { box: MessageBox; type?: number; unread?: number; page: number; pageSize: number },
  ) {
    const where = ofUser(userId, q.box, [
      q.type !== undefined ? eq(messages.type, q.type) : undefined,
      q.unread === 1 ? isNull(messages.readAt) : undefined,
    ]);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(messages)
        .where(where)
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ total: count() }).from(messages).where(where),
    ]);
    return { list: await views(rows, userId, lang), total };
  }

  async function requireMessage(userId: number, id: number): Promise<MessageRow> {
    const [row] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.id, id), eq(messages.userId, userId)))
      .limit(1);
    // Another user's message and a missing one look the same.
    if (!row) throw fail("MESSAGE_NOT_FOUND");
    return row;
  }

  /** One message, marked read on the way. */
  async function detail(userId: number, id: number, lang: Lang): Promise<MessageView> {
    const row = await requireMessage(userId, id);
    if (!row.readAt) {
      row.readAt = clock.now();
      await db.update(messages).set({ readAt: row.readAt }).where(eq(messages.id, id));
    }
    const [view] = await views([row], userId, lang);
    return view;
  }

  async function markRead(userId: number, q: { id?: number; box: MessageBox }) {
    if (q.id !== undefined) await requireMessage(userId, q.id);
    await db
      .update(messages)
      .set({ readAt: clock.now() })
      .where(
        ofUser(userId, q.box, [
          isNull(messages.readAt),
          q.id !== undefined ? eq(messages.id, q.id) : undefined,
        ]),
      );
    return { totalUnreadMsg: await totalUnread(userId) };
  }

  async function clear(userId: number, q: { id?: number; box: MessageBox }) {
    if (q.id !== undefined) await requireMessage(userId, q.id);
    await db
      .delete(messages)
      .where(ofUser(userId, q.box, [q.id !== undefined ? eq(messages.id, q.id) : undefined]));
    return { totalUnreadMsg: await totalUnread(userId) };
  }

  /** The request a message of this user refers to (replies from the message centre). */
  async function requestOf(userId: number, id: number): Promise<number> {
    const row = await requireMessage(userId, id);
    if (!row.requestId) throw fail("REQUEST_NOT_FOUND");
    return row.requestId;
  }

  interface RaisedAlarm {
    id: number;
    deviceId: number;
    content: string;
    level?: number;
  }

  /** Unread inbox totals of several users in one query. */
  async function unreadTotals(userIds: number[]): Promise<Map<number, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await db
      .select({ userId: messages.userId, n: count() })
      .from(messages)
      .where(
        and(inArray(messages.userId, userIds), eq(messages.box, "inbox"), isNull(messages.readAt)),
      )
      .groupBy(messages.userId);
    return new Map(rows.map((r) => [r.userId, r.n]));
  }

  /**
   * Alarms the gateway stored become inbox messages for everyone on each device who takes
   * alarms: personal members whose alarm level is on (visitors start without) and the
   * enterprise members of its lists. A batch costs the same few queries as one alarm.
   */
  async function alarmsRaised(batch: RaisedAlarm[]): Promise<void> {
    if (batch.length === 0) return;
    const deviceIds = [...new Set(batch.map((a) => a.deviceId))];
    const [personal, enterprise, deviceRows] = await Promise.all([
      db
        .select({
          deviceId: deviceLinks.deviceId,
          userId: deviceLinks.userId,
          name: deviceLinks.name,
        })
        .from(deviceLinks)
        .where(and(inArray(deviceLinks.deviceId, deviceIds), eq(deviceLinks.receivesAlarms, true))),
      db
        .select({
          deviceId: enterpriseDevices.deviceId,
          userId: enterpriseMembers.userId,
          name: enterpriseDevices.name,
          type: enterpriseDevices.type,
          kind: enterpriseMembers.kind,
          isAdmin: enterpriseMembers.isAdmin,
        })
        .from(enterpriseDevices)
        .innerJoin(
          enterpriseMembers,
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
        )
        .where(inArray(enterpriseDevices.deviceId, deviceIds)),
      db
        .select({ id: devices.id, code: devices.code })
        .from(devices)
        .where(inArray(devices.id, deviceIds)),
    ]);
    const codes = new Map(deviceRows.map((d) => [d.id, d.code]));
    /** Per device: who is told, under the name they gave the device. */
    const recipients = new Map<number, Map<number, string>>();
    const namesOf = (deviceId: number) => {
      const names = recipients.get(deviceId) ?? new Map<number, string>();
      recipients.set(deviceId, names);
      return names;
    };
    for (const e of enterprise) {
      const sees = e.isAdmin || (e.type === 1 ? e.kind === "member" : e.kind === "maintenance");
      if (sees) namesOf(e.deviceId).set(e.userId, e.name);
    }
    for (const p of personal) namesOf(p.deviceId).set(p.userId, p.name);
    const told = await db.transaction(async (tx) => {
      // Claiming the alarms and writing their messages commit together: each is told once.
      const claimed = await tx
        .update(alarms)
        .set({ messagedAt: clock.now() })
        .where(
          and(
            inArray(
              alarms.id,
              batch.map((a) => a.id),
            ),
            isNull(alarms.messagedAt),
          ),
        )
        .returning({ id: alarms.id });
      const claimedIds = new Set(claimed.map((c) => c.id));
      const list = batch.filter((a) => claimedIds.has(a.id) && codes.has(a.deviceId));
      await write(
        list.flatMap((alarm) =>
          [...(recipients.get(alarm.deviceId) ?? [])].map(([userId, name]) => ({
            userId,
            box: "inbox" as const,
            type: MESSAGE_TYPE.alarm,
            deviceId: alarm.deviceId,
            alarmId: alarm.id,
            content: alarm.content,
            params: { device: name || (codes.get(alarm.deviceId) ?? "") },
          })),
        ),
        tx,
      );
      return list;
    });
    if (told.length === 0) return;
    const totals = await unreadTotals([
      ...new Set(told.flatMap((a) => [...(recipients.get(a.deviceId)?.keys() ?? [])])),
    ]);
    for (const alarm of told) {
      const deviceCode = codes.get(alarm.deviceId) ?? "";
      for (const [userId, name] of recipients.get(alarm.deviceId) ?? []) {
        deps.push(
          userId,
          toPushMessage({
            kind: "inform",
            of: "alarm",
            deviceCode,
            deviceId: alarm.deviceId,
            totalUnreadMsg: totals.get(userId) ?? 0,
            alarmId: alarm.id,
            level: alarm.level,
            content: alarm.content,
            deviceName: name || deviceCode,
          }),
        );
      }
    }
  }

  const alarmBatcher = createBatcher<RaisedAlarm, void>(async (batch) => {
    await alarmsRaised(batch);
    return batch.map(() => undefined);
  }, 100);

  /** One stored alarm; those arriving together are told in one batch. */
  function alarmRaised(alarm: RaisedAlarm): Promise<void> {
    return alarmBatcher.submit(alarm);
  }

  /** Alarms stored but not yet told (the process stopped in between): told now, oldest first. */
  async function catchUpAlarms(limit = 500): Promise<number> {
    const pending = await db
      .select({
        id: alarms.id,
        deviceId: alarms.deviceId,
        content: alarms.content,
        level: alarms.level,
      })
      .from(alarms)
      .where(isNull(alarms.messagedAt))
      .orderBy(alarms.id)
      .limit(limit);
    for (let i = 0; i < pending.length; i += 100) await alarmsRaised(pending.slice(i, i + 100));
    return pending.length;
  }

  return {
    catchUpAlarms,
    write,
    terminalsEnded,
    announce,
    totalUnread,
    page,
    detail,
    markRead,
    clear,
    requestOf,
    alarmRaised,
  };
}
