import {
  DAY_MS,
  formatTrafficKb,
  IOT_CARD_ALARM_TYPES,
  IOT_CARD_INFO_LAG_HOURS,
  IOT_CARD_REFRESH,
  IOT_CARD_STATES,
  type IotCardDetail,
  type IotCardQr,
  type IotCardState,
  type IotCardTraffic,
  type IotCardView,
  type IotCardWarningKind,
  type IotCardWarningView,
  iccidField,
  isExpiring,
  isLowTraffic,
} from "@keyway/shared";
import {
  and,
  asc,
  count,
  desc,
  eq,
  gte,
  ilike,
  inArray,
  isNull,
  lt,
  ne,
  notInArray,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { type Alarm, alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";
import { type CarrierAdapter, type CarrierCardInfo, CarrierError } from "./carriers.ts";
import { type IotCardRow, iotCardSnapshots, iotCards } from "./schema.ts";

export type IotCardService = ReturnType<typeof createIotCardService>;

export interface IotCardViewer {
  userId: number;
  role: "user" | "operator";
}

type DeviceScope = ReturnType<DeviceService["personalScope"]>;

const HOUR_MS = 3_600_000;
/** A read that has not finished after this long is taken over (a crashed node, a hung call). */
const CLAIM_STALE_MS = 30 * 60_000;
/** Carriers bill by Beijing time: a traffic cycle is a calendar month at UTC+8. */
const BEIJING_MS = 8 * HOUR_MS;
const WARNING_LEVEL = 2;
const WARNING_TYPES = Object.values(IOT_CARD_ALARM_TYPES);
const KIND_OF_TYPE = new Map<string, IotCardWarningKind>(
  Object.entries(IOT_CARD_ALARM_TYPES).map(([kind, type]) => [type, kind as IotCardWarningKind]),
);

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const beijingDay = (d: Date) => new Date(d.getTime() + BEIJING_MS).toISOString().slice(0, 10);
const dayOf = (d: Date, utcOffset: number) =>
  new Date(d.getTime() + utcOffset * 60_000).toISOString().slice(0, 10);

/** The figures a card's state and warnings are judged on. */
interface Figures {
  state: IotCardState;
  totalKb: number | null;
  usedKb: number | null;
  expiresAt: Date | null;
}

/** Warnings are for cards that carry traffic; a cancelled or parked card has none. */
const WARNED_STATES: ReadonlySet<IotCardState> = new Set(["working", "disconnected", "expired"]);

function lowTrafficOf(f: Figures): boolean {
  return (f.state === "working" || f.state === "disconnected") && isLowTraffic(f.totalKb, f.usedKb);
}

function expiringOf(f: Figures, now: Date): boolean {
  return WARNED_STATES.has(f.state) && isExpiring(f.expiresAt, now);
}

/**
 * What the carrier says, with what the platform knows on top: a working card past its plan's
 * end is expired, and one that has used its whole plan is cut off (disconnected).
 */
export function effectiveState(info: CarrierCardInfo, now: Date): IotCardState {
  if (info.state !== "working") return info.state;
  if (info.expiresAt && info.expiresAt.getTime() < now.getTime()) return "expired";
  if (info.totalKb !== null && info.totalKb > 0 && info.usedKb !== null)
    if (info.usedKb >= info.totalKb) return "disconnected";
  return "working";
}

/**
 * 4G IoT cards (SPEC §4 "IoT card", §7 "IoT card", §9 lag): the cards the devices report,
 * read from the carrier every IOT_CARD_REFRESH.everyHours and on demand (throttled), with
 * a snapshot per read for the charts. Low traffic and a near plan end become alarms of the
 * card's device, once per condition (cleared when the condition ends). A card is shown to
 * whoever sees its device in the context: personally its Akey and Bkeys, in an enterprise
 * the members who see the device's list (enterprises module's deviceScope).
 */
export function createIotCardService(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  carrier: CarrierAdapter;
  publicUrl: string;
  personalScope: (userId: number) => DeviceScope;
  enterpriseScope: (viewer: IotCardViewer, eid: number) => Promise<{ scope: DeviceScope }>;
  /** A warning stored as an alarm: told like the devices' own (messages, pushes, SMS/e-mail). */
  onAlarm: (alarm: Alarm) => void;
}) {
  const { db, clock, carrier } = deps;
  const inFlight = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | null = null;
  let passRunning: Promise<number> | null = null;

  // ---- Which cards a viewer sees ----

  async function contextOf(viewer: IotCardViewer, eid: number) {
    if (eid === 0) {
      const scope = deps.personalScope(viewer.userId);
      // Personal: the device's managers only (Akey, Bkeys); visitors and ordinary users do not
      // see the operator's SIM plan.
      return { scope, where: inArray(scope.role, ["akey", "bkey"]) as SQL };
    }
    const { scope } = await deps.enterpriseScope(viewer, eid);
    return { scope, where: undefined };
  }

  type Context = Awaited<ReturnType<typeof contextOf>>;

  function visible(ctx: Context, extra: (SQL | undefined)[] = []) {
    return db
      .select({ card: iotCards, code: devices.code, name: ctx.scope.name })
      .from(iotCards)
      .innerJoin(ctx.scope, eq(ctx.scope.deviceId, iotCards.deviceId))
      .innerJoin(devices, eq(devices.id, iotCards.deviceId))
      .where(and(ctx.where, ...extra));
  }

  async function cardIn(ctx: Context, by: { iccid?: string; deviceId?: number }) {
    const [row] = await visible(ctx, [
      by.iccid !== undefined ? eq(iotCards.iccid, by.iccid) : undefined,
      by.deviceId !== undefined ? eq(iotCards.deviceId, by.deviceId) : undefined,
      // By device: the card it reports now (a replaced card stays findable by ICCID).
      by.iccid === undefined ? isNull(iotCards.removedAt) : undefined,
    ]).limit(1);
    // Someone else's card and a missing one look the same.
    if (!row) throw fail("IOT_CARD_NOT_FOUND");
    return row;
  }

  // ---- Cards from the devices' reports ----

  /**
   * Cards follow what the devices report (devices.iccid, from their `state` message): a new
   * ICCID becomes a card, a card moved to another device follows it, a card its device no
   * longer reports is marked deleted. `deviceIds` limits the work to a context's devices.
   */
  async function sync(deviceIds?: number[]): Promise<void> {
    if (deviceIds && deviceIds.length === 0) return;
    const inScope = deviceIds ? inArray(devices.id, deviceIds) : undefined;
    const reported = await db
      .select({ id: devices.id, iccid: devices.iccid })
      .from(devices)
      .where(and(ne(devices.iccid, ""), inScope));
    const now = clock.now();
    const rows = reported
      .map((d) => ({ deviceId: d.id, iccid: d.iccid.trim().toUpperCase() }))
      .filter((d) => iccidField.safeParse(d.iccid).success);
    for (let i = 0; i < rows.length; i += 1000) {
      await db
        .insert(iotCards)
        .values(
          rows
            .slice(i, i + 1000)
            .map((r) => ({ ...r, carrier: carrier.name, createdAt: now, state: "unknown" })),
        )
        .onConflictDoUpdate({
          target: iotCards.iccid,
          set: {
            deviceId: sql`excluded.device_id`,
            removedAt: null,
            state: sql`case when ${iotCards.state} = 'deleted' then 'unknown' else ${iotCards.state} end`,
          },
          setWhere: sql`${iotCards.deviceId} <> excluded.device_id or ${iotCards.removedAt} is not null`,
        });
    }
    await db
      .update(iotCards)
      .set({ removedAt: now, state: "deleted" })
      .where(
        and(
          isNull(iotCards.removedAt),
          deviceIds ? inArray(iotCards.deviceId, deviceIds) : undefined,
          sql`${iotCards.iccid} <> (select upper(trim(${devices.iccid})) from ${devices} where ${devices.id} = ${iotCards.deviceId})`,
        ),
      );
  }

  async function syncContext(ctx: Context) {
    const ids = await db.select({ id: ctx.scope.deviceId }).from(ctx.scope).where(ctx.where);
    await sync(ids.map((r) => r.id));
  }

  // ---- Reading the carrier ----

  /** Claims cards for a read (one reader per card across nodes); returns those claimed. */
  async function claim(where: SQL | undefined, limit: number): Promise<IotCardRow[]> {
    const now = clock.now();
    const free = or(
      isNull(iotCards.refreshClaimedAt),
      lt(iotCards.refreshClaimedAt, new Date(now.getTime() - CLAIM_STALE_MS)),
    );
    const ids = db
      .select({ id: iotCards.id })
      .from(iotCards)
      .where(and(isNull(iotCards.removedAt), free, where))
      .orderBy(sql`${iotCards.refreshedAt} asc nulls first`)
      .limit(limit);
    return db
      .update(iotCards)
      .set({ refreshClaimedAt: now })
      .where(and(inArray(iotCards.id, ids), free))
      .returning();
  }

  /**
   * Reads one claimed card. A failed read keeps the last figures, notes the error and
   * leaves the claim in place, so the card is tried again once the claim goes stale.
   */
  async function read(card: IotCardRow): Promise<IotCardRow> {
    let info: CarrierCardInfo | null;
    try {
      info = await carrier.cardInfo(card.iccid);
    } catch (error) {
      const message = (error as Error).message.slice(0, 300);
      deps.log.warn({ iccid: card.iccid, err: message }, "IoT card read failed");
      // Users get a neutral code (shown in their language), the log the carrier's words.
      const lastError = error instanceof CarrierError ? error.readError : "failed";
      const [row] = await db
        .update(iotCards)
        .set({ lastError })
        .where(eq(iotCards.id, card.id))
        .returning();
      return row ?? card;
    }
    const now = clock.now();
    if (!info) {
      const [row] = await db
        .update(iotCards)
        .set({
          state: "unknown",
          carrier: carrier.name,
          refreshedAt: now,
          refreshClaimedAt: null,
          lastError: "",
        })
        .where(and(eq(iotCards.id, card.id), isNull(iotCards.removedAt)))
        .returning();
      await judge(row ?? card, { state: "unknown", totalKb: null, usedKb: null, expiresAt: null });
      return row ?? card;
    }
    const figures: Figures = {
      state: effectiveState(info, now),
      totalKb: info.totalKb,
      usedKb: info.usedKb,
      expiresAt: info.expiresAt,
    };
    const [row] = await db
      .update(iotCards)
      .set({
        carrier: carrier.name,
        msisdn: info.msisdn,
        imsi: info.imsi,
        planName: info.planName,
        activatedAt: info.activatedAt,
        ...figures,
        refreshedAt: now,
        refreshClaimedAt: null,
        lastError: "",
      })
      // A card removed meanwhile keeps its `deleted`.
      .where(and(eq(iotCards.id, card.id), isNull(iotCards.removedAt)))
      .returning();
    if (!row) return card;
    await db.insert(iotCardSnapshots).values({
      cardId: card.id,
      takenAt: now,
      state: figures.state,
      totalKb: figures.totalKb,
      usedKb: figures.usedKb,
    });
    await judge(row, figures);
    return row;
  }

  /**
   * Turns the figures into warnings: a condition that holds is stored as an alarm of the
   * device once (its uid names the card, the warning and the condition: the billing month
   * for traffic, the end date for the plan); one that no longer holds is cleared.
   */
  async function judge(card: IotCardRow, f: Figures): Promise<void> {
    const now = clock.now();
    const wanted: (typeof alarms.$inferInsert)[] = [];
    if (lowTrafficOf(f)) {
      const total = f.totalKb ?? 0;
      const left = Math.max(0, total - (f.usedKb ?? 0));
      const percent = total > 0 ? Math.round((left / total) * 1000) / 10 : 0;
      wanted.push({
        uid: `iotcard-traffic-${card.iccid}-${beijingDay(now).slice(0, 7)}`,
        type: IOT_CARD_ALARM_TYPES.lowTraffic,
        content:
          `4G 卡 ${card.iccid} 流量不足：剩余 ${formatTrafficKb(left)}（${percent}%），套餐 ${formatTrafficKb(total)} / ` +
          `Low traffic on 4G card ${card.iccid}: ${formatTrafficKb(left)} left (${percent}%) of ${formatTrafficKb(total)}`,
        deviceId: card.deviceId,
        variable: card.iccid,
        level: WARNING_LEVEL,
        time: now,
        timeZone: "UTC",
        createdAt: now,
      });
    }
    if (expiringOf(f, now) && f.expiresAt) {
      const day = beijingDay(f.expiresAt);
      const ended = f.expiresAt.getTime() <= now.getTime();
      wanted.push({
        uid: `iotcard-expiry-${card.iccid}-${day}`,
        type: IOT_CARD_ALARM_TYPES.expiry,
        content: ended
          ? `4G 卡 ${card.iccid} 的套餐已于 ${day} 到期 / The plan of 4G card ${card.iccid} ended on ${day}`
          : `4G 卡 ${card.iccid} 的套餐将于 ${day} 到期 / The plan of 4G card ${card.iccid} ends on ${day}`,
        deviceId: card.deviceId,
        variable: card.iccid,
        level: WARNING_LEVEL,
        time: now,
        timeZone: "UTC",
        createdAt: now,
      });
    }
    // Open warnings of this card that are not (or no longer) the current condition end.
    const keep = wanted.map((w) => w.uid);
    await db
      .update(alarms)
      .set({ clearedAt: now })
      .where(
        and(
          eq(alarms.deviceId, card.deviceId),
          inArray(alarms.type, WARNING_TYPES),
          eq(alarms.variable, card.iccid),
          isNull(alarms.clearedAt),
          keep.length > 0 ? notInArray(alarms.uid, keep) : undefined,
        ),
      );
    if (wanted.length === 0) return;
    // The unique (device, uid) makes a repeated read, or two nodes at once, store it once.
    const stored = await db.insert(alarms).values(wanted).onConflictDoNothing().returning();
    for (const alarm of stored) deps.onAlarm(alarm);
  }

  /** Runs reads with a little parallelism (carrier APIs throttle bursts). */
  async function readAll(cards: IotCardRow[], parallel = 4): Promise<void> {
    const queue = [...cards];
    const worker = async () => {
      for (let card = queue.shift(); card; card = queue.shift()) await read(card);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  }

  /** Keeps a background read awaited by stop() / idle(). */
  function track<T>(work: Promise<T>): void {
    const p = work.catch((error) => deps.log.error({ err: error }, "IoT card reads failed"));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  /**
   * One periodic pass: follow the devices' reports, then read every card whose figures are
   * older than IOT_CARD_REFRESH.everyHours (reading more often than the carriers' 6-12 hour
   * lag shows nothing new). Returns how many cards were read.
   */
  async function refreshDue(batch = 200): Promise<number> {
    if (passRunning) return passRunning;
    passRunning = (async () => {
      await sync();
      const cutoff = new Date(clock.now().getTime() - IOT_CARD_REFRESH.everyHours * HOUR_MS);
      let read = 0;
      // Batch by batch until nothing is due (a large fleet does not wait for the next pass).
      for (;;) {
        const due = await claim(
          or(isNull(iotCards.refreshedAt), lt(iotCards.refreshedAt, cutoff)),
          batch,
        );
        await readAll(due);
        read += due.length;
        if (due.length < batch) return read;
      }
    })().finally(() => {
      passRunning = null;
    });
    return passRunning;
  }

  // ---- Views ----

  function figuresOf(card: IotCardRow): Figures {
    return {
      state: card.state as IotCardState,
      totalKb: card.totalKb,
      usedKb: card.usedKb,
      expiresAt: card.expiresAt,
    };
  }

  function view(row: { card: IotCardRow; code: string; name: string }): IotCardView {
    const { card } = row;
    const now = clock.now();
    const f = figuresOf(card);
    const total = card.totalKb;
    const used = card.usedKb;
    const after = card.refreshRequestedAt
      ? new Date(card.refreshRequestedAt.getTime() + IOT_CARD_REFRESH.onDemandMinutes * 60_000)
      : null;
    return {
      iccid: card.iccid,
      msisdn: card.msisdn,
      imsi: card.imsi,
      carrier: card.carrier as IotCardView["carrier"],
      card_state: f.state,
      machine_id: card.deviceId,
      machine_code: row.code,
      machine_name: row.name || row.code,
      plan_name: card.planName,
      total_kb: total,
      used_kb: used,
      left_kb: total !== null && used !== null ? Math.max(0, total - used) : null,
      used_percent:
        total !== null && used !== null && total > 0
          ? Math.round(Math.min(100, (used / total) * 100) * 10) / 10
          : null,
      expire_time: iso(card.expiresAt),
      active_time: iso(card.activatedAt),
      days_left: card.expiresAt
        ? Math.ceil((card.expiresAt.getTime() - now.getTime()) / DAY_MS)
        : null,
      refreshed_at: iso(card.refreshedAt),
      last_error: card.lastError,
      refresh_after: after && after.getTime() > now.getTime() ? after.toISOString() : null,
      low_traffic: card.removedAt === null && lowTrafficOf(f) ? 1 : 0,
      expiring: card.removedAt === null && expiringOf(f, now) ? 1 : 0,
    };
  }

  /** Cards never read are read in the background, so a new card shows figures shortly. */
  async function readNewIn(ctx: Context) {
    const fresh = await visible(ctx, [isNull(iotCards.refreshedAt), isNull(iotCards.removedAt)]);
    if (fresh.length === 0) return;
    const ids = fresh.map((r) => r.card.id);
    track(claim(inArray(iotCards.id, ids), ids.length).then((cards) => readAll(cards)));
  }

  async function list(
    viewer: IotCardViewer,
    q: { eid: number; blur: string; state?: IotCardState | ""; page: number; pageSize: number },
  ) {
    const ctx = await contextOf(viewer, q.eid);
    await syncContext(ctx);
    await readNewIn(ctx);
    const like = `%${q.blur.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const filters = [
      q.blur
        ? or(
            ilike(iotCards.iccid, like),
            ilike(iotCards.msisdn, like),
            ilike(devices.code, like),
            ilike(ctx.scope.name, like),
          )
        : undefined,
      q.state ? eq(iotCards.state, q.state) : undefined,
    ];
    const [rows, [{ total }]] = await Promise.all([
      visible(ctx, filters)
        .orderBy(
          // Cards in use first, replaced ones last.
          sql`${iotCards.removedAt} is not null`,
          asc(ctx.scope.name),
          asc(iotCards.iccid),
        )
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db
        .select({ total: count() })
        .from(iotCards)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, iotCards.deviceId))
        .innerJoin(devices, eq(devices.id, iotCards.deviceId))
        .where(and(ctx.where, ...filters)),
    ]);
    return { list: rows.map(view), total };
  }

  async function warningsOf(
    ctx: Context,
    where: (SQL | undefined)[],
    page: { limit: number; offset: number },
  ) {
    const base = and(ctx.where, inArray(alarms.type, WARNING_TYPES), ...where);
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({ alarm: alarms, code: devices.code, name: ctx.scope.name })
        .from(alarms)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, alarms.deviceId))
        .innerJoin(devices, eq(devices.id, alarms.deviceId))
        .where(base)
        .orderBy(desc(alarms.time), desc(alarms.id))
        .limit(page.limit)
        .offset(page.offset),
      db
        .select({ total: count() })
        .from(alarms)
        .innerJoin(ctx.scope, eq(ctx.scope.deviceId, alarms.deviceId))
        .where(base),
    ]);
    const list: IotCardWarningView[] = rows.map(({ alarm, code, name }) => ({
      id: alarm.id,
      kind: KIND_OF_TYPE.get(alarm.type) ?? "lowTraffic",
      iccid: alarm.variable,
      machine_id: alarm.deviceId,
      machine_code: code,
      machine_name: name || code,
      level: alarm.level,
      content: alarm.content,
      time: alarm.time.toISOString(),
      cleared: alarm.clearedAt ? 1 : 0,
      cleared_at: iso(alarm.clearedAt),
      confirmed: alarm.confirmedAt ? 1 : 0,
    }));
    return { list, total };
  }

  async function info(
    viewer: IotCardViewer,
    q: { eid: number; iccid?: string; machineId?: number },
  ): Promise<IotCardDetail> {
    const ctx = await contextOf(viewer, q.eid);
    await syncContext(ctx);
    const row = await cardIn(ctx, { iccid: q.iccid, deviceId: q.machineId });
    if (!row.card.refreshedAt && !row.card.removedAt) await readNewIn(ctx);
    const since = new Date(clock.now().getTime() - 30 * DAY_MS);
    const [history, warnings] = await Promise.all([
      db
        .select()
        .from(iotCardSnapshots)
        .where(and(eq(iotCardSnapshots.cardId, row.card.id), gte(iotCardSnapshots.takenAt, since)))
        .orderBy(asc(iotCardSnapshots.takenAt))
        .limit(1000),
      warningsOf(ctx, [eq(alarms.variable, row.card.iccid)], { limit: 20, offset: 0 }),
    ]);
    return {
      card: view(row),
      history: history.map((s) => ({
        time: s.takenAt.toISOString(),
        used_kb: s.usedKb,
        total_kb: s.totalKb,
        state: s.state as IotCardState,
      })),
      warnings: warnings.list,
      lag_hours: { ...IOT_CARD_INFO_LAG_HOURS },
    };
  }

  /**
   * An on-demand read of one card, at most once per IOT_CARD_REFRESH.onDemandMinutes per
   * card (whoever asks): the carrier's figures lag hours anyway, and its API is metered.
   */
  async function refresh(viewer: IotCardViewer, q: { eid: number; iccid: string }) {
    const ctx = await contextOf(viewer, q.eid);
    const row = await cardIn(ctx, { iccid: q.iccid });
    if (row.card.removedAt) return view(row);
    const now = clock.now();
    const since = new Date(now.getTime() - IOT_CARD_REFRESH.onDemandMinutes * 60_000);
    const [asked] = await db
      .update(iotCards)
      .set({ refreshRequestedAt: now, refreshClaimedAt: now })
      .where(
        and(
          eq(iotCards.id, row.card.id),
          or(isNull(iotCards.refreshRequestedAt), lt(iotCards.refreshRequestedAt, since)),
        ),
      )
      .returning();
    if (!asked) {
      const after = new Date(
        (row.card.refreshRequestedAt ?? now).getTime() + IOT_CARD_REFRESH.onDemandMinutes * 60_000,
      );
      throw fail("IOT_CARD_REFRESH_TOO_SOON", { refresh_after: after.toISOString() });
    }
    const card = await read(asked);
    if (card.lastError) throw fail("IOT_CARD_CARRIER_FAILED", { last_error: card.lastError });
    return view({ ...row, card });
  }

  function qrContent(iccid: string) {
    return `${deps.publicUrl}/iotCard/${iccid}`;
  }

  /** A QR of the card's page: the phone app scans it (POST /api/v1/iotcard/qrCode). */
  async function qrCode(
    viewer: IotCardViewer,
    q: { eid: number; iccid: string },
  ): Promise<IotCardQr> {
    const ctx = await contextOf(viewer, q.eid);
    const row = await cardIn(ctx, { iccid: q.iccid });
    const content = qrContent(row.card.iccid);
    const image = await QRCode.toDataURL(content, { margin: 1, width: 240 });
    return { iccid: row.card.iccid, content, image };
  }

  /** What the phone app scanned: our card QR (a link ending in the ICCID) or the bare ICCID. */
  async function scan(viewer: IotCardViewer, q: { eid: number; content: string }) {
    const text = q.content.trim();
    const candidate = /\/iotCard\/([0-9A-Za-z]+)\/?(?:[?#].*)?$/.exec(text)?.[1] ?? text;
    const parsed = iccidField.safeParse(candidate);
    if (!parsed.success) throw fail("IOT_CARD_NOT_FOUND");
    const ctx = await contextOf(viewer, q.eid);
    await syncContext(ctx);
    return view(await cardIn(ctx, { iccid: parsed.data }));
  }

  /** The warnings that became alarms: of a device, of a card, or of the whole context. */
  async function warningLog(
    viewer: IotCardViewer,
    q: { eid: number; machineId?: number; iccid?: string; page: number; pageSize: number },
  ) {
    const ctx = await contextOf(viewer, q.eid);
    if (q.machineId !== undefined) {
      const [seen] = await db
        .select({ id: ctx.scope.deviceId })
        .from(ctx.scope)
        .where(and(ctx.where, eq(ctx.scope.deviceId, q.machineId)))
        .limit(1);
      if (!seen) throw fail("EDIT_MACHINE_NOT_FOUND");
    }
    return warningsOf(
      ctx,
      [
        q.machineId !== undefined ? eq(alarms.deviceId, q.machineId) : undefined,
        q.iccid !== undefined ? eq(alarms.variable, q.iccid) : undefined,
      ],
      { limit: q.pageSize, offset: (q.page - 1) * q.pageSize },
    );
  }

  /**
   * The data centre's card traffic: totals of the cards in use, counts by state, the
   * biggest users, and traffic per day from consecutive readings (a drop means a new cycle,
   * so the reading itself is that cycle's traffic so far).
   */
  async function traffic(
    viewer: IotCardViewer,
    q: { eid: number; days: number; utcOffset: number },
  ): Promise<IotCardTraffic> {
    const ctx = await contextOf(viewer, q.eid);
    await syncContext(ctx);
    const rows = await visible(ctx);
    const now = clock.now();
    const inUse = rows.filter((r) => r.card.removedAt === null);
    const byState = new Map<IotCardState, number>();
    for (const r of rows)
      byState.set(
        r.card.state as IotCardState,
        (byState.get(r.card.state as IotCardState) ?? 0) + 1,
      );
    let total = 0;
    let used = 0;
    for (const r of inUse) {
      total += r.card.totalKb ?? 0;
      used += r.card.usedKb ?? 0;
    }
    // Day boundaries in the viewer's offset: today and the days before it.
    const offsetMs = q.utcOffset * 60_000;
    const todayStart = Math.floor((now.getTime() + offsetMs) / DAY_MS) * DAY_MS - offsetMs;
    const start = new Date(todayStart - (q.days - 1) * DAY_MS);
    const days = new Map<string, number>();
    for (let i = 0; i < q.days; i++)
      days.set(dayOf(new Date(start.getTime() + i * DAY_MS), q.utcOffset), 0);
    const ids = rows.map((r) => r.card.id);
    if (ids.length > 0) {
      // Each card's readings in the range, plus the last one before it (the baseline).
      const [inRange, before] = await Promise.all([
        db
          .select()
          .from(iotCardSnapshots)
          .where(and(inArray(iotCardSnapshots.cardId, ids), gte(iotCardSnapshots.takenAt, start)))
          .orderBy(asc(iotCardSnapshots.cardId), asc(iotCardSnapshots.takenAt)),
        db
          .selectDistinctOn([iotCardSnapshots.cardId])
          .from(iotCardSnapshots)
          .where(and(inArray(iotCardSnapshots.cardId, ids), lt(iotCardSnapshots.takenAt, start)))
          .orderBy(asc(iotCardSnapshots.cardId), desc(iotCardSnapshots.takenAt)),
      ]);
      const last = new Map<number, number | null>(before.map((s) => [s.cardId, s.usedKb]));
      for (const s of inRange) {
        const prev = last.get(s.cardId);
        last.set(s.cardId, s.usedKb);
        if (prev === undefined || prev === null || s.usedKb === null) continue;
        const delta = s.usedKb >= prev ? s.usedKb - prev : s.usedKb;
        const day = dayOf(s.takenAt, q.utcOffset);
        if (days.has(day)) days.set(day, (days.get(day) ?? 0) + delta);
      }
    }
    const byCard = [...inUse]
      .sort((a, b) => (b.card.usedKb ?? 0) - (a.card.usedKb ?? 0))
      .slice(0, 10)
      .map((r) => {
        const v = view(r);
        return {
          iccid: v.iccid,
          machine_name: v.machine_name,
          used_kb: v.used_kb ?? 0,
          left_kb: v.left_kb,
          total_kb: v.total_kb,
        };
      });
    const views = inUse.map(view);
    return {
      cards: inUse.length,
      total_kb: total,
      used_kb: used,
      left_kb: Math.max(0, total - used),
      low_traffic: views.filter((v) => v.low_traffic === 1).length,
      expiring: views.filter((v) => v.expiring === 1).length,
      byState: IOT_CARD_STATES.filter((s) => byState.has(s)).map((state) => ({
        state,
        count: byState.get(state) ?? 0,
      })),
      byDay: [...days].map(([day, kb]) => ({ day, used_kb: Math.round(kb) })),
      byCard,
      lag_hours: { ...IOT_CARD_INFO_LAG_HOURS },
    };
  }

  return {
    sync,
    refreshDue,
    list,
    info,
    refresh,
    qrCode,
    scan,
    warningLog,
    traffic,
    /** Periodic passes every `everyMs` (0: none; tests run refreshDue by hand). */
    start(everyMs: number) {
      if (everyMs <= 0 || timer) return;
      timer = setInterval(() => track(refreshDue()), everyMs);
      timer.unref();
    },
    /** Resolves once background reads have finished. */
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
