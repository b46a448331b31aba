import type {
  AlarmEntry,
  AlarmKanban,
  AlarmLevelKey,
  AlarmListResult,
  AlarmResetResult,
  AlarmRights,
  AlarmStateFilter,
} from "@keyway/shared";
import { PAGE_SIZE } from "@keyway/shared";
import { api } from "./client.ts";

export type { AlarmEntry, AlarmKanban, AlarmListResult, AlarmRights };

/** The alarm centre's filters; times are ISO instants, empty fields mean no filter. */
export interface AlarmFilters {
  eid: number;
  deviceCode?: string;
  level?: AlarmLevelKey;
  state?: AlarmStateFilter;
  startTime?: string;
  endTime?: string;
}

/** SPEC §7 "Alarms" and the alarm centre (docs/decisions.md 44). */
export const alarmsApi = {
  /** A device's alarms (6 a page), with what the caller may do with them. */
  deviceAlarms: (
    q: { deviceCode: string; eid?: number; state?: AlarmStateFilter },
    page: number,
    pageSize: number = PAGE_SIZE.alarms,
  ) => api.get<AlarmListResult>("/v1/devices/alarms", { ...q, page, pageSize }),
  /** Alarms of every device of the context (6 a page). */
  list: (filters: AlarmFilters, page: number, pageSize: number = PAGE_SIZE.alarms) =>
    api.post<AlarmListResult>("/v1/devices/alarmList", { ...filters, page, pageSize }),
  /** Statistics over the filters' range (default the last 7 days) at the browser's offset. */
  kanban: (filters: AlarmFilters) =>
    api.post<AlarmKanban>("/v1/devices/alarmKanban", {
      ...filters,
      utcOffset: -new Date().getTimezoneOffset(),
    }),
  confirm: (id: number, eid: number) => api.put<AlarmEntry>("/v1/devices/alarms", { id, eid }),
  /** Clears the device's alarms still on and confirms the unconfirmed ones. */
  reset: (deviceCode: string, eid: number) =>
    api.put<AlarmResetResult>("/v1/devices/imageReset", { deviceCode, eid }),
};
