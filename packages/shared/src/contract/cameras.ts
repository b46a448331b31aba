import {
  type CameraAccountList,
  type CameraAccountView,
  type CameraAppKeyCheck,
  type CameraBinding,
  cameraAccountAddBody,
  cameraAccountCheckBody,
  cameraAccountIdBody,
  cameraAccountListQuery,
  cameraAccountUpdateBody,
  cameraAppKeyCheckBody,
  cameraBindBody,
  cameraReleaseBody,
} from "../cameras.ts";
import { group, route } from "./route.ts";

/**
 * SPEC §7 camera account calls (EZVIZ; user, device and machine paths). The Secret goes in,
 * never out: every answer carries it masked.
 */
export const cameras = group(
  { auth: "user", tags: ["cameras"] },
  {
    list: route<CameraAccountList>()({
      method: "GET",
      path: "/api/device/v1/ezviz/account",
      summary: "The caller's camera accounts (Secret masked); with machineId also its binding",
      input: cameraAccountListQuery,
    }),
    add: route<CameraAccountView>()({
      method: "POST",
      path: "/api/device/v1/ezviz/account",
      summary: "Adds a camera account after EZVIZ accepted its AppKey and Secret",
      input: cameraAccountAddBody,
    }),
    // The id may come in the body or, for clients that send no DELETE body, the query.
    remove: route()({
      method: "DELETE",
      path: "/api/device/v1/ezviz/account",
      summary: "Deletes a camera account; devices bound to it are released (id in body or query)",
      input: cameraAccountIdBody,
      bodyOrQuery: true,
    }),
    update: route<CameraAccountView>()({
      method: "POST",
      path: "/api/user/updateEzvizAccount",
      summary: "Edits a camera account (a blank Secret keeps the stored one)",
      input: cameraAccountUpdateBody,
    }),
    checkAppKey: route<CameraAppKeyCheck>()({
      method: "POST",
      path: "/api/user/checkEzvizAppkey",
      summary: "Checks an AppKey and Secret at EZVIZ without storing them",
      input: cameraAppKeyCheckBody,
    }),
    checkAccount: route<CameraAccountView>()({
      method: "POST",
      path: "/api/user/checkEzvizAccount",
      summary: "Re-checks a stored camera account at EZVIZ (the default without id; 5 a day)",
      input: cameraAccountCheckBody,
    }),
    bind: route<CameraBinding>()({
      method: "POST",
      path: "/api/machine/changeEzvizAccount",
      summary: "Binds one of the caller's camera accounts to a device (Akey)",
      input: cameraBindBody,
    }),
    release: route<CameraBinding>()({
      method: "POST",
      path: "/api/machine/releaseEzvizAccount",
      summary: "Releases a device's camera account (Akey)",
      input: cameraReleaseBody,
    }),
  },
);
