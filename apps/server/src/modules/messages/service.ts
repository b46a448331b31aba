import { LOGOUT_REASON, type PushMessage } from "@keyway/protocol";
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
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { insertUnnest } from "../../db/unnest.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { TerminalsEnded } from "../accounts/service.ts";
import { devices } from "../devices/schema.ts";
import type { Permissions } from "../permissions/service.ts";
import { createAlarmInbox } from "./alarmInbox.ts";
import { type PushEvent, toPushMessage } from "./pushEvents.ts";
import { type MessageRow, messages } from "./schema.ts";

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
  /** Who takes a device's alarms (the permissions module). */
  permissions: Pick<Permissions, "audience">;
  /** Stored alarms and logins elsewhere become messages (subscribed here). */
  events: Pick<Events, "subscribe">;
  log: FastifyBaseLogger;
}) {
  const { db, clock } = deps;

  /** Writes messages inside the caller's transaction (or on their own). */
  async function write(items: NewMessage[], tx: Db = db): Promise<MessageRow[]> {
    const now = clock.now();
    return insertUnnest(
      tx,
      messages,
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
    );
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

  const alarmInbox = createAlarmInbox({ ...deps, write });
  deps.events.subscribe("alarm.stored", (alarm) =>
    alarmInbox.alarmRaised(alarm).catch((error) => {
      deps.log.error({ err: error, alarmId: alarm.id }, "alarm message not written");
    }),
  );
  deps.events.subscribe("terminals.ended", (ended) =>
    terminalsEnded(ended).catch((error) => {
      deps.log.error({ err: error }, "logout message not written");
    }),
  );

  return {
    catchUpAlarms: alarmInbox.catchUpAlarms,
    write,
    terminalsEnded,
    announce,
    totalUnread,
    page,
    detail,
    markRead,
    clear,
    requestOf,
    alarmRaised: alarmInbox.alarmRaised,
  };
}
