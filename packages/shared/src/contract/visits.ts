import {
  enterpriseVisitUrlBody,
  projectVisitUrlBody,
  type RemoteSettings,
  remoteSettingsBody,
  remoteSettingsQuery,
  type VisitActivityPage,
  type VisitItem,
  type VisitPage,
  type VisitUrl,
  visitActivityQuery,
  visitEndBody,
  visitListQuery,
  visitUrlBody,
} from "../visits.ts";
import { group, route } from "./route.ts";

/**
 * Remote access (SPEC §7 getValidVisitUrl, enterprises/validVisitUrl, eapi
 * machine/getVisitUrl) and a device's visit log (docs/architecture/remote-access.md). The
 * relay, the TCP forward's and the screen's WebSockets and the activity CSV
 * (`GET /api/device/v1/visits/activity.csv`, visitActivityCsvQuery) are not envelope calls
 * and stay outside.
 */
export const visits = group(
  { auth: "user", tags: ["visits"] },
  {
    getValidVisitUrl: route<VisitUrl>()({
      method: "POST",
      path: "/api/v1/audit/getValidVisitUrl",
      summary: "A short-lived URL opening the device's web UI (personal devices)",
      input: visitUrlBody,
    }),
    validVisitUrl: route<VisitUrl>()({
      method: "POST",
      path: "/api/enterprises/validVisitUrl",
      summary: "A short-lived URL opening an enterprise device's web UI",
      input: enterpriseVisitUrlBody,
    }),
    getVisitUrl: route<VisitUrl>()({
      method: "POST",
      path: "/eapi/web/c/machine/getVisitUrl",
      summary: "A short-lived URL opening a project machine's web UI",
      input: projectVisitUrlBody,
    }),
    list: route<VisitPage>()({
      method: "GET",
      path: "/api/device/v1/visits",
      summary: "The visit log of a device (Akey, Bkeys)",
      input: visitListQuery,
    }),
    end: route<VisitItem>()({
      method: "POST",
      path: "/api/device/v1/visits/end",
      summary: "End a running visit (Akey, Bkeys)",
      input: visitEndBody,
    }),
    activity: route<VisitActivityPage>()({
      method: "GET",
      path: "/api/device/v1/visits/activity",
      summary: "What visitors did: HTTP requests and screen sessions, newest first (Akey, Bkeys)",
      input: visitActivityQuery,
    }),
    remoteSettings: route<RemoteSettings>()({
      method: "GET",
      path: "/api/device/v1/remoteSettings",
      summary: "On-site consent and view-only WebSockets of a device, and what its agent offers",
      input: remoteSettingsQuery,
    }),
    setRemoteSettings: route<RemoteSettings>()({
      method: "POST",
      path: "/api/device/v1/remoteSettings",
      summary: "Turn on-site consent or view-only WebSockets on or off (Akey only)",
      input: remoteSettingsBody,
    }),
  },
);
