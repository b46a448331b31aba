import { remoteSettingsBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { queryKeys } from "../../api/keys.ts";
import { visitsApi } from "../../api/visits.ts";

/** A switch of a device's remote-access settings. */
export type RemoteSetting = "onsite_consent" | "readonly_websocket";

/**
 * A device's remote-access settings (GET/POST /api/device/v1/remoteSettings) and the change of
 * one switch, shared by the desktop's "Remote access" tab and the phone's device page; each
 * says "saved" in its own way (`onSaved`).
 */
export function useRemoteSettings(machineId: number, onSaved: () => void) {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: queryKeys.remoteSettings(machineId),
    queryFn: () => visitsApi.remoteSettings(machineId),
    meta: { silent: true },
  });
  const save = useMutation({
    mutationFn: (change: Partial<Record<RemoteSetting, boolean>>) =>
      visitsApi.setRemoteSettings(remoteSettingsBody.parse({ deviceId: machineId, ...change })),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.remoteSettings(machineId), next);
      onSaved();
    },
  });
  return { settings, save };
}
