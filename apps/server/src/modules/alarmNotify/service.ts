import { randomUUID } from "node:crypto";
import {
  brandById,
  DEFAULT_BRAND,
  type EmailSendRecord,
  HW,
  type HwKey,
  hwKeyOf,
  hwMessage,
  type Lang,
  maskPhone,
  SMS_PUSH_DEFAULTS,
  type SmsSendRecord,
  smsSegments,
} from "@keyway/shared";
import {
  and,
  count,
  desc,
  eq,
  gte,
  inArray,
  isNull,
  lt,
  lte,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import PgBoss from "pg-boss";
import type { Db } from "../../db/client.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, signedText } from "../../infra/crypto.ts";
import type { Senders } from "../../infra/senders.ts";
import { users } from "../accounts/schema.ts";
import {
  alarmContacts,
  deviceSmsSwitches,
  entMsgConfigs,
  userMsgConfigs,
} from "../alarmPush/schema.ts";
import type { AlarmPushService } from "../alarmPush/service.ts";
import { dayOf } from "../alarmPush/service.ts";
import { type Alarm, alarms } from "../alarms/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import type { Notifier } from "../notify/service.ts";
import { SmsNotSent, type SmsProvider } from "./providers.ts";
import { type AlarmSend, alarmDispatches, alarmSends, smsDailyCounters } from "./schema.ts";

export type AlarmNotifier = ReturnType<typeof createAlarmNotifier>;

const QUEUE = "alarm-send";
/** Jobs fetched at once, and delivered side by side within a fetch. */
const JOB_BATCH = 50;
const JOB_CONCURRENCY = 8;
/** A send left in "sending" this long is looked at again (its worker is presumed dead). */
export const SENDING_LEASE_MS = 2 * 60_000;
/** Tries of one send before it is marked failed. */
const MAX_ATTEMPTS = 6;
/** Alarms older than this are not caught up after a stop (an SMS that late helps nobody). */
const CATCH_UP_MS = 24 * 60 * 60_000;

/** Thrown by the test hook: the worker "dies" between the provider call and the commit. */
export class SimulatedCrash extends Error {}

type NewSend = typeof alarmSends.$inferInsert;

const LEVEL_TEXT: Record<string, { zh: string; en: string }> = {
  info: { zh: "提示", en: "info" },
  minor: { zh: "次要", en: "minor" },
  major: { zh: "重要", en: "major" },
  critical: { zh: "紧急", en: "critical" },
};
const levelBand = (level: number) =>
  level <= 0 ? "info" : level === 1 ? "minor" : level === 2 ? "major" : "critical";

/** "YYYY-MM-DD HH:mm:ss" in the alarm's time zone when it is a known one, UTC otherwise. */
function formatTime(at: Date, timeZone: string): string {
  const fmt = (tz: string) =>
    new Intl.DateTimeFormat("sv-SE", {
      timeZone: tz,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hour12: false,
    }).format(at);
  try {
    return `${fmt(timeZone)} ${timeZone}`;
  } catch {
    return `${fmt("UTC")} UTC`;
  }
}

export interface AlarmText {
  device: string;
  level: number;
  content: string;
  time: string;
}

/** The SMS text in the reader's language (billed by its length, SPEC §5). */
export function alarmSmsText(brandId: string | null, lang: Lang, a: AlarmText): string {
  const b = brandById(brandId) ?? DEFAULT_BRAND;
  const level = LEVEL_TEXT[levelBand(a.level)];
  return lang === "en"
    ? `[${b.en.name}] Alarm on ${a.device} (${level.en}): ${a.content} ${a.time}`
    : `【${b.zh.name}】${a.device} 报警（${level.zh}）：${a.content} ${a.time}`;
}

/** The e-mail: the brand's name in the subject, zh and en in one text. */
export function alarmEmail(brandId: string | null, a: AlarmText) {
  const b = brandById(brandId) ?? DEFAULT_BRAND;
  const level = LEVEL_TEXT[levelBand(a.level)];
  const subject = `【${b.zh.name}】设备报警 ${a.device} / [${b.en.name}] Device alarm: ${a.device}`;
  const text = [
    `${b.zh.name} 设备报警`,
    `设备：${a.device}`,
    `级别：${level.zh}（${a.level}）`,
    `内容：${a.content}`,
    `时间：${a.time}`,
    "",
    `${b.en.name} device alarm`,
    `Device: ${a.device}`,
    `Level: ${level.en} (${a.level})`,
    `Content: ${a.content}`,
    `Time: ${a.time}`,
    "",
    b.website,
  ].join("\n");
  return { subject, text };
}

/**
 * PostgreSQL (pg.Pool) or PGlite behind drizzle, as pg-boss's `db`: both take
 * `(text, values)`; PGlite runs multi-statement texts with exec.
 */
function bossDb(db: Db) {
  const client = (db as unknown as { $client: unknown }).$client as {
    query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }>;
    exec?(text: string): Promise<{ rows: unknown[]; affectedRows?: number }[]>;
    waitReady?: Promise<void>;
  };
  const isPglite = typeof client.exec === "function" && "waitReady" in client;
  let detached = false;
  return {
    /**
     * After pg-boss was stopped: a job still finishing (past the stop's timeout) must not
     * reach a pool the app is closing, which would fail outside any handler and end the
     * process. Its job stays active in the table and comes back on expiry; the send row
     * keeps a second delivery from sending twice.
     */
    detach() {
      detached = true;
    },
    async executeSql(text: string, values?: unknown[]) {
      if (detached) return { rows: [], rowCount: 0 };
      if (isPglite && (!values || values.length === 0)) {
        const results = await client.exec!(text);
        const last = results.at(-1) ?? { rows: [] };
        return { rows: last.rows, rowCount: last.affectedRows ?? last.rows.length };
      }
      const result = await client.query(text, values);
      return {
        ...result,
        rowCount: (result as { rowCount?: number }).rowCount ?? result.affectedRows,
      };
    },
  };
}

/**
 * Alarm notifications: an alarm the gateway stored is dispatched once (alarm_dispatches)
 * into send rows (SMS, e-mail, webhook), each delivered by a pg-boss job. The send row's
 * status makes a retried job safe: see docs/decisions.md.
 */
export function createAlarmNotifier(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  senders: Senders;
  notifier: Notifier;
  sms: SmsProvider;
  push: AlarmPushService;
  secretKey: string;
  /** Test hook: runs after the provider took a message, before the commit. */
  afterProviderCall?: (send: AlarmSend) => void;
  /** pg-boss polling (seconds); tests use the minimum. */
  pollSeconds?: number;
}) {
  const { db, clock, log, push } = deps;
  let boss: PgBoss | null = null;
  let workerId: string | null = null;
  let bossConnection: ReturnType<typeof bossDb> | null = null;
  let sweepTimer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<unknown>>();

  // ---- Dispatch: who gets what ----

  /**
   * What planning the alarms of these devices reads: the devices, who receives their alarms
   * (personal links, enterprise lists and members), those users' and enterprises' settings,
   * the SMS switches and the contacts. Read once for a whole batch of alarms.
   */
  async function recipientsOf(deviceIds: number[]) {
    const ids = [...new Set(deviceIds)];
    const [deviceRows, personal, enterprise, switches] = await Promise.all([
      db.select().from(devices).where(inArray(devices.id, ids)),
      db
        .select({
          deviceId: deviceLinks.deviceId,
          userId: deviceLinks.userId,
          name: deviceLinks.name,
        })
        .from(deviceLinks)
        .where(and(inArray(deviceLinks.deviceId, ids), eq(deviceLinks.receivesAlarms, true)))
        .orderBy(deviceLinks.id),
      db
        .select({
          deviceId: enterpriseDevices.deviceId,
          eid: enterpriseDevices.enterpriseId,
          name: enterpriseDevices.name,
          type: enterpriseDevices.type,
          userId: enterpriseMembers.userId,
          kind: enterpriseMembers.kind,
          isAdmin: enterpriseMembers.isAdmin,
        })
        .from(enterpriseDevices)
        .innerJoin(
          enterpriseMembers,
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
        )
        .where(inArray(enterpriseDevices.deviceId, ids))
        .orderBy(enterpriseDevices.enterpriseId, enterpriseMembers.userId),
      db.select().from(deviceSmsSwitches).where(inArray(deviceSmsSwitches.deviceId, ids)),
    ]);
    const entMembers = enterprise.filter(
      (e) => e.isAdmin || (e.type === 1 ? e.kind === "member" : e.kind === "maintenance"),
    );
    const eids = [...new Set(enterprise.map((e) => e.eid))];
    const userIds = [...new Set([...personal, ...entMembers].map((p) => p.userId))];
    const [userRows, userCfgs, entCfgs, contacts] = await Promise.all([
      userIds.length ? db.select().from(users).where(inArray(users.id, userIds)) : [],
      userIds.length
        ? db.select().from(userMsgConfigs).where(inArray(userMsgConfigs.userId, userIds))
        : [],
      eids.length ? db.select().from(entMsgConfigs).where(inArray(entMsgConfigs.eid, eids)) : [],
      userIds.length || eids.length
        ? db
            .select()
            .from(alarmContacts)
            .where(
              or(
                userIds.length
                  ? and(eq(alarmContacts.eid, 0), inArray(alarmContacts.userId, userIds))
                  : sql`false`,
                eids.length
                  ? and(inArray(alarmContacts.eid, eids), eq(alarmContacts.userId, 0))
                  : sql`false`,
              ),
            )
            .orderBy(alarmContacts.id)
        : [],
    ]);
    return {
      deviceRows,
      personal,
      enterprise,
      entMembers,
      switches,
      userRows,
      userCfgs,
      entCfgs,
      contacts,
    };
  }
  type Recipients = Awaited<ReturnType<typeof recipientsOf>>;

  /** The sends one alarm makes. */
  async function plan(alarm: Alarm): Promise<NewSend[]> {
    return planWith(alarm, await recipientsOf([alarm.deviceId]));
  }

  function planWith(alarm: Alarm, all: Recipients): NewSend[] {
    const now = clock.now();
    const device = all.deviceRows.find((d) => d.id === alarm.deviceId);
    if (!device) return [];
    const ofDevice = <T extends { deviceId: number }>(rows: T[]) =>
      rows.filter((r) => r.deviceId === alarm.deviceId);
    const personal = ofDevice(all.personal);
    const enterprise = ofDevice(all.enterprise);
    const entMembers = ofDevice(all.entMembers);
    const switches = ofDevice(all.switches);
    const { userRows, userCfgs, entCfgs, contacts } = all;
    const eids = [...new Set(enterprise.map((e) => e.eid))];
    const userOf = new Map(userRows.map((u) => [u.id, u]));
    const userCfg = (userId: number, eid: number) => {
      const c = userCfgs.find((r) => r.userId === userId && r.eid === eid);
      return {
        sms: c?.smsFlag ?? true,
        email: c?.emailFlag ?? true,
        phoneCap: c?.userSmsDaily ?? SMS_PUSH_DEFAULTS.perPhoneDaily,
        deviceCap: c?.machineSmsDaily ?? SMS_PUSH_DEFAULTS.perDeviceDaily,
      };
    };
    const entCfg = (eid: number) => {
      const c = entCfgs.find((r) => r.eid === eid);
      return {
        sms: c?.smsFlag ?? true,
        email: c?.emailFlag ?? true,
        phoneCap: c?.smsDaily ?? SMS_PUSH_DEFAULTS.perPhoneDaily,
        deviceCap: c?.smsMachineDaily ?? SMS_PUSH_DEFAULTS.perDeviceDaily,
        webhookUrl: c?.webhookUrl ?? "",
        webhookSecret: c?.webhookSecret ?? null,
      };
    };
    const switchOn = (eid: number, userId: number) =>
      switches.find((s) => s.eid === eid && s.userId === userId)?.smsFlag ?? true;

    const sends: NewSend[] = [];
    const seen = new Set<string>();
    const time = formatTime(alarm.time, alarm.timeZone);
    const add = (
      s: Omit<NewSend, "alarmId" | "deviceId" | "idempotencyKey" | "createdAt" | "updatedAt">,
    ) => {
      const id = `${s.channel}|${s.recipient}`;
      if (seen.has(id)) return;
      seen.add(id);
      sends.push({
        ...s,
        alarmId: alarm.id,
        deviceId: alarm.deviceId,
        idempotencyKey: randomUUID(),
        createdAt: now,
        updatedAt: now,
      });
    };
    const text = (deviceName: string) => ({
      device: deviceName || device.code,
      level: alarm.level,
      content: alarm.content,
      time,
    });
    type Owner = { eid: number; userId: number; brandId: string | null; lang: Lang };
    const smsTo = (
      owner: Owner,
      who: { name: string; countryCode: string; phone: string; contactId?: number },
      deviceName: string,
      caps: { phoneCap: number; deviceCap: number; deviceKey: string },
    ) => {
      const content = alarmSmsText(owner.brandId, owner.lang, text(deviceName));
      add({
        channel: "sms",
        eid: owner.eid,
        userId: who.contactId ? 0 : owner.userId,
        contactId: who.contactId ?? null,
        name: who.name,
        deviceName,
        recipient: `+${who.countryCode} ${who.phone}`,
        content,
        segments: smsSegments(content),
        accountEid: owner.eid,
        accountUserId: owner.userId,
        phoneCap: caps.phoneCap,
        deviceCap: caps.deviceCap,
        deviceCapKey: caps.deviceKey,
      });
    };
    const mailTo = (
      owner: Owner,
      who: { name: string; email: string; contactId?: number },
      deviceName: string,
    ) => {
      const mail = alarmEmail(owner.brandId, text(deviceName));
      add({
        channel: "email",
        eid: owner.eid,
        userId: who.contactId ? 0 : owner.userId,
        contactId: who.contactId ?? null,
        name: who.name,
        deviceName,
        recipient: who.email.toLowerCase(),
        subject: mail.subject,
        content: mail.text,
        accountEid: owner.eid,
        accountUserId: owner.userId,
      });
    };
    const contactsOf = (eid: number, userId: number) =>
      contacts.filter((c) => c.eid === eid && c.userId === userId);

    // Personal members (alarm level on): their switches, caps, stock and contacts.
    for (const p of personal) {
      const u = userOf.get(p.userId);
      if (!u) continue;
      const cfg = userCfg(u.id, 0);
      const owner: Owner = {
        eid: 0,
        userId: u.id,
        brandId: u.oemId,
        lang: u.language === "en" ? "en" : "cn",
      };
      const caps = {
        phoneCap: cfg.phoneCap,
        deviceCap: cfg.deviceCap,
        deviceKey: `d:0:${u.id}:${alarm.deviceId}`,
      };
      const smsOn = cfg.sms && switchOn(0, u.id);
      if (smsOn && u.phone)
        smsTo(owner, { name: u.name, countryCode: u.countryCode, phone: u.phone }, p.name, caps);
      if (cfg.email && u.email) mailTo(owner, { name: u.name, email: u.email }, p.name);
      for (const c of contactsOf(0, u.id)) {
        if (c.kind === "phone" && smsOn)
          smsTo(
            owner,
            { name: c.name, countryCode: c.countryCode, phone: c.phone, contactId: c.id },
            p.name,
            caps,
          );
        if (c.kind === "email" && cfg.email)
          mailTo(owner, { name: c.name, email: c.email, contactId: c.id }, p.name);
      }
    }
    // Enterprise members of the device's lists, the enterprise's contacts and webhook.
    for (const eid of eids) {
      const ent = entCfg(eid);
      const entSwitch = switchOn(eid, 0);
      const deviceName = enterprise.find((e) => e.eid === eid)?.name ?? device.code;
      const deviceKey = `d:${eid}:0:${alarm.deviceId}`;
      for (const m of entMembers.filter((e) => e.eid === eid)) {
        const u = userOf.get(m.userId);
        if (!u) continue;
        const cfg = userCfg(u.id, eid);
        const owner: Owner = {
          eid,
          userId: u.id,
          brandId: u.oemId,
          lang: u.language === "en" ? "en" : "cn",
        };
        if (ent.sms && cfg.sms && entSwitch && u.phone)
          smsTo(owner, { name: u.name, countryCode: u.countryCode, phone: u.phone }, deviceName, {
            phoneCap: Math.min(ent.phoneCap, cfg.phoneCap),
            deviceCap: ent.deviceCap,
            deviceKey,
          });
        if (ent.email && cfg.email && u.email)
          mailTo(owner, { name: u.name, email: u.email }, deviceName);
      }
      const owner: Owner = { eid, userId: 0, brandId: null, lang: "cn" };
      for (const c of contactsOf(eid, 0)) {
        if (c.kind === "phone" && ent.sms && entSwitch)
          smsTo(
            owner,
            { name: c.name, countryCode: c.countryCode, phone: c.phone, contactId: c.id },
            deviceName,
            {
              phoneCap: ent.phoneCap,
              deviceCap: ent.deviceCap,
              deviceKey,
            },
          );
        if (c.kind === "email" && ent.email)
          mailTo(owner, { name: c.name, email: c.email, contactId: c.id }, deviceName);
      }
      if (ent.webhookUrl && ent.webhookSecret) {
        add({
          channel: "webhook",
          eid,
          userId: 0,
          name: "webhook",
          deviceName,
          recipient: ent.webhookUrl,
          content: JSON.stringify({
            event: "alarm",
            eid,
            alarmId: alarm.id,
            machineId: alarm.deviceId,
            machineCode: device.code,
            machineName: deviceName,
            type: alarm.type,
            variable: alarm.variable,
            level: alarm.level,
            content: alarm.content,
            time: alarm.time.toISOString(),
            timeZone: alarm.timeZone,
          }),
          accountEid: eid,
          accountUserId: 0,
        });
      }
    }
    return sends;
  }

  /**
   * Dispatches stored alarms: each alarm's sends commit with its dispatch row, so an alarm is
   * dispatched once whatever the number of nodes or restarts. A batch is read and written in
   * a fixed number of statements (a burst of alarms must not queue one transaction per alarm
   * in front of the gateway's next writes). Returns the send ids.
   */
  async function dispatchAll(alarmIds: number[]): Promise<number[]> {
    if (alarmIds.length === 0) return [];
    const stored = await db.select().from(alarms).where(inArray(alarms.id, alarmIds));
    if (stored.length === 0) return [];
    const recipients = await recipientsOf(stored.map((a) => a.deviceId));
    const plans = new Map(stored.map((alarm) => [alarm.id, planWith(alarm, recipients)]));
    const ids = await db.transaction(async (tx) => {
      const claimed = await tx
        .insert(alarmDispatches)
        .values(
          stored.map((a) => ({
            alarmId: a.id,
            sends: plans.get(a.id)?.length ?? 0,
            dispatchedAt: clock.now(),
          })),
        )
        .onConflictDoNothing()
        .returning({ alarmId: alarmDispatches.alarmId });
      const sends = claimed.flatMap((c) => plans.get(c.alarmId) ?? []);
      const sendIds: number[] = [];
      for (let i = 0; i < sends.length; i += 1000) {
        const rows = await tx
          .insert(alarmSends)
          .values(sends.slice(i, i + 1000))
          .onConflictDoNothing()
          .returning({ id: alarmSends.id });
        sendIds.push(...rows.map((r) => r.id));
      }
      return sendIds;
    });
    await enqueue(ids);
    return ids;
  }

  const dispatch = (alarmId: number) => dispatchAll([alarmId]);

  /**
   * Alarms arriving in a burst are dispatched together. Should a batch fail, its alarms are
   * tried one by one so that one bad alarm does not hold back the others (the catch-up
   * covers what still fails).
   */
  const dispatcher = createBatcher<number, void>(async (alarmIds) => {
    try {
      await dispatchAll(alarmIds);
    } catch (error) {
      log.warn({ err: error, alarms: alarmIds.length }, "alarm batch not dispatched: one by one");
      for (const alarmId of alarmIds)
        await dispatch(alarmId).catch((err) =>
          log.error({ err, alarmId }, "alarm notifications not dispatched"),
        );
    }
    return alarmIds.map(() => undefined);
  }, 100);

  async function enqueue(sendIds: number[]) {
    if (sendIds.length === 0) return;
    if (!boss) return; // Not started (a test driving deliver() by hand, or stopping).
    await boss.insert(sendIds.map((id) => ({ name: QUEUE, data: { sendId: id } })));
    // The worker waits out its polling interval after each fetch unless told there is work.
    if (workerId) boss.notifyWorker(workerId);
  }

  // ---- Delivery ----

  const today = () => dayOf(clock.now());

  /** Counts one SMS against a cap unless it is reached: false when it is. */
  async function countAgainst(tx: Db, day: string, key: string, cap: number): Promise<boolean> {
    if (cap <= 0) return false;
    const result = await tx.execute(sql`
      insert into ${smsDailyCounters} (day, key, count) values (${day}, ${key}, 1)
      on conflict (day, key) do update set count = ${smsDailyCounters.count} + 1
      where ${smsDailyCounters.count} + 1 <= ${cap}
      returning count`);
    return (result as unknown as { rows: unknown[] }).rows.length === 1;
  }

  async function uncount(tx: Db, send: AlarmSend) {
    if (!send.day) return;
    const keys = [`p:${send.eid}:${send.recipient}`, send.deviceCapKey];
    await tx
      .update(smsDailyCounters)
      .set({ count: sql`greatest(${smsDailyCounters.count} - 1, 0)` })
      .where(and(eq(smsDailyCounters.day, send.day), inArray(smsDailyCounters.key, keys)));
  }

  class Skip extends Error {
    constructor(readonly reason: HwKey) {
      super(reason);
    }
  }

  /**
   * Claims a pending send: pending → sending, with the caps counted and the stock billed in
   * the same transaction. A cap or an empty stock marks it skipped instead.
   */
  async function claim(id: number): Promise<AlarmSend | null> {
    const day = today();
    try {
      return await db.transaction(async (tx) => {
        const [row] = await tx
          .update(alarmSends)
          .set({
            status: "sending",
            attempts: sql`${alarmSends.attempts} + 1`,
            day,
            updatedAt: clock.now(),
          })
          .where(and(eq(alarmSends.id, id), eq(alarmSends.status, "pending")))
          .returning();
        if (!row) return null;
        if (row.channel === "sms") {
          if (!(await countAgainst(tx, day, `p:${row.eid}:${row.recipient}`, row.phoneCap)))
            throw new Skip("ALARM_SMS_DAILY_LIMIT");
          if (!(await countAgainst(tx, day, row.deviceCapKey, row.deviceCap)))
            throw new Skip("ALARM_SMS_DEVICE_DAILY_LIMIT");
          if (!(await push.debit(tx, row.accountEid, row.accountUserId, row.segments, "send")))
            throw new Skip("SMS_STOCK_NOT_ENOUGH");
        }
        return row;
      });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      const [row] = await db
        .update(alarmSends)
        .set({
          status: "skipped",
          reason: String(HW[error.reason].code),
          day,
          updatedAt: clock.now(),
        })
        .where(and(eq(alarmSends.id, id), eq(alarmSends.status, "pending")))
        .returning();
      if (row)
        log.warn(
          {
            alarmSend: id,
            alarm: row.alarmId,
            to: maskPhone(row.recipient),
            reason: HW[error.reason].code,
          },
          `alarm SMS not sent: ${hwMessage(error.reason, "en")}`,
        );
      return null;
    }
  }

  /** Puts a send that was not sent back to pending (its bill and counts returned), or fails it. */
  async function notSent(send: AlarmSend, message: string, retryable: boolean): Promise<boolean> {
    const retry = retryable && send.attempts < MAX_ATTEMPTS;
    await db.transaction(async (tx) => {
      const [row] = await tx
        .update(alarmSends)
        .set({
          status: retry ? "pending" : "failed",
          reason: retry ? "" : String(HW.ALARM_SEND_FAILED.code),
          lastError: message.slice(0, 500),
          updatedAt: clock.now(),
        })
        .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")))
        .returning();
      if (row && send.channel === "sms") {
        await push.refund(tx, send.accountEid, send.accountUserId, send.segments);
        await uncount(tx, send);
      }
    });
    log.warn(
      { alarmSend: send.id, attempts: send.attempts, err: message },
      `alarm ${send.channel} not sent`,
    );
    return retry;
  }

  async function markSent(tx: Db, send: AlarmSend, ref: string | null) {
    await tx
      .update(alarmSends)
      .set({
        status: "sent",
        providerRef: ref,
        sentAt: clock.now(),
        updatedAt: clock.now(),
        lastError: null,
      })
      .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")));
  }

  const smsParts = (send: AlarmSend) => {
    const [cc, phone] = send.recipient.replace(/^\+/, "").split(" ");
    return { countryCode: cc, phone };
  };

  /** Calls the channel. Returns the provider's reference; throws SmsNotSent when nothing went out. */
  async function callProvider(send: AlarmSend): Promise<string> {
    if (send.channel === "sms") {
      const r = await deps.sms.send({
        ...smsParts(send),
        text: send.content,
        params: { device: send.deviceName, content: send.content.slice(0, 35) },
        key: send.idempotencyKey,
      });
      return r.ref;
    }
    if (send.channel === "email") {
      try {
        await deps.senders.email!({
          to: send.recipient,
          subject: send.subject,
          text: send.content,
        });
      } catch (error) {
        // SMTP refused or could not be reached: the message was not taken.
        throw new SmsNotSent(error instanceof Error ? error.message : String(error), true);
      }
      return "smtp";
    }
    const [ent] = await db.select().from(entMsgConfigs).where(eq(entMsgConfigs.eid, send.eid));
    if (!ent?.webhookSecret || !ent.webhookUrl) throw new SmsNotSent("webhook removed", false);
    const secret = decryptSecret(deps.secretKey, ent.webhookSecret);
    const timestamp = String(Math.floor(Date.now() / 1000));
    let response: Response;
    try {
      response = await fetch(send.recipient, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-keyway-timestamp": timestamp,
          "x-keyway-signature": `sha256=${signedText(secret, timestamp, send.content)}`,
          "x-keyway-delivery": send.idempotencyKey,
        },
        body: send.content,
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      // Webhooks are at least once (the delivery id lets the receiver drop a repeat).
      throw new SmsNotSent(error instanceof Error ? error.message : String(error), true);
    }
    if (!response.ok) throw new SmsNotSent(`webhook answered HTTP ${response.status}`, true);
    return `http ${response.status}`;
  }

  /** Local channels (the outbox) take the message in the same transaction as "sent". */
  const isLocal = (send: AlarmSend) =>
    (send.channel === "sms" && deps.sms.local) || (send.channel === "email" && !deps.senders.email);

  /**
   * Delivers one send. "done": nothing more to do (sent, skipped, failed, or someone else has
   * it); "retry": not sent this time, the job should be tried again later.
   */
  async function deliver(sendId: number): Promise<"done" | "retry"> {
    const send = await claim(sendId);
    if (!send) return "done";
    if (isLocal(send)) {
      await db.transaction(async (tx) => {
        await deps.notifier.enqueue(
          {
            channel: send.channel as "sms" | "email",
            recipient: send.recipient,
            subject: send.subject,
            body: send.content,
          },
          tx,
        );
        await markSent(tx, send, "outbox");
      });
      return "done";
    }
    let ref: string;
    try {
      ref = await callProvider(send);
    } catch (error) {
      if (error instanceof SmsNotSent)
        return (await notSent(send, error.message, error.retryable)) ? "retry" : "done";
      // Unknown outcome (a timeout after the request left): the row stays "sending"; the
      // sweep decides after the lease (ask the provider, else uncertain).
      log.error({ alarmSend: send.id, err: error }, "alarm send outcome unknown");
      return "done";
    }
    deps.afterProviderCall?.(send);
    await markSent(db, send, ref);
    return "done";
  }

  /**
   * Sends left in "sending" past the lease (their worker died between the provider call and
   * the commit): asked of the provider when it can tell, else marked uncertain and never
   * sent again. Webhooks are sent again (at least once, with the same delivery id).
   */
  async function resolveStale(): Promise<void> {
    const before = new Date(clock.now().getTime() - SENDING_LEASE_MS);
    const stale = await db
      .select()
      .from(alarmSends)
      .where(and(eq(alarmSends.status, "sending"), lt(alarmSends.updatedAt, before)))
      .orderBy(alarmSends.id)
      .limit(500);
    const again: number[] = [];
    for (const send of stale) {
      if (send.channel === "webhook") {
        await db
          .update(alarmSends)
          .set({ status: "pending", updatedAt: clock.now() })
          .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")));
        again.push(send.id);
        continue;
      }
      let found: { ref: string } | null | undefined;
      if (send.channel === "sms" && deps.sms.lookup) {
        found = await deps.sms.lookup(
          { ...smsParts(send), text: send.content, params: {}, key: send.idempotencyKey },
          send.updatedAt,
        );
      }
      if (found) {
        await markSent(db, send, found.ref);
      } else if (found === null) {
        // The provider says it never got it: give back the bill and send it again.
        if (await notSent(send, "interrupted before the provider took it", true))
          again.push(send.id);
      } else {
        await db
          .update(alarmSends)
          .set({
            status: "uncertain",
            reason: String(HW.ALARM_SEND_UNCERTAIN.code),
            updatedAt: clock.now(),
          })
          .where(and(eq(alarmSends.id, send.id), eq(alarmSends.status, "sending")));
        log.warn(
          { alarmSend: send.id, alarm: send.alarmId },
          "alarm send interrupted: not sent again (uncertain)",
        );
      }
    }
    await enqueue(again);
  }

  /** After a start: alarms stored but not dispatched, pending sends without a live job, stale sends. */
  async function recover(): Promise<void> {
    const since = new Date(clock.now().getTime() - CATCH_UP_MS);
    const missed = await db
      .select({ id: alarms.id })
      .from(alarms)
      .leftJoin(alarmDispatches, eq(alarmDispatches.alarmId, alarms.id))
      .where(and(isNull(alarmDispatches.alarmId), gte(alarms.createdAt, since)))
      .orderBy(alarms.id)
      .limit(5000);
    await Promise.all(missed.map((a) => dispatcher.submit(a.id)));
    const pending = await db
      .select({ id: alarmSends.id })
      .from(alarmSends)
      .where(
        and(
          eq(alarmSends.status, "pending"),
          lt(alarmSends.updatedAt, new Date(clock.now().getTime() - 60_000)),
        ),
      )
      .limit(5000);
    await enqueue(pending.map((p) => p.id));
    await resolveStale();
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  // ---- Records ----

  type Filter = {
    eid: number;
    startTime?: number;
    endTime?: number;
    machineId?: number;
    page: number;
    pageSize: number;
  };

  async function records(
    channel: "sms" | "email",
    owner: { eid: number; userId?: number },
    q: Filter,
    lang: Lang,
  ) {
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
        createTime: Math.floor(s.createdAt.getTime() / 1000),
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

  async function smsRecords(owner: { eid: number; userId?: number }, q: Filter, lang: Lang) {
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
  }

  async function emailRecords(owner: { eid: number; userId?: number }, q: Filter, lang: Lang) {
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
  }

  /** SMS counted today against the per-device cap of a context, per device. */
  async function todayDeviceCounts(eid: number, userId: number, deviceIds: number[]) {
    if (deviceIds.length === 0) return new Map<number, number>();
    const keys = deviceIds.map((id) => `d:${eid}:${userId}:${id}`);
    const rows = await db
      .select()
      .from(smsDailyCounters)
      .where(and(eq(smsDailyCounters.day, today()), inArray(smsDailyCounters.key, keys)));
    return new Map(rows.map((r) => [Number(r.key.split(":")[3]), r.count]));
  }

  return {
    plan,
    dispatch,
    deliver,
    recover,
    resolveStale,
    smsRecords,
    emailRecords,
    todayDeviceCounts,
    /** The gateway stored an alarm: dispatch it now (the catch-up covers a crash before this). */
    alarmStored(alarm: { id: number }) {
      track(dispatcher.submit(alarm.id)).catch((error) =>
        log.error({ err: error, alarmId: alarm.id }, "alarm notifications not dispatched"),
      );
    },
    /** Alarm sends queued in pg-boss and not yet taken by a worker; null before start. */
    async queueSize(): Promise<number | null> {
      return boss ? boss.getQueueSize(QUEUE) : null;
    },
    /** Starts pg-boss on the same database and the worker; then catches up. */
    async start() {
      bossConnection = bossDb(db);
      const instance = new PgBoss({
        db: bossConnection,
        schema: "pgboss",
        schedule: false,
        supervise: true,
      });
      instance.on("error", (error) => log.error({ err: error }, "pg-boss"));
      await instance.start();
      await instance.createQueue(QUEUE, {
        name: QUEUE,
        retryLimit: MAX_ATTEMPTS * 2,
        retryDelay: 2,
        retryBackoff: true,
        expireInSeconds: 300,
      });
      workerId = await instance.work<{ sendId: number }>(
        QUEUE,
        { pollingIntervalSeconds: deps.pollSeconds ?? 2, batchSize: JOB_BATCH },
        async (jobs) => {
          const retries: number[] = [];
          // Sends are independent (caps and stock are taken by conditional updates), so a
          // batch is delivered a few at a time rather than one after another.
          let next = 0;
          await Promise.all(
            Array.from({ length: Math.min(JOB_CONCURRENCY, jobs.length) }, async () => {
              while (next < jobs.length) {
                const job = jobs[next++];
                if ((await track(deliver(job.data.sendId))) === "retry")
                  retries.push(job.data.sendId);
              }
            }),
          );
          // A full batch: more are probably waiting; fetch again without the polling pause.
          if (jobs.length === JOB_BATCH && workerId) instance.notifyWorker(workerId);
          // pg-boss retries the batch with back-off; done sends are no-ops the next time.
          if (retries.length) throw new Error(`alarm sends to retry: ${retries.join(",")}`);
        },
      );
      boss = instance;
      await track(recover());
      sweepTimer = setInterval(() => {
        track(recover()).catch((error) => log.error({ err: error }, "alarm notification sweep"));
      }, 60_000);
      sweepTimer.unref();
    },
    async stop() {
      if (sweepTimer) clearInterval(sweepTimer);
      const instance = boss;
      boss = null;
      await Promise.allSettled([...inFlight]);
      await instance?.stop({ graceful: true, timeout: 5_000, wait: true, close: false } as never);
      bossConnection?.detach();
    },
  };
}
