import type { AlarmLevelKey, AlarmStateFilter } from "@keyway/shared";
import type { Dayjs } from "dayjs";
import { useState } from "react";
import type { AlarmFilters } from "../../api/alarms.ts";

export type Range = [Dayjs | null, Dayjs | null] | null;

/** The alarm center's filters and page: any filter change goes back to page 1. */
export function useAlarmFilters(eid: number) {
  const [deviceCode, setDeviceCode] = useState<string | undefined>();
  const [level, setLevel] = useState<AlarmLevelKey | undefined>();
  const [state, setState] = useState<AlarmStateFilter | undefined>();
  const [range, setRange] = useState<Range>(null);
  const [page, setPage] = useState(1);

  const filters: AlarmFilters = {
    eid,
    deviceCode,
    level,
    state,
    startTime: range?.[0]?.toISOString(),
    endTime: range?.[1]?.toISOString(),
  };
  const filtered = Boolean(deviceCode || level || state || range);
  const changeFilter =
    <T>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setPage(1);
    };

  return {
    deviceCode,
    level,
    state,
    range,
    page,
    setPage,
    filters,
    filtered,
    change: {
      deviceCode: changeFilter(setDeviceCode),
      level: changeFilter(setLevel),
      state: changeFilter(setState),
      range: changeFilter(setRange),
    },
    reset: () => {
      setDeviceCode(undefined);
      setLevel(undefined);
      setState(undefined);
      setRange(null);
      setPage(1);
    },
  };
}

export type AlarmFilterState = ReturnType<typeof useAlarmFilters>;
