import { API } from "@keyway/shared";
import { request } from "../../api/client.ts";
import { queryKeys } from "../../api/keys.ts";

/** POST /api/v1/devices/wall: the context's devices with state and alarms in one answer. */
export const wallApi = {
  wall: (eid: number) => request(API.wall.wall, { eid }),
};

/** Under the alarm keys, so every alarm push (usePushChannel) refreshes the wall at once. */
export const wallKey = (eid: number) => [...queryKeys.alarmsAll, "wall", eid] as const;
