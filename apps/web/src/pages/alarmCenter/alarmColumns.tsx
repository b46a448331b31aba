import type { AlarmEntry } from "@keyway/shared";
import type { TableProps } from "antd";
import {
  AlarmContent,
  AlarmLevelTag,
  AlarmStateTags,
  ConfirmAlarmButton,
} from "../../features/alarm/alarmParts.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatInZone } from "../../lib/format.ts";

/** The alarm list's columns: time on the device's clock, device, level, content, state, confirm. */
export function useAlarmColumns(eid: number): TableProps<AlarmEntry>["columns"] {
  const { t } = useLang();
  return [
    {
      title: t("alarms.time"),
      key: "time",
      width: 170,
      render: (_: unknown, a) => (
        <span className="kw-nowrap" title={a.time_zone}>
          {formatInZone(a.time, a.time_zone)}
        </span>
      ),
    },
    {
      title: t("alarms.device"),
      key: "device",
      width: 190,
      render: (_: unknown, a) => (
        <span className="kw-alarm-device">
          {a.machine_name !== a.machine_code && (
            <span className="kw-ellipsis">{a.machine_name}</span>
          )}
          <MachineCode code={a.machine_code} />
        </span>
      ),
    },
    {
      title: t("alarms.level"),
      dataIndex: "level",
      width: 90,
      render: (value: number) => <AlarmLevelTag level={value} />,
    },
    {
      title: t("alarms.content"),
      key: "content",
      render: (_: unknown, a) => <AlarmContent alarm={a} />,
    },
    {
      title: t("alarms.state"),
      key: "state",
      width: 170,
      render: (_: unknown, a) => <AlarmStateTags alarm={a} />,
    },
    {
      title: t("alarms.action"),
      key: "action",
      width: 100,
      fixed: "right",
      render: (_: unknown, a) => (a.confirmed ? null : <ConfirmAlarmButton alarm={a} eid={eid} />),
    },
  ];
}
