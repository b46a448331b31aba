import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { createCameraAccounts } from "./accounts.ts";
import { createCameraBindings } from "./bindings.ts";
import { createCameraChecks } from "./checks.ts";
import type { EzvizClient } from "./ezviz.ts";
import { createStoredAccounts } from "./views.ts";

export type CameraService = ReturnType<typeof createCameraService>;

/**
 * Camera cloud accounts (SPEC §3, §7): a user's own EZVIZ key pairs, checked at EZVIZ before
 * they are stored, re-checked on demand (5 per account per rolling day, SPEC §9), and bound
 * to devices by their Akey. The Secret leaves only towards EZVIZ; answers carry it masked.
 */
export function createCameraService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  ezviz: EzvizClient;
  /** The caller's identity on a personal device ("none" when it is not in their list). */
  roleOf: (userId: number, deviceId: number) => Promise<string>;
}) {
  const stored = createStoredAccounts(deps);
  const checks = createCameraChecks({ ...deps, stored });
  const bindings = createCameraBindings({ ...deps, stored });
  const accounts = createCameraAccounts({ ...deps, stored, checks, bindings });

  return {
    list: accounts.list,
    add: accounts.add,
    update: accounts.update,
    remove: accounts.remove,
    checkAppKey: checks.checkAppKey,
    checkAccount: checks.checkAccount,
    bind: bindings.bind,
    release: bindings.release,
    boundAccount: bindings.boundAccount,
  };
}
