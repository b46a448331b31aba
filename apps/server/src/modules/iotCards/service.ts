import {
  DAY_MS,
  IOT_CARD_INFO_LAG_HOURS,
  IOT_CARD_REFRESH,
  type IotCardDetail,
  type IotCardQr,
  type IotCardState,
  type IotCardTraffic,
  iccidField,
} from "@keyway/shared";
import { and, asc, count, eq, gte, ilike, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";
import type { CarrierAdapter } from "./carriers/carrier.ts";
import { type Context, createCardContexts, type IotCardViewer } from "./context.ts";
import { createCardPass } from "./pass.ts";
import { createCarrierReads } from "./reads.ts";
import { iotCardSnapshots, iotCards } from "./schema.ts";
import { createCardSync } from "./sync.ts";
import { createCardTraffic } from "./traffic.ts";
import { createCardView } from "./view.ts";
import { createCardWarnings } from "./warnings.ts";

export type { IotCardViewer } from "./context.ts";
export { effectiveState } from "./figures.ts";

export type IotCardService = ReturnType<typeof createIotCardService>;

type DeviceScope = ReturnType<DeviceService["personalScope"]>;

/**
 * 4G IoT cards (SPEC §4 "IoT card", §7 "IoT card", §9 lag): the cards the devices report,
 * read from the carrier every IOT_CARD_REFRESH.everyHours and on demand (throttled), with
 * a snapshot per read for the charts. Low traffic and a near plan end become alarms of the
 * card's device, once per condition (cleared when the condition ends). A card is shown to
 * whoever sees its device in the context: personally its Akey and Bkeys, in an enterprise
 * the members who see the device's list (enterprises module's deviceScope). One file per
 * job: context.ts (who sees which cards), sync.ts, reads.ts (the carrier), warnings.ts,
 * pass.ts (the periodic pass), view.ts and traffic.ts.
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
  /** Where stored alarms are told ("alarm.stored"). */
  events?: Pick<Events, "publish">;
}) {
  const { db, clock } = deps;
  const contexts = createCardContexts(deps);
  const { contextOf, visible, cardIn } = contexts;
  const sync = createCardSync(deps);
  const { judge, warningsOf } = createCardWarnings(deps);
  const { claim, read, readAll } = createCarrierReads({ ...deps, judge });
  const pass = createCardPass({ clock, log: deps.log, sync, claim, readAll });
  const view = createCardView(clock);
  const trafficOf = createCardTraffic({ db, clock, view });

  async function syncContext(ctx: Context) {
    await sync(await contexts.deviceIdsIn(ctx));
  }

  /** Cards never read are read in the background, so a new card shows figures shortly. */
  async function readNewIn(ctx: Context) {
    const fresh = await visible(ctx, [isNull(iotCards.refreshedAt), isNull(iotCards.removedAt)]);
    if (fresh.length === 0) return;
    const ids = fresh.map((r) => r.card.id);
    pass.track(claim(inArray(iotCards.id, ids), ids.length).then((cards) => readAll(cards)));
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
    if (q.machineId !== undefined && !(await contexts.seesDevice(ctx, q.machineId)))
      throw fail("EDIT_MACHINE_NOT_FOUND");
    return warningsOf(
      ctx,
      [
        q.machineId !== undefined ? eq(alarms.deviceId, q.machineId) : undefined,
        q.iccid !== undefined ? eq(alarms.variable, q.iccid) : undefined,
      ],
      { limit: q.pageSize, offset: (q.page - 1) * q.pageSize },
    );
  }

  /** The data centre's card traffic (traffic.ts). */
  async function traffic(
    viewer: IotCardViewer,
    q: { eid: number; days: number; utcOffset: number },
  ): Promise<IotCardTraffic> {
    const ctx = await contextOf(viewer, q.eid);
    await syncContext(ctx);
    return trafficOf(await visible(ctx), q);
  }

  return {
    sync,
    refreshDue: pass.refreshDue,
    list,
    info,
    refresh,
    qrCode,
    scan,
    warningLog,
    traffic,
    /** Periodic passes every `everyMs` (0: none; tests run refreshDue by hand). */
    start: pass.start,
    /** Resolves once background reads have finished. */
    idle: pass.idle,
    stop: pass.stop,
  };
}
