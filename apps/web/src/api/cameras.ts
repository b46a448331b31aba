import type {
  CameraAccountList,
  CameraAccountView,
  CameraAppKeyCheck,
  CameraBinding,
  cameraAccountAddBody,
  cameraAccountUpdateBody,
} from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";

export type { CameraAccountList, CameraAccountView, CameraBinding };

/** react-query keys of the camera accounts (the list, and per device its binding). */
export const cameraKeys = {
  all: ["cameras"] as const,
  list: ["cameras", "list"] as const,
  machine: (machineId: number) => ["cameras", "machine", machineId] as const,
};

/**
 * Camera cloud accounts (EZVIZ; the contract is the header of packages/shared/src/cameras.ts).
 * The Secret is sent on add / check / change and always comes back masked.
 */
export const camerasApi = {
  list: () => api.get<CameraAccountList>("/device/v1/ezviz/account"),
  /** The list plus the account bound to the device (ezviz_account_id, 0: none). */
  forMachine: (machineId: number) =>
    api.get<CameraAccountList>("/device/v1/ezviz/account", { machineId }),
  add: (body: z.output<typeof cameraAccountAddBody>) =>
    api.post<CameraAccountView>("/device/v1/ezviz/account", body),
  /** A blank or absent secret keeps the stored one. */
  update: (body: z.output<typeof cameraAccountUpdateBody>) =>
    api.post<CameraAccountView>("/user/updateEzvizAccount", body),
  remove: (id: number) => api.delete<null>("/device/v1/ezviz/account", { id }),
  /** Checks a key pair at EZVIZ without storing it. */
  checkAppKey: (body: { appKey: string; secret: string }) =>
    api.post<CameraAppKeyCheck>("/user/checkEzvizAppkey", body),
  /** Re-checks a stored account at EZVIZ (5 a day per account). */
  checkAccount: (id: number) => api.post<CameraAccountView>("/user/checkEzvizAccount", { id }),
  bind: (machineId: number, ezvizAccountId: number) =>
    api.post<CameraBinding>("/machine/changeEzvizAccount", { machineId, ezvizAccountId }),
  release: (machineId: number) =>
    api.post<CameraBinding>("/machine/releaseEzvizAccount", { machineId }),
};
