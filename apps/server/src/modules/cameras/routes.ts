import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import type { CameraService } from "./service.ts";

/**
 * Calls that present a key pair to EZVIZ: a guessing oracle, so limited per address. A check
 * that does not reach EZVIZ is not counted against an account's 5 a day: limited here too.
 */
const EZVIZ_LIMIT = { config: { rateLimit: { max: 20, timeWindow: "1 minute" } } };

/** SPEC §7 camera account calls (packages/shared/src/contract/cameras.ts). */
export function cameraRoutes(serve: Serve, { cameras }: { cameras: CameraService }) {
  const c = API.cameras;

  serve(c.list, ({ caller, input }) => cameras.list(caller.userId, input.machineId));
  serve(c.add, ({ caller, input }) => cameras.add(caller.userId, input), EZVIZ_LIMIT);
  serve(c.remove, ({ caller, input }) => cameras.remove(caller.userId, input.id));
  serve(
    c.update,
    ({ caller, input: { id, ...input } }) => cameras.update(caller.userId, id, input),
    EZVIZ_LIMIT,
  );
  serve(c.checkAppKey, ({ input }) => cameras.checkAppKey(input.appKey, input.secret), EZVIZ_LIMIT);
  serve(
    c.checkAccount,
    ({ caller, input }) => cameras.checkAccount(caller.userId, input.id),
    EZVIZ_LIMIT,
  );
  serve(c.bind, ({ caller, input }) =>
    cameras.bind(caller.userId, input.machineId, input.ezvizAccountId),
  );
  serve(c.release, ({ caller, input }) => cameras.release(caller.userId, input.machineId));
}
