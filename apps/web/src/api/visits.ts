import type { VisitEndReason, VisitItem, VisitPage, VisitState, VisitUrl } from "@keyway/shared";
import { api, eapi } from "./client.ts";

export type { VisitEndReason, VisitItem, VisitPage, VisitState, VisitUrl };

/** The visit log pages by 6, like the other detail lists (SPEC §9). */
export const VISIT_PAGE_SIZE = 6;

/** Remote access (SPEC §7 getValidVisitUrl / validVisitUrl) and a device's visit log. */
export const visitsApi = {
  /** A one-time URL opening a personal device's own web UI (its right is checked now). */
  personalUrl: (machineID: number, terminalID: string) =>
    api.post<VisitUrl>("/v1/audit/getValidVisitUrl", { machineID, terminalID }),
  /** The same for a device of an enterprise context. */
  enterpriseUrl: (eid: number, machineId: number) =>
    api.post<VisitUrl>("/enterprises/validVisitUrl", { eid, machineId }),
  /** The same for a project's machine (only while the project's enable_get_visit_url is on). */
  projectUrl: (projectId: number, machineId: number) =>
    eapi.post<VisitUrl>("/web/c/machine/getVisitUrl", { id: projectId, machineId }),
  /** The visits of a device, newest first (its Akey and Bkeys; others get 04012201). */
  list: (deviceId: number, page: number, pageSize: number = VISIT_PAGE_SIZE) =>
    api.get<VisitPage>("/device/v1/visits", { deviceId, page, pageSize }),
  /** Ends a running visit: its streams are cut at once. */
  end: (visitId: string) => api.post<VisitItem>("/device/v1/visits/end", { visitId }),
};
