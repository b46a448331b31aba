import { z } from "zod";
import { type Brand, brandLogo, brandWording } from "./brands.ts";
import { CLIENT_LOWEST_BY_BRAND, CLIENT_VERSIONS, DEVICE_MACHINE_PORT } from "./constants.ts";
import {
  checkPhone,
  countryCodeField,
  emailField,
  idOrZeroField,
  optionalText,
  personNameField,
  phoneField,
} from "./fields.ts";
import type { Lang } from "./lang.ts";

/**
 * The portal calls: cloud map points, SCADA registration, app download and the client
 * configuration. Paths → request body → answer (hwdata):
 *   POST /api/v1/cloudmap/points     mapPointsBody      { list: MapPoint[], total, located }
 *   POST /api/common/scadaRegister   scadaRegisterForm  ScadaRegistered   (public, rate limited)
 *   POST /api/common/appDownload     appDownloadBody    AppDownloadInfo   (public)
 *   GET  /api/common/clientConfig    —                  ClientConfig      (public)
 *   GET  /api/operator/v1/scadaRegistrations  page, pageSize  { list, total } (operator)
 */

// ---- Cloud map ----

/**
 * The context of the map: personal (eid 0), or an enterprise — every device of the lists the
 * caller sees there, or only its type 1 (enterprise) / 2 (maintenance) list.
 */
export const mapPointsBody = z.object({
  eid: idOrZeroField.default(0),
  type: z.coerce
    .number({ error: "v.id" })
    .int({ error: "v.id" })
    .min(1, { error: "v.id" })
    .max(2, { error: "v.id" })
    .optional(),
});

export interface MapPoint {
  machine_id: number;
  machine_code: string;
  machine_name: string;
  /** Null until the device reported (or was given) a position. */
  lat: number | null;
  lng: number | null;
  address: string;
  /** gps | base | ip | manual */
  location_way: string;
  online: boolean;
  state: 0 | 1;
  eid: number;
  /** 0 personal, 1 enterprise list, 2 maintenance list. */
  type: 0 | 1 | 2;
}

export interface MapPointsResult {
  list: MapPoint[];
  total: number;
  /** How many of them have a position (the others are listed beside the map only). */
  located: number;
}

// ---- SCADA registration ----

/** Support's answer time promised on the confirmation (SPEC §2 "SCADA registration form"). */
export const SCADA_REPLY_HOURS = 24;
export const SCADA_LIMITS = {
  company: 60,
  projectName: 40,
  description: 1000,
  deviceCount: { min: 1, max: 1000 },
  /** Registrations accepted per e-mail address per day (the form is public). */
  perEmailDaily: 3,
} as const;

const requiredText = (max: number) =>
  z.coerce
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(max, { error: "v.text" });

/** The SCADA registration form, checked the same way in the browser and on the server. */
export const scadaRegisterForm = z
  .object({
    company: requiredText(SCADA_LIMITS.company),
    contactName: personNameField,
    countryCode: countryCodeField,
    phone: phoneField,
    email: emailField,
    projectName: requiredText(SCADA_LIMITS.projectName),
    deviceCount: z.coerce
      .number({ error: "v.count" })
      .int({ error: "v.count" })
      .min(SCADA_LIMITS.deviceCount.min, { error: "v.count" })
      .max(SCADA_LIMITS.deviceCount.max, { error: "v.count" }),
    description: requiredText(SCADA_LIMITS.description),
    /** The brand the form was sent from (defaults to the host's). */
    oemid: optionalText(32),
  })
  .superRefine((v, ctx) => checkPhone(v, ctx));

export type ScadaRegistration = z.output<typeof scadaRegisterForm>;

export interface ScadaRegistered {
  id: number;
  /** Support answers by e-mail within this many hours. */
  replyWithinHours: number;
}

export interface ScadaRegistrationView {
  id: number;
  company: string;
  contactName: string;
  countryCode: string;
  phone: string;
  email: string;
  projectName: string;
  deviceCount: number;
  description: string;
  oemid: string;
  language: Lang;
  createdAt: string;
}

// ---- App download ----

/** Optional: the app may post nothing at all. */
export const appDownloadBody = z.object({ oemid: optionalText(32) }).nullish();

/** SPEC §3 "Version info" and "Brand configuration": one brand's apps, links and QR images. */
export interface AppDownloadInfo {
  oemid: string;
  OemName: string;
  OemTitle: string;
  /** Web client version. */
  version: string;
  androidVersion: string;
  iosVersion: string;
  lowestVersion: string;
  tvVersion: string;
  /** The brand's website. */
  url: string;
  /** Where the brand's devices connect, and on which port (SPEC §9: 8000). */
  machineURL: string;
  machinePort: number;
  /** The brand's logo (an SVG data URL). */
  logo: string;
  /** The page footer and the subject of the brand's e-mails, in the answer's language. */
  footer: string;
  emailSubject: string;
  androidUrl: string;
  iosUrl: string;
  tvUrl: string;
  /** QR images (PNG data URLs) of the three links. */
  androidQr: string;
  iosQr: string;
  tvQr: string;
}

/** The versions and links of a brand (QR images are drawn by the server from the links). */
export function appReleaseOf(
  brand: Brand,
  lang: Lang,
): Omit<AppDownloadInfo, "androidQr" | "iosQr" | "tvQr"> {
  const wording = brandWording(brand, lang);
  return {
    oemid: brand.id,
    OemName: wording.name,
    OemTitle: wording.title,
    version: CLIENT_VERSIONS.web,
    androidVersion: CLIENT_VERSIONS.mobile,
    iosVersion: CLIENT_VERSIONS.mobile,
    lowestVersion: CLIENT_LOWEST_BY_BRAND[brand.id] ?? CLIENT_VERSIONS.mobileLowest,
    tvVersion: CLIENT_VERSIONS.tv,
    url: brand.website,
    machineURL: brand.machineUrl,
    machinePort: DEVICE_MACHINE_PORT,
    logo: brandLogo(brand),
    footer: wording.footer,
    emailSubject: wording.emailSubject,
    androidUrl: brand.app.android,
    iosUrl: brand.app.ios,
    tvUrl: `${brand.website}/download/tv`,
  };
}

// ---- Client configuration ----

/** What the web client needs of the server's configuration. */
export interface ClientConfig {
  /** Leaflet tile URL template ({s}, {z}, {x}, {y}). */
  mapTileUrl: string;
  mapTileAttribution: string;
  /** What {s} in the tile URLs stands for (MAP_TILE_SUBDOMAINS). */
  mapTileSubdomains: string[];
  /** A transparent layer over the tiles (Tianditu's labels); null: none. */
  mapTileOverlayUrl: string | null;
  /** The tiles' datum: gcj02 shifts WGS-84 device positions onto AMap-style tiles. */
  mapTileCrs: "wgs84" | "gcj02";
  /** The header's link to the new product version; null hides it. */
  newVersionUrl: string | null;
  /** Where the API documentation is served. */
  apiDocUrl: string;
  /**
   * VISIT_DOMAIN: visit hosts on a registrable domain of their own, which the operator made
   * resolve; visits then always open there. Null: `<id>.visit.<host>` or the path form.
   */
  visitDomain: string | null;
}
