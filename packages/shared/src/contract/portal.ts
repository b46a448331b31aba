import { type ListResult, tokenInfoQuery } from "../accounts.ts";
import {
  type AppDownloadInfo,
  appDownloadBody,
  type ClientConfig,
  type MapPointsResult,
  mapPointsBody,
  type ScadaRegistered,
  type ScadaRegistrationView,
  scadaRegisterForm,
} from "../portal.ts";
import { group, route } from "./route.ts";

/**
 * The portal around the device pages: cloud map points, the public SCADA registration, app
 * download and the client configuration; and the operator's list of SCADA registrations.
 */
export const portal = {
  ...group(
    { auth: "user", tags: ["portal"] },
    {
      mapPoints: route<MapPointsResult>()({
        method: "POST",
        path: "/api/v1/cloudmap/points",
        summary:
          "Every device of a context with its position and state (eid 0 personal; an enterprise's lists, or its type 1/2 list)",
        input: mapPointsBody,
      }),
      /** Refused with 507 after three a day from one e-mail, 429 when one address sends many. */
      scadaRegister: route<ScadaRegistered>()({
        method: "POST",
        path: "/api/common/scadaRegister",
        summary: "Registers a SCADA project (public); support replies by e-mail within 24 hours",
        input: scadaRegisterForm,
        auth: "none",
      }),
      appDownload: route<AppDownloadInfo>()({
        method: "POST",
        path: "/api/common/appDownload",
        summary:
          "App versions, download links and QR images of a brand (oemid, else the host's brand)",
        input: appDownloadBody,
        auth: "none",
      }),
      clientConfig: route<ClientConfig>()({
        method: "GET",
        path: "/api/common/clientConfig",
        summary: "Map tiles, the new-version link and the API documentation (public)",
        auth: "none",
      }),
    },
  ),
  ...group(
    { auth: "operator", tags: ["operator"] },
    {
      scadaRegistrations: route<ListResult<ScadaRegistrationView>>()({
        method: "GET",
        path: "/api/operator/v1/scadaRegistrations",
        summary: "SCADA registrations, newest first",
        input: tokenInfoQuery,
      }),
    },
  ),
};
