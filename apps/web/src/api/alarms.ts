import type {
  AlarmEntry,
  AlarmKanban,
  AlarmLevelKey,
  AlarmListResult,
  AlarmRights,
  AlarmStateFilter,
} from "@keyway/shared";
import { API, PAGE_SIZE } from "@keyway/shared";
import { request } from "./client.ts";

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

/** SPEC §7 "Alarms" and the alarm centre (packages/shared/src/contract/alarms.ts). */
export const alarmsApi = {
  /** A device's alarms (6 a page), with what the caller may do with them. */
  deviceAlarms: (
    q: { deviceCode: string; eid?: number; state?: AlarmStateFilter },
    page: number,
    pageSize: number = PAGE_SIZE.alarms,
  ) => request(API.alarms.deviceAlarms, { ...q, page, pageSize }),
  /** Alarms of every device of the context (6 a page). */
  list: (filters: AlarmFilters, page: number, pageSize: number = PAGE_SIZE.alarms) =>
    request(API.alarms.list, { ...filters, page, pageSize }),
  /** Statistics over the filters' range (default the last 7 days) at the browser's offset. */
  kanban: (filters: AlarmFilters) =>
    request(API.alarms.kanban, { ...filters, utcOffset: -new Date().getTimezoneOffset() }),
  confirm: (id: number, eid: number) => request(API.alarms.confirm, { id, eid }),
  /** Clears the device's alarms still on and confirms the unconfirmed ones. */
  reset: (deviceCode: string, eid: number) => request(API.alarms.reset, { deviceCode, eid }),
};
