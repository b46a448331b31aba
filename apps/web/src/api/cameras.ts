import type {
  CameraAccountList,
  CameraAccountView,
  CameraBinding,
  ParsedInputOf,
} from "@keyway/shared";
import { API } from "@keyway/shared";
import { request } from "./client.ts";

export type { CameraAccountList, CameraAccountView, CameraBinding };

const c = API.cameras;

/** react-query keys of the camera accounts (the list, and per device its binding). */
export const cameraKeys = {
  all: ["cameras"] as const,
  list: ["cameras", "list"] as const,
  machine: (machineId: number) => ["cameras", "machine", machineId] as const,
};

/**
 * Camera cloud accounts (EZVIZ; packages/shared/src/contract/cameras.ts). The Secret is sent
 * on add / check / change and always comes back masked.
 */
export const camerasApi = {
  list: () => request(c.list, {}),
  /** The list plus the account bound to the device (ezviz_account_id, 0: none). */
  forMachine: (machineId: number) => request(c.list, { machineId }),
  add: (body: ParsedInputOf<typeof c.add>) => request(c.add, body),
  /** A blank or absent secret keeps the stored one. */
  update: (body: ParsedInputOf<typeof c.update>) => request(c.update, body),
  remove: (id: number) => request(c.remove, { id }),
  /** Checks a key pair at EZVIZ without storing it. */
  checkAppKey: (body: { appKey: string; secret: string }) => request(c.checkAppKey, body),
  /** Re-checks a stored account at EZVIZ (5 a day per account). */
  checkAccount: (id: number) => request(c.checkAccount, { id }),
  bind: (machineId: number, ezvizAccountId: number) =>
    request(c.bind, { machineId, ezvizAccountId }),
  release: (machineId: number) => request(c.release, { machineId }),
};
