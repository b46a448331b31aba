import {
  API,
  type AppDownloadInfo,
  type ClientConfig,
  type MapPoint,
  type MapPointsResult,
  type ScadaRegistration,
} from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { request } from "./client.ts";

export type { AppDownloadInfo, ClientConfig, MapPoint, MapPointsResult };

/** The map's context: personal (eid 0) or an enterprise, optionally one of its lists. */
export interface MapQuery {
  eid: number;
  type?: 1 | 2;
}

/** Portal calls (packages/shared/src/contract/portal.ts). */
export const portalApi = {
  mapPoints: (query: MapQuery) => request(API.portal.mapPoints, { ...query }),
  /** Public; refused with 507 after three a day from one e-mail, 429 when one address sends many. */
  scadaRegister: (form: ScadaRegistration) => request(API.portal.scadaRegister, { ...form }),
  /** Public; the brand's versions, links and QR images. */
  appDownload: (oemid: string) => request(API.portal.appDownload, { oemid }),
  clientConfig: () => request(API.portal.clientConfig),
};

export const portalKeys = {
  mapPoints: (query: MapQuery) => ["portal", "map", query.eid, query.type ?? 0] as const,
  appDownload: (oemid: string, lang: string) => ["portal", "appDownload", oemid, lang] as const,
  clientConfig: ["portal", "clientConfig"] as const,
};

/** What the server lets the client know of its configuration; fetched once per session. */
export function useClientConfig() {
  return useQuery({
    queryKey: portalKeys.clientConfig,
    queryFn: portalApi.clientConfig,
    staleTime: Number.POSITIVE_INFINITY,
    meta: { silent: true },
  });
}
