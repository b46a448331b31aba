import type { AlarmRights } from "@keyway/shared";
import type { QueryClient } from "@tanstack/react-query";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";

/**
 * Where the user may confirm a device's alarms: the context (eid) the device is seen in and
 * the server's `rights.confirm` from the device's alarm list — the rule the device drawer
 * and the phone's alarm list already follow. null: not known yet; false: may not.
 */
export type ConfirmRight = { eid: number } | false | null;

/** The first context the device is seen in, and whether the user may confirm its alarms there. */
export async function rightsOf(
  queryClient: QueryClient,
  deviceCode: string,
  eids: number[],
): Promise<ConfirmRight> {
  for (const eid of eids) {
    try {
      // The device drawer's query (same key): its rights come with its alarm list.
      const result = await queryClient.fetchQuery({
        queryKey: queryKeys.deviceAlarms(deviceCode, 1, eid),
        queryFn: () => alarmsApi.deviceAlarms({ deviceCode, eid }, 1),
        meta: { silent: true },
      });
      const rights: AlarmRights | undefined = result.rights;
      return rights?.confirm ? { eid } : false;
    } catch {
      // Not in this context: the next one.
    }
  }
  return false;
}
