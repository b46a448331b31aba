import { type QueryKey, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { toStateMap } from "../features/device/machine.ts";
import { hasToken } from "../lib/session.ts";
import { useAppStore } from "../store/app.ts";
import { devicesApi } from "./devices.ts";
import { enterprisesApi } from "./enterprises.ts";
import { queryKeys } from "./keys.ts";
import { userApi } from "./user.ts";

/** GET /user/selectInfo, mirrored into the persisted store (instant header after a reload). */
export function useUserInfo() {
  const cached = useAppStore((s) => s.user);
  const setUser = useAppStore((s) => s.setUser);
  const query = useQuery({
    queryKey: queryKeys.userInfo,
    queryFn: userApi.selectInfo,
    enabled: hasToken(),
    placeholderData: cached ?? undefined,
  });
  useEffect(() => {
    if (query.data && !query.isPlaceholderData) setUser(query.data);
  }, [query.data, query.isPlaceholderData, setUser]);
  return query;
}

/**
 * POST /enterprises/userEnterpriseList, mirrored into the persisted `enterprisesList` (the
 * context switch shows the stored list at once and the fresh one when it arrives). Silent: a
 * failure keeps the stored list.
 */
export function useEnterpriseList() {
  const setEnterprises = useAppStore((s) => s.setEnterprises);
  const query = useQuery({
    queryKey: queryKeys.userEnterprises,
    queryFn: enterprisesApi.userEnterpriseList,
    enabled: hasToken(),
    staleTime: 60_000,
    meta: { silent: true },
  });
  useEffect(() => {
    if (query.data) setEnterprises(query.data.list ?? []);
  }, [query.data, setEnterprises]);
  return query;
}

/** The user's personal device groups (GET /device/v1/userGroup). */
export function useGroups(enabled = true) {
  return useQuery({
    queryKey: queryKeys.groups,
    queryFn: devicesApi.groups,
    enabled,
  });
}

/** The machine type icon map; rarely changes, fetched once per session. */
export function useMachineIcons() {
  return useQuery({
    queryKey: queryKeys.icons,
    queryFn: devicesApi.icons,
    staleTime: Number.POSITIVE_INFINITY,
    meta: { silent: true },
  });
}

/** SPEC §2 live online state: how often the lists and the detail poll machineStates. */
export const STATE_POLL_MS = 10_000;

/**
 * The online state of the caller's devices (POST /machine/machineStates, all of them or
 * `machineIds`), polled every 10 s while the tab is visible (react-query pauses intervals of a
 * hidden document) and once more when it comes back. Silent: a failed poll keeps the last
 * states. `data` is a Map by machine id.
 */
export function useLiveStates(options: {
  queryKey: QueryKey;
  machineIds?: readonly number[];
  enabled?: boolean;
}) {
  const { queryKey, machineIds, enabled = true } = options;
  return useQuery({
    queryKey,
    queryFn: () => devicesApi.states(machineIds),
    enabled,
    select: toStateMap,
    staleTime: STATE_POLL_MS / 2,
    refetchInterval: STATE_POLL_MS,
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
    meta: { silent: true },
  });
}
