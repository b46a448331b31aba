import {
  enterpriseVisitUrlBody,
  projectVisitUrlBody,
  type VisitItem,
  type VisitPage,
  type VisitUrl,
  visitEndBody,
  visitListQuery,
  visitUrlBody,
} from "../visits.ts";
import { group, route } from "./route.ts";

/**
 * Remote access (SPEC §7 getValidVisitUrl, enterprises/validVisitUrl, eapi
 * machine/getVisitUrl) and a device's visit log (docs/architecture/remote-access.md). The
 * relay and the TCP forward's WebSocket are not envelope calls and stay outside.
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
  },
);
