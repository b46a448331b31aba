import {
  type EmailSendRecord,
  hwKeyOf,
  hwMessage,
  type Lang,
  maskPhone,
  type SmsSendRecord,
} from "@keyway/shared";
import { and, count, desc, eq, gte, lte, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { devices } from "../devices/schema.ts";
import { alarmSends } from "./schema.ts";
import { epoch } from "./wire.ts";

type Filter = {
  eid: number;
  startTime?: number;
  endTime?: number;
  machineId?: number;
  page: number;
  pageSize: number;
};
/** The billed account the records are read for: a context, and a member of it or all of them. */
type Owner = { eid: number; userId?: number };

/** The alarm SMS and e-mail records, as the billed account sees them. */
export function createSendRecords(db: Db) {
  async function records(channel: "sms" | "email", owner: Owner, q: Filter, lang: Lang) {
    const where: (SQL | undefined)[] = [
      eq(alarmSends.channel, channel),
      eq(alarmSends.accountEid, owner.eid),
      owner.userId !== undefined ? eq(alarmSends.accountUserId, owner.userId) : undefined,
      q.machineId ? eq(alarmSends.deviceId, q.machineId) : undefined,
      q.startTime !== undefined
        ? gte(alarmSends.createdAt, new Date(q.startTime * 1000))
        : undefined,
      q.endTime !== undefined ? lte(alarmSends.createdAt, new Date(q.endTime * 1000)) : undefined,
    ];
    const [rows, [{ n }]] = await Promise.all([
      db
        .select({ send: alarmSends, code: devices.code })
        .from(alarmSends)
        .leftJoin(devices, eq(devices.id, alarmSends.deviceId))
        .where(and(...where))
        .orderBy(desc(alarmSends.createdAt), desc(alarmSends.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db
        .select({ n: count() })
        .from(alarmSends)
        .where(and(...where)),
    ]);
    const reasonText = (code: string) => {
      const key = code ? hwKeyOf(code) : undefined;
      return key ? hwMessage(key, lang) : "";
    };
    return {
      rows: rows.map(({ send: s, code }) => ({
        id: s.id,
        alarmId: s.alarmId,
        machineId: s.deviceId,
        machineName: s.deviceName,
        machineCode: code ?? "",
        name: s.name,
        status: s.status,
        reason: s.reason,
        reasonText: reasonText(s.reason),
        eid: s.eid,
        createTime: epoch(s.createdAt),
        recipient: s.recipient,
        content: s.content,
        subject: s.subject,
        segments:
          s.status === "skipped" || s.status === "failed" || s.status === "pending"
            ? 0
            : s.segments,
      })),
      total: n,
    };
  }

  return {
    async smsRecords(owner: Owner, q: Filter, lang: Lang) {
      const r = await records("sms", owner, q, lang);
      return {
        list: r.rows.map(
          ({ recipient, subject: _s, ...rest }): SmsSendRecord => ({
            ...rest,
            phone: maskPhone(recipient.split(" ")[1] ?? recipient),
          }),
        ),
        total: r.total,
      };
    },
    async emailRecords(owner: Owner, q: Filter, lang: Lang) {
      const r = await records("email", owner, q, lang);
      return {
        list: r.rows.map(
          ({ recipient, content: _c, segments: _g, ...rest }): EmailSendRecord => ({
            ...rest,
            email: recipient,
          }),
        ),
        total: r.total,
      };
    },
  };
}
