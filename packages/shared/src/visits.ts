import { z } from "zod";
import { flagField, idField, optionalText, pageField } from "./fields.ts";
import { maskPhone } from "./phone.ts";

/**
 * Remote access (ARCHITECTURE "Remote access", SPEC §7 getValidVisitUrl / validVisitUrl /
 * `/eapi/web/c/machine/getVisitUrl`): visit URLs and the visit log. Wire names follow the
 * SPEC's neighbours (machineID on personal calls, eid + machineId on enterprise ones).
 */

/** A visit id: 26 characters of lower-case base32 (130 random bits), one DNS label. */
export const VISIT_ID_PATTERN = /^[a-z2-7]{26}$/;

export const visitIdField = z
  .string({ error: "v.visitId" })
  .trim()
  .regex(VISIT_ID_PATTERN, { error: "v.visitId" });

/** "host:port" (or "[v6]:port") of a target on the device's LAN. */
export const targetField = z
  .string({ error: "v.target" })
  .trim()
  .max(300, { error: "v.target" })
  .regex(/^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/, { error: "v.target" })
  .refine(
    (v) => {
      const port = Number(v.slice(v.lastIndexOf(":") + 1));
      return port >= 1 && port <= 65_535;
    },
    { error: "v.target" },
  );

/**
 * What a visit opens: the device's web UI, its screen (VNC, the viewer in Keyway's own page),
 * or TCP forwards (`keyway-agent forward`; a visit URL call with `target`).
 */
export const VISIT_KINDS = ["web", "screen", "tcp"] as const;
export type VisitKind = (typeof VISIT_KINDS)[number];

/** `kind` of the visit URL calls: "web" (default) or "screen". */
export const visitKindField = z.enum(["web", "screen"], { error: "v.visitKind" }).optional();

/**
 * POST /api/v1/audit/getValidVisitUrl (and /eapi/web/c/machine/getVisitUrl). `terminalID`
 * is accepted for the SPEC's sake; the visit is bound to the terminal of the caller's token.
 * `target` is for TCP forwards (keyway-agent forward); without it the visit opens the
 * device's own web UI (the agent's default target).
 */
export const visitUrlBody = z.object({
  machineID: idField,
  terminalID: optionalText(64),
  target: targetField.optional(),
  kind: visitKindField,
});

/** POST /api/enterprises/validVisitUrl. */
export const enterpriseVisitUrlBody = z.object({
  eid: idField,
  machineId: idField,
  target: targetField.optional(),
  kind: visitKindField,
});

/**
 * POST /eapi/web/c/machine/getVisitUrl: its payload is not shown in the SPEC; both spellings
 * of the device id are taken. Projects do not exist yet, so it answers as getValidVisitUrl.
 */
export const projectVisitUrlBody = z
  .object({
    machineID: idField.optional(),
    machineId: idField.optional(),
    id: idField.optional(),
    terminalID: optionalText(64),
    target: targetField.optional(),
    kind: visitKindField,
  })
  .refine((b) => b.machineID ?? b.machineId, { error: "v.id", path: ["machineId"] });

/** The answer of the visit URL calls. */
export interface VisitUrl {
  visit_id: string;
  /** Open this in a new tab: the device UI on its own host, `<visit-id>.visit.<host>`. */
  url: string;
  /** The same visit under `<PUBLIC_URL>/visit/<visit-id>/`, where wildcard DNS is missing. */
  path_url: string;
  /** The link must be opened before this (ISO); opening it once makes it a visit cookie. */
  expires_at: string;
  machine_id: number;
  /** The device's agent holds its tunnel (always true here: offline answers 10010101). */
  online: boolean;
  /** "host:port" the visit reaches on the device's LAN. */
  target: string;
  /** The caller's identity on the device (SPEC checkCloudServiceState). */
  role: string;
  /** When the caller's right ends (a visit time), null when it does not. */
  right_expires_at: string | null;
  kind: VisitKind;
  /**
   * The caller's member level is read-only: the relay drops every screen input and refuses
   * changing HTTP requests (docs/architecture/remote-access.md "View only").
   */
  view_only: boolean;
  /**
   * "screen" visits: the viewer's WebSocket (`wss://<host>/visit-screen/<id>?kw_ticket=T`),
   * opened once from Keyway's own page within expires_at. Absent for other kinds.
   */
  ws_url?: string;
  /** "accepted" when the person at the machine accepted it (on-site consent on), else "none". */
  consent: "none" | "accepted";
}

/** GET /api/device/v1/visits. */
export const visitListQuery = z.object({
  deviceId: idField,
  page: pageField.default(1),
  pageSize: z.coerce.number({ error: "v.page" }).int().min(1).max(100).default(6),
});

/** POST /api/device/v1/visits/end. */
export const visitEndBody = z.object({ visitId: visitIdField });

export const VISIT_STATES = ["running", "ended"] as const;
export type VisitState = (typeof VISIT_STATES)[number];

/** Why a visit ended. */
export const VISIT_END_REASONS = [
  /** Nothing went through it for a while (the tab was closed). */
  "idle",
  /** The device's Akey or a Bkey ended it. */
  "ended_by_owner",
  /** The visitor's right went: not bound any more, black-listed, member removed. */
  "rights_revoked",
  /** The visit time expired or was cleared (504). */
  "visit_time_expired",
  /** The device's cloud service was closed (04012301). */
  "cloud_closed",
  /** The person at the machine ended it (on-site consent). */
  "ended_on_site",
  /** The person at the machine refused it before it began. */
  "consent_refused",
  /** Nobody at the machine answered within CONSENT_TIMEOUT_MS. */
  "consent_timeout",
] as const;
export type VisitEndReason = (typeof VISIT_END_REASONS)[number];

/** One row of the visit log. Bytes are counted on the tunnel, each way. */
export interface VisitItem {
  visit_id: string;
  user_id: number | null;
  user_name: string;
  /** The visitor's phone or e-mail, masked. */
  account: string;
  terminal_name: string;
  /** "host:port" reached on the device's LAN (several, comma-separated, for TCP forwards). */
  target: string;
  started_at: string;
  ended_at: string | null;
  /** From the device to the visitor (downloads, pages). */
  bytes_in: number;
  /** From the visitor to the device (requests, uploads). */
  bytes_out: number;
  state: VisitState;
  end_reason: VisitEndReason | null;
  kind: VisitKind;
  view_only: boolean;
}

export interface VisitPage {
  list: VisitItem[];
  total: number;
}

// ---- Visit activity (kept VISIT_ACTIVITY_DAYS; no bodies, no query strings, no passwords) ----

/**
 * One thing a visitor did: an HTTP request through the relay (method, path without its
 * query, status, bytes), or a screen (VNC) session (start, end, view only or control, bytes,
 * input events passed and dropped).
 */
export interface VisitActivityItem {
  id: number;
  visit_id: string;
  kind: "http" | "screen";
  at: string;
  /** Screen sessions: when it closed (null while open); HTTP: when the answer ended. */
  ended_at: string | null;
  /** HTTP only ("" for screen sessions). */
  method: string;
  /** HTTP only: the path, without the query string. */
  path: string;
  /** HTTP status; 0 when the answer never came; for screen sessions 0. */
  status: number;
  bytes_in: number;
  bytes_out: number;
  view_only: boolean;
  /** Screen sessions: key, pointer and clipboard messages passed to the device. */
  input_events: number;
  /** Screen sessions: input messages the relay dropped (view only). */
  dropped_events: number;
  /**
   * HTTP: how many identical requests (method, path, status, view only) the row stands for,
   * made within a quarter of a second of each other; `at` is the first's arrival, `ended_at`
   * the last's answer, the bytes their sum. 1 for a single request and a screen session.
   */
  requests: number;
}

export interface VisitActivityPage {
  list: VisitActivityItem[];
  total: number;
}

/** GET /api/device/v1/visits/activity: a device's visit activity (one visit's with visitId). */
export const visitActivityQuery = z.object({
  deviceId: idField,
  visitId: visitIdField.optional(),
  page: pageField.default(1),
  pageSize: z.coerce.number({ error: "v.page" }).int().min(1).max(500).default(50),
});

/** GET /api/device/v1/visits/activity.csv: the same rows as CSV (text/csv, UTF-8 with BOM). */
export const visitActivityCsvQuery = z.object({
  deviceId: idField,
  visitId: visitIdField.optional(),
  lang: z.enum(["zh", "en"]).optional(),
});

// ---- Remote-access settings of a device (the Akey sets them) ----

export interface RemoteSettings {
  machine_id: number;
  /** A visit starts only after someone at the machine accepts it (off by default). */
  onsite_consent: boolean;
  /** Read-only visitors may still open the device page's WebSockets (off by default). */
  readonly_websocket: boolean;
  /** The device's agent offers its screen (VNC) now. */
  screen: boolean;
  /** The device's agent can ask for on-site consent (its hello lists "control"). */
  consent_supported: boolean;
  /** The caller may change these (the Akey). */
  can_edit: boolean;
}

/** GET /api/device/v1/remoteSettings (Akey, Bkeys). */
export const remoteSettingsQuery = z.object({ deviceId: idField });

/** POST /api/device/v1/remoteSettings (Akey only). */
export const remoteSettingsBody = z.object({
  deviceId: idField,
  // Form posts (the web app's) send 1/0: flagField takes those, true/false and JSON booleans.
  onsite_consent: flagField.optional(),
  readonly_websocket: flagField.optional(),
});

/** An e-mail with most of its local part hidden: "de***@keyway.local". */
export function maskEmail(email: string): string {
  const at = email.indexOf("@");
  if (at < 1) return "***";
  const local = email.slice(0, at);
  return `${local.slice(0, Math.min(2, local.length - 1) || 1)}***${email.slice(at)}`;
}

/** What the visit log shows of an account: the phone masked, else the e-mail masked. */
export function maskAccount(account: { phone: string | null; email: string | null }): string {
  if (account.phone) return maskPhone(account.phone);
  if (account.email) return maskEmail(account.email);
  return "";
}
