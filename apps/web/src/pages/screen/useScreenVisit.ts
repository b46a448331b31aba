import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { devicesApi } from "../../api/devices.ts";
import { enterprisesApi } from "../../api/enterprises.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { type VisitScope, type VisitUrl, visitsApi } from "../../api/visits.ts";
import { terminalUUID } from "../../lib/terminal.ts";
import { type ConnectFailure, connectStateOf } from "../../lib/visit.ts";

/** The screen visit's URL call: pending (since when), answered, or refused. */
export type ScreenVisit =
  | { phase: "asking"; since: number }
  | { phase: "ready"; visit: VisitUrl }
  | { phase: "refused"; state: ConnectFailure; message: string; code: string | null };

/**
 * Asks the visit URL of kind "screen" (the call of the device's scope, as Connect does) once
 * per `attempt`: a ticket is good once, so a reconnect asks again. The call may be held up to
 * 30 s while the person at the machine is asked (on-site consent).
 */
export function useScreenVisit(machineId: number, scope: VisitScope, attempt: number): ScreenVisit {
  const [visit, setVisit] = useState<ScreenVisit>(() => ({ phase: "asking", since: Date.now() }));
  const { eid, projectId } = scope;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` asks again
  useEffect(() => {
    let current = true;
    setVisit({ phase: "asking", since: Date.now() });
    // A tick later: StrictMode's second mount (development) must not issue a second visit
    // (and ask the person at the machine twice); the first mount's cleanup cancels this.
    const ask = window.setTimeout(() => {
      visitsApi.urlFor(machineId, { eid, projectId }, terminalUUID(), "screen").then(
        (answer) => {
          if (current) setVisit({ phase: "ready", visit: answer });
        },
        (error: unknown) => {
          if (!current) return;
          setVisit({
            phase: "refused",
            state: connectStateOf(error),
            message: error instanceof Error ? error.message : String(error),
            code: error instanceof ApiError && error.hwcode !== null ? String(error.hwcode) : null,
          });
        },
      );
    }, 0);
    return () => {
      current = false;
      window.clearTimeout(ask);
    };
  }, [machineId, eid, projectId, attempt]);
  return visit;
}

/**
 * The device's name for the bar, and — for its Akey and Bkeys, who may read the device's
 * remote settings — whether visits wait for on-site consent (null: not known to this user).
 */
export function useScreenDevice(machineId: number, scope: VisitScope) {
  const personal = scope.eid === undefined && scope.projectId === undefined;
  const detail = useQuery({
    queryKey: queryKeys.deviceDetail(machineId),
    queryFn: () => devicesApi.detail(machineId),
    enabled: personal,
    meta: { silent: true },
  });
  const enterprise = useQuery({
    queryKey: queryKeys.enterpriseMachine(scope.eid ?? 0, machineId),
    queryFn: () => enterprisesApi.machineInfo(scope.eid ?? 0, machineId),
    enabled: scope.eid !== undefined && scope.projectId === undefined,
    meta: { silent: true },
  });
  const machine = detail.data ?? enterprise.data;
  const manages = detail.data?.role === "akey" || detail.data?.role === "bkey";
  const settings = useQuery({
    queryKey: queryKeys.remoteSettings(machineId),
    queryFn: () => visitsApi.remoteSettings(machineId),
    enabled: manages,
    meta: { silent: true },
  });
  return {
    name: machine ? machine.machine_name || machine.machine_code : null,
    consent: settings.data ? settings.data.onsite_consent : null,
  };
}
