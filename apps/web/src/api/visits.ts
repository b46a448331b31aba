import {
  API,
  type VisitEndReason,
  type VisitItem,
  type VisitPage,
  type VisitState,
  type VisitUrl,
} from "@keyway/shared";
import { request } from "./client.ts";

export type { VisitEndReason, VisitItem, VisitPage, VisitState, VisitUrl };

/** The visit log pages by 6, like the other detail lists (SPEC §9). */
export const VISIT_PAGE_SIZE = 6;

/**
 * Remote access (SPEC §7 getValidVisitUrl / validVisitUrl) and a device's visit log
 * (packages/shared/src/contract/visits.ts).
 */
export const visitsApi = {
  /** A one-time URL opening a personal device's own web UI (its right is checked now). */
  personalUrl: (machineID: number, terminalID: string) =>
    request(API.visits.getValidVisitUrl, { machineID, terminalID }),
  /** The same for a device of an enterprise context. */
  enterpriseUrl: (eid: number, machineId: number) =>
    request(API.visits.validVisitUrl, { eid, machineId }),
  /** The same for a project's machine (only while the project's enable_get_visit_url is on). */
  projectUrl: (projectId: number, machineId: number) =>
    request(API.visits.getVisitUrl, { id: projectId, machineId }),
  /** The visits of a device, newest first (its Akey and Bkeys; others get 04012201). */
  list: (deviceId: number, page: number, pageSize: number = VISIT_PAGE_SIZE) =>
    request(API.visits.list, { deviceId, page, pageSize }),
  /** Ends a running visit: its streams are cut at once. */
  end: (visitId: string) => request(API.visits.end, { visitId }),
};
