import {
  type AppDownloadInfo,
  appReleaseOf,
  type Brand,
  brandWording,
  type ClientConfig,
  DAY_MS,
  type Lang,
  type MapPoint,
  type MapPointsResult,
  SCADA_LIMITS,
  SCADA_REPLY_HOURS,
  type ScadaRegistered,
  type ScadaRegistration,
  type ScadaRegistrationView,
} from "@keyway/shared";
import { and, count, desc, eq, gt, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices } from "../enterprises/schema.ts";
import type { EnterpriseService, Viewer } from "../enterprises/service.ts";
import type { Notifier } from "../notify/service.ts";
import { type ScadaRegistrationRow, scadaRegistrations } from "./schema.ts";

export type PortalService = ReturnType<typeof createPortalService>;

/** Advisory lock namespace of the per-address SCADA cap (any constant unique in the app). */
const SCADA_LOCK = 7_310_001;

/** The device columns a map point shows (never the hashes). */
const pointColumns = {
  id: devices.id,
  code: devices.code,
  lat: devices.lat,
  lng: devices.lng,
  address: devices.address,
  locationWay: devices.locationWay,
  online: devices.online,
};

type PointRow = {
  id: number;
  code: string;
  lat: number | null;
  lng: number | null;
  address: string;
  locationWay: string;
  online: boolean;
  name: string;
};

function toPoint(row: PointRow, eid: number, type: 0 | 1 | 2): MapPoint {
  return {
    machine_id: row.id,
    machine_code: row.code,
    machine_name: row.name || row.code,
    lat: row.lat,
    lng: row.lng,
    address: row.address,
    location_way: row.locationWay,
    online: row.online,
    state: row.online ? 1 : 0,
    eid,
    type,
  };
}

/** Online devices first, then by name: the list beside the map reads like the device lists. */
function byStateThenName(a: MapPoint, b: MapPoint): number {
  if (a.online !== b.online) return a.online ? -1 : 1;
  return a.machine_name.localeCompare(b.machine_name) || a.machine_id - b.machine_id;
}

/** QR images of the download links: PNG, black on white, readable from a phone screen. */
export const QR_OPTIONS = {
  type: "image/png",
  margin: 1,
  width: 240,
  errorCorrectionLevel: "M",
  color: { dark: "#000000", light: "#ffffff" },
} satisfies QRCode.QRCodeToDataURLOptions;

/**
 * The portal around the device pages: map points of the caller's context, the public SCADA
 * registration (stored, then e-mailed to support through the durable notification queue),
 * the per-brand app download information and what the web client needs of the config.
 */
export function createPortalService(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  notifier: Pick<Notifier, "enqueue" | "deliverDue">;
  supportEmail: string;
  client: ClientConfig;
  enterprises: Pick<EnterpriseService, "deviceScope" | "requireList">;
}) {
  const { db, clock, notifier } = deps;

  /**
   * Every device the caller sees in a context, with its position and state. Personal: the
   * caller's own list. Enterprise: the lists the caller sees there (an admin both), or only
   * the list of `type`; a non-member, or a member asking for a list not theirs, is refused
   * like the enterprise lists refuse (NO_PERMISSION).
   */
  async function mapPoints(viewer: Viewer, ctx: { eid: number; type?: 1 | 2 }) {
    let points: MapPoint[];
    if (ctx.eid === 0) {
      const rows = await db
        .select({ ...pointColumns, name: deviceLinks.name })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(eq(deviceLinks.userId, viewer.userId));
      points = rows.map((r) => toPoint(r, 0, 0));
    } else if (ctx.type) {
      const type = ctx.type;
      await deps.enterprises.requireList(viewer, ctx.eid, type);
      const rows = await db
        .select({ ...pointColumns, name: enterpriseDevices.name })
        .from(enterpriseDevices)
        .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
        .where(and(eq(enterpriseDevices.enterpriseId, ctx.eid), eq(enterpriseDevices.type, type)));
      points = rows.map((r) => toPoint(r, ctx.eid, type));
    } else {
      const { scope } = await deps.enterprises.deviceScope(viewer, ctx.eid);
      const rows = await db
        .select({ ...pointColumns, name: scope.name, maintained: scope.maintained })
        .from(scope)
        .innerJoin(devices, eq(devices.id, scope.deviceId));
      points = rows.map((r) => toPoint(r, ctx.eid, r.maintained ? 2 : 1));
    }
    points.sort(byStateThenName);
    const located = points.filter((p) => p.lat !== null && p.lng !== null).length;
    return { list: points, total: points.length, located } satisfies MapPointsResult;
  }

  /**
   * Stores a SCADA registration and queues its e-mail to support in one transaction, so a
   * stored registration is always mailed (the queue retries) and a failed one is neither.
   * The form is public: besides the per-address rate limit of the route, one e-mail address
   * may register SCADA_LIMITS.perEmailDaily times a day (TOO_FREQUENT).
   */
  async function registerScada(
    input: ScadaRegistration,
    meta: { brand: Brand; lang: Lang; ip: string },
  ): Promise<ScadaRegistered> {
    const now = clock.now();
    const email = input.email.toLowerCase();

    const row = await db.transaction(async (tx) => {
      // One address's registrations are counted and stored one at a time, so parallel
      // submissions cannot pass the daily cap together (held until the commit).
      await tx.execute(sql`select pg_advisory_xact_lock(${SCADA_LOCK}, hashtext(${email}))`);
      const [{ recent }] = await tx
        .select({ recent: count() })
        .from(scadaRegistrations)
        .where(
          and(
            eq(scadaRegistrations.email, email),
            gt(scadaRegistrations.createdAt, new Date(now.getTime() - DAY_MS)),
          ),
        );
      if (recent >= SCADA_LIMITS.perEmailDaily) throw fail("TOO_FREQUENT");
      const notification = await notifier.enqueue(
        {
          channel: "email",
          recipient: deps.supportEmail,
          subject: scadaSubject(input, meta.brand),
          body: scadaBody(input, meta),
        },
        tx,
      );
      const [stored] = await tx
        .insert(scadaRegistrations)
        .values({
          company: input.company,
          contactName: input.contactName,
          countryCode: input.countryCode,
          phone: input.phone,
          email,
          projectName: input.projectName,
          deviceCount: input.deviceCount,
          description: input.description,
          oemId: meta.brand.id,
          language: meta.lang,
          ip: meta.ip,
          notificationId: notification.id,
          createdAt: now,
        })
        .returning({ id: scadaRegistrations.id });
      return stored;
    });
    // The queue's own wake-up can run before the commit; deliver now that the row is visible.
    notifier.deliverDue().catch((error) => deps.log.error({ err: error }, "scada e-mail"));
    return { id: row.id, replyWithinHours: SCADA_REPLY_HOURS };
  }

  async function scadaRegistrationList(page: number, pageSize: number) {
    const [list, [{ total }]] = await Promise.all([
      db
        .select()
        .from(scadaRegistrations)
        .orderBy(desc(scadaRegistrations.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db.select({ total: count() }).from(scadaRegistrations),
    ]);
    return { list: list.map(toRegistrationView), total };
  }

  // QR images depend only on the links: drawn once per brand and language.
  const downloads = new Map<string, Promise<AppDownloadInfo>>();

  /** SPEC §3 "Version info" / "Brand configuration" for one brand, with QR images. */
  function appDownload(brand: Brand, lang: Lang): Promise<AppDownloadInfo> {
    const key = `${brand.id}:${lang}`;
    let info = downloads.get(key);
    if (!info) {
      info = buildDownload(brand, lang);
      downloads.set(key, info);
      info.catch(() => downloads.delete(key));
    }
    return info;
  }

  async function buildDownload(brand: Brand, lang: Lang): Promise<AppDownloadInfo> {
    const release = appReleaseOf(brand, lang);
    const qr = (text: string) => QRCode.toDataURL(text, QR_OPTIONS);
    const [androidQr, iosQr, tvQr] = await Promise.all([
      qr(release.androidUrl),
      qr(release.iosUrl),
      qr(release.tvUrl),
    ]);
    return { ...release, androidQr, iosQr, tvQr };
  }

  return {
    mapPoints,
    registerScada,
    scadaRegistrationList,
    appDownload,
    clientConfig: (): ClientConfig => deps.client,
  };
}

function toRegistrationView(row: ScadaRegistrationRow): ScadaRegistrationView {
  return {
    id: row.id,
    company: row.company,
    contactName: row.contactName,
    countryCode: row.countryCode,
    phone: row.phone,
    email: row.email,
    projectName: row.projectName,
    deviceCount: row.deviceCount,
    description: row.description,
    oemid: row.oemId,
    language: row.language,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Support reads both languages; the subject names the brand and the company. */
function scadaSubject(input: ScadaRegistration, brand: Brand): string {
  return `[${brand.en.name}] SCADA registration / SCADA 注册申请: ${input.company}`;
}

function scadaBody(input: ScadaRegistration, meta: { brand: Brand; lang: Lang }): string {
  const language = meta.lang === "en" ? "English" : "中文";
  return [
    `A SCADA project was registered on ${brandWording(meta.brand, "en").name}. Please reply to the applicant by e-mail within ${SCADA_REPLY_HOURS} hours.`,
    `${brandWording(meta.brand, "cn").name} 收到一份 SCADA 项目注册申请，请在 ${SCADA_REPLY_HOURS} 小时内通过邮件回复申请人。`,
    "",
    `Company / 公司: ${input.company}`,
    `Contact / 联系人: ${input.contactName}`,
    `Phone / 电话: +${input.countryCode} ${input.phone}`,
    `E-mail / 邮箱: ${input.email}`,
    `Project / 项目: ${input.projectName}`,
    `Devices / 设备数量: ${input.deviceCount}`,
    `Language / 语言: ${language}`,
    "",
    "Description / 项目描述:",
    input.description,
  ].join("\n");
}

/**
 * The img-src source the browser needs for the map tiles (helmet's CSP), from the tile URL
 * template: its origin, with a {s} subdomain placeholder as a wildcard.
 */
export function tileImageSource(template: string): string {
  const match = /^(https?:\/\/)([^/?#]+)/.exec(template);
  if (!match) return "";
  // A CSP wildcard stands only for whole leading labels: "webrd0{s}.is.autonavi.com" and
  // "t{s}.tianditu.gov.cn" become "*.is.autonavi.com" and "*.tianditu.gov.cn".
  const host = match[2].replace(/^[^.]*\{s\}[^.]*/, "*");
  return `${match[1]}${host}`;
}

/** MAP_TILE_SUBDOMAINS as Leaflet's list: "t0,t1" → ["t0", "t1"], "1234" → ["1", …, "4"]. */
export function tileSubdomains(value: string): string[] {
  return value.includes(",") ? value.split(",") : [...value];
}
