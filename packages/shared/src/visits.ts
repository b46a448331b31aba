import { z } from "zod";
import { idField, optionalText, pageField } from "./fields.ts";
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
 * POST /api/v1/audit/getValidVisitUrl (and /eapi/web/c/machine/getVisitUrl). `terminalID`
 * is accepted for the SPEC's sake; the visit is bound to the terminal of the caller's token.
 * `target` is for TCP forwards (keyway-agent forward); without it the visit opens the
 * device's own web UI (the agent's default target).
 */
export const visitUrlBody = z.object({
  machineID: idField,
  terminalID: optionalText(64),
  target: targetField.optional(),
});

/** POST /api/enterprises/validVisitUrl. */
export const enterpriseVisitUrlBody = z.object({
  eid: idField,
  machineId: idField,
  target: targetField.optional(),
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
}

export interface VisitPage {
  list: VisitItem[];
  total: number;
}

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
