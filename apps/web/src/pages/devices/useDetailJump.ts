import type { Machine } from "@keyway/shared";
import { useEffect } from "react";
import { useSearchParams } from "react-router";
import { devicesApi } from "../../api/devices.ts";
import { showError } from "../../api/queryClient.ts";
import type { DetailTab } from "./DeviceDetailDrawer.tsx";

/**
 * ?device=<id>&tab=alarms (the new-alarm pop-up): opens that device's detail on the tab once
 * the list is loaded, then drops the parameters.
 */
export function useDetailJump(
  devices: Machine[] | undefined,
  loaded: boolean,
  setDetail: (machine: Machine) => void,
  setDetailTab: (tab: DetailTab) => void,
) {
  const [params, setParams] = useSearchParams();
  const jumpId = Number(params.get("device")) || 0;
  const jumpTab: DetailTab = params.get("tab") === "alarms" ? "alarms" : "info";
  useEffect(() => {
    if (!jumpId || !loaded) return;
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        copy.delete("device");
        copy.delete("tab");
        return copy;
      },
      { replace: true },
    );
    const listed = devices?.find((m) => m.machine_id === jumpId);
    setDetailTab(jumpTab);
    if (listed) setDetail(listed);
    else devicesApi.detail(jumpId).then(setDetail, showError);
  }, [jumpId, jumpTab, loaded, devices, setParams, setDetail, setDetailTab]);
}
