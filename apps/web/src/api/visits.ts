import {
  API,
  type Envelope,
  isSuccess,
  REQUEST_TIMEOUT_MS,
  type RemoteSettings,
  type VisitActivityItem,
  type VisitActivityPage,
  type VisitEndReason,
  type VisitItem,
  type VisitKind,
  type VisitPage,
  type VisitState,
  type VisitUrl,
} from "@keyway/shared";
import type { AxiosError } from "axios";
import { CONSENT_WAIT_MS } from "../lib/visit.ts";
import { http, hwcodeMessage, request, transportMessage } from "./client.ts";
import { ApiError } from "./errors.ts";

export type {
  RemoteSettings,
  VisitActivityItem,
  VisitActivityPage,
  VisitEndReason,
  VisitItem,
  VisitKind,
  VisitPage,
  VisitState,
  VisitUrl,
};

/** The visit log pages by 6, like the other detail lists (SPEC §9). */
export const VISIT_PAGE_SIZE = 6;
/** A visit's activity pages by 20 in the drawer. */
export const ACTIVITY_PAGE_SIZE = 20;

/**
 * A visit URL call with on-site consent on is held by the server until someone at the
 * machine answers (at most CONSENT_WAIT_MS): it gets that on top of the usual timeout.
 */
const VISIT_URL_TIMEOUT_MS = CONSENT_WAIT_MS + REQUEST_TIMEOUT_MS;
const held = { timeout: VISIT_URL_TIMEOUT_MS };

/** Which visit URL call: a personal device, an enterprise's, or a project's machine. */
export interface VisitScope {
  eid?: number;
  projectId?: number;
}

/**
 * Remote access (SPEC §7 getValidVisitUrl / validVisitUrl) and a device's visit log
 * (packages/shared/src/contract/visits.ts).
 */
export const visitsApi = {
  /** A one-time URL opening a personal device's own web UI (its right is checked now). */
  personalUrl: (machineID: number, terminalID: string, kind: VisitKind = "web") =>
    request(API.visits.getValidVisitUrl, { machineID, terminalID, kind: asCallKind(kind) }, held),
  /** The same for a device of an enterprise context. */
  enterpriseUrl: (eid: number, machineId: number, kind: VisitKind = "web") =>
    request(API.visits.validVisitUrl, { eid, machineId, kind: asCallKind(kind) }, held),
  /** The same for a project's machine (only while the project's enable_get_visit_url is on). */
  projectUrl: (projectId: number, machineId: number, kind: VisitKind = "web") =>
    request(API.visits.getVisitUrl, { id: projectId, machineId, kind: asCallKind(kind) }, held),
  /** The visit URL call of a scope (personal without eid and projectId). */
  urlFor: (machineId: number, scope: VisitScope, terminalID: string, kind: VisitKind) =>
    scope.projectId !== undefined
      ? visitsApi.projectUrl(scope.projectId, machineId, kind)
      : scope.eid !== undefined
        ? visitsApi.enterpriseUrl(scope.eid, machineId, kind)
        : visitsApi.personalUrl(machineId, terminalID, kind),
  /** The visits of a device, newest first (its Akey and Bkeys; others get 04012201). */
  list: (deviceId: number, page: number, pageSize: number = VISIT_PAGE_SIZE) =>
    request(API.visits.list, { deviceId, page, pageSize }),
  /** Ends a running visit: its streams are cut at once. */
  end: (visitId: string) => request(API.visits.end, { visitId }),
  /** What visitors did (one visit's with visitId): requests and screen sessions, newest first. */
  activity: (query: { deviceId: number; visitId?: string; page: number; pageSize?: number }) =>
    request(API.visits.activity, {
      deviceId: query.deviceId,
      visitId: query.visitId,
      page: query.page,
      pageSize: query.pageSize ?? ACTIVITY_PAGE_SIZE,
    }),
  /** On-site consent and view-only WebSockets of a device (Akey, Bkeys). */
  remoteSettings: (deviceId: number) => request(API.visits.remoteSettings, { deviceId }),
  /** Changes them (the Akey). */
  setRemoteSettings: (body: {
    deviceId: number;
    onsite_consent?: boolean;
    readonly_websocket?: boolean;
  }) => request(API.visits.setRemoteSettings, body),
  activityCsv,
};

/** "web" is the calls' default: left out, so that a server before issue 20 still answers. */
function asCallKind(kind: VisitKind): "screen" | undefined {
  return kind === "screen" ? "screen" : undefined;
}

/** The CSV of a device's (or one visit's) activity: not an envelope call. */
export const ACTIVITY_CSV_PATH = "/device/v1/visits/activity.csv";

/**
 * GET /api/device/v1/visits/activity.csv as a file: the body with its name from
 * Content-Disposition (a refusal comes back as an envelope and is thrown as ApiError).
 */
async function activityCsv(query: {
  deviceId: number;
  visitId?: string;
  lang: "zh" | "en";
}): Promise<{ blob: Blob; filename: string }> {
  const params: Record<string, string | number> = { deviceId: query.deviceId, lang: query.lang };
  if (query.visitId) params.visitId = query.visitId;
  let response: { data: Blob; headers: Record<string, unknown> };
  try {
    response = await http.get<Blob>(ACTIVITY_CSV_PATH, { params, responseType: "blob" });
  } catch (error) {
    const e = error as AxiosError<Blob>;
    const body = e.response?.data;
    const envelope = body instanceof Blob ? await envelopeOf(body) : null;
    if (envelope && !isSuccess(envelope)) throw refusal(envelope);
    throw new ApiError(transportMessage(e.response?.status ?? null), "transport", null);
  }
  const type = String(response.headers["content-type"] ?? "");
  if (type.includes("json")) {
    const envelope = await envelopeOf(response.data);
    if (envelope && !isSuccess(envelope)) throw refusal(envelope);
  }
  const disposition = String(response.headers["content-disposition"] ?? "");
  const named = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  const fallback = `visit-activity-${query.deviceId}${query.visitId ? `-${query.visitId}` : ""}.csv`;
  return { blob: response.data, filename: named ? safeDecode(named) : fallback };
}

async function envelopeOf(blob: Blob): Promise<Envelope | null> {
  try {
    const value = JSON.parse(await blob.text()) as unknown;
    return typeof value === "object" && value !== null && "hwcode" in value
      ? (value as Envelope)
      : null;
  } catch {
    return null;
  }
}

function refusal(envelope: Envelope): ApiError {
  const message = envelope.msg || hwcodeMessage(envelope.hwcode);
  return new ApiError(message, "business", envelope.hwcode);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
