import type { Machine } from "@keyway/shared";
import { useQueries, useQuery } from "@tanstack/react-query";
import { devicesApi } from "../../api/devices.ts";
import { enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import type { EnterpriseInfo } from "../../store/app.ts";

/** The device lists the viewer sees in the context (the filter's choices). */
export function useContextDevices(context: EnterpriseInfo) {
  const eid = context.eid;
  const types: (1 | 2)[] =
    eid === 0
      ? []
      : context.isAdmin
        ? [1, 2]
        : (context.kinds ?? []).map((kind) => (kind === "maintenance" ? 2 : 1));
  const personal = useQuery({
    queryKey: queryKeys.devices({}),
    queryFn: () => devicesApi.select({}),
    enabled: eid === 0,
    meta: { silent: true },
  });
  const enterprise = useQueries({
    queries: types.map((type) => ({
      queryKey: queryKeys.enterpriseDevices({ eid, type }),
      queryFn: () => enterprisesApi.deviceList({ eid, type }),
      meta: { silent: true },
    })),
  });
  const lists: Machine[][] =
    eid === 0 ? [personal.data?.list ?? []] : enterprise.map((q) => q.data?.list ?? []);
  const seen = new Map<string, Machine>();
  for (const list of lists) for (const m of list) seen.set(m.machine_code, m);
  return [...seen.values()];
}
