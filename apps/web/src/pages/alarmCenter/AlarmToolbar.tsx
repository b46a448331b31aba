import { ReloadOutlined } from "@ant-design/icons";
import { ALARM_LEVEL_KEYS, ALARM_STATES, type AlarmRights, type Machine } from "@keyway/shared";
import { Button, Card, DatePicker, Flex, Select } from "antd";
import { ConfirmAllButton, ResetAlarmsButton } from "../../features/alarm/alarmParts.tsx";
import { useLang } from "../../i18n/index.ts";
import type { AlarmFilterState } from "./useAlarmFilters.ts";

/**
 * The filter bar (device, level, state, time), reset and refresh; with a device chosen, its
 * confirm-all and reset as the list's rights allow.
 */
export function AlarmToolbar({
  filter,
  devices,
  eid,
  machineId,
  rights,
  total,
  refreshing,
  onRefresh,
}: {
  filter: AlarmFilterState;
  devices: Machine[];
  eid: number;
  machineId: number | undefined;
  rights: AlarmRights | undefined;
  total: number;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const { t } = useLang();
  const { deviceCode } = filter;
  const deviceOptions = devices.map((m) => ({
    value: m.machine_code,
    label:
      m.machine_name && m.machine_name !== m.machine_code
        ? `${m.machine_name} (${m.machine_code})`
        : m.machine_code,
  }));

  return (
    <Card className="kw-card kw-mb" styles={{ body: { padding: 16 } }}>
      <Flex wrap gap={12} align="center" className="kw-alarm-toolbar">
        <Select
          className="kw-alarm-filter-device"
          allowClear
          showSearch={{ optionFilterProp: "label" }}
          placeholder={t("alarms.allDevices")}
          value={deviceCode}
          onChange={filter.change.deviceCode}
          options={deviceOptions}
          popupMatchSelectWidth={320}
          data-testid="alarm-filter-device"
        />
        <Select
          className="kw-alarm-filter"
          allowClear
          placeholder={t("alarms.allLevels")}
          value={filter.level}
          onChange={filter.change.level}
          options={ALARM_LEVEL_KEYS.map((key) => ({
            value: key,
            label: t(`device.alarm.levels.${key}`),
          }))}
          data-testid="alarm-filter-level"
        />
        <Select
          className="kw-alarm-filter"
          allowClear
          placeholder={t("alarms.allStates")}
          value={filter.state}
          onChange={filter.change.state}
          options={ALARM_STATES.map((key) => ({
            value: key,
            label: t(`alarms.states.${key}`),
          }))}
          data-testid="alarm-filter-state"
        />
        <DatePicker.RangePicker
          showTime={{ format: "HH:mm" }}
          format="YYYY-MM-DD HH:mm"
          value={filter.range}
          onChange={filter.change.range}
          placeholder={[t("alarms.rangeStart"), t("alarms.rangeEnd")]}
          data-testid="alarm-filter-range"
        />
        <Button onClick={filter.reset} disabled={!filter.filtered} data-testid="alarm-filter-reset">
          {t("alarms.reset")}
        </Button>
        <Button
          icon={<ReloadOutlined />}
          onClick={onRefresh}
          loading={refreshing}
          data-testid="alarm-refresh"
        >
          {t("alarms.refresh")}
        </Button>
        {deviceCode && machineId !== undefined && (
          <Flex gap={8} className="kw-alarm-device-actions">
            {rights?.confirmAll && (
              <ConfirmAllButton
                machineId={machineId}
                deviceCode={deviceCode}
                disabled={total === 0}
              />
            )}
            {rights?.reset && (
              <ResetAlarmsButton deviceCode={deviceCode} eid={eid} disabled={total === 0} />
            )}
          </Flex>
        )}
      </Flex>
    </Card>
  );
}
