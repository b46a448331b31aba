import { CheckCircleOutlined, CheckOutlined, UndoOutlined } from "@ant-design/icons";
import { type AlarmEntry, alarmLevelKey } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Button, Popconfirm, Space, Tag, Tooltip, Typography } from "antd";
import { authorityApi } from "../../api/access.ts";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { ALARM_LEVEL_COLORS } from "../device/machine.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/** Colours of the level bands, also used by the charts. */
export const LEVEL_CHART_COLORS = {
  info: "#8c8c8c",
  minor: "#faad14",
  major: "#fa8c16",
  critical: "#f5222d",
} as const;

/** An alarm's content, with its type and variable beneath. */
export function AlarmContent({ alarm }: { alarm: AlarmEntry }) {
  return (
    <span className="kw-break">
      {alarm.content || "-"}
      {(alarm.type || alarm.variable) && (
        <Typography.Text type="secondary" className="kw-small kw-block">
          {[alarm.type, alarm.variable].filter(Boolean).join(" · ")}
        </Typography.Text>
      )}
    </span>
  );
}

export function AlarmLevelTag({ level }: { level: number }) {
  const { t } = useLang();
  const key = alarmLevelKey(level);
  return (
    <Tag color={ALARM_LEVEL_COLORS[key]} className="kw-tag-tight" data-level={level}>
      {t(`device.alarm.levels.${key}`)}
    </Tag>
  );
}

/**
 * Where an alarm is in its life: confirmed or not (who and when on hover), and cleared (by
 * the device or a reset) or still on.
 */
export function AlarmStateTags({ alarm }: { alarm: AlarmEntry }) {
  const { t } = useLang();
  const confirmedTip = alarm.confirmed
    ? t("alarms.confirmedBy", {
        name: alarm.confirmed_by || "-",
        time: formatDateTime(alarm.confirmed_at),
      })
    : undefined;
  const clearedTip = alarm.cleared
    ? alarm.cleared_by
      ? t("alarms.clearedBy", { name: alarm.cleared_by, time: formatDateTime(alarm.cleared_at) })
      : t("alarms.clearedByDevice", { time: formatDateTime(alarm.cleared_at) })
    : undefined;
  return (
    <Space size={4} wrap data-testid={`alarm-state-${alarm.id}`} {...stateAttrs(alarm)}>
      <Tooltip title={confirmedTip}>
        <Tag color={alarm.confirmed ? "green" : "volcano"} className="kw-tag-tight">
          {t(alarm.confirmed ? "alarms.states.confirmed" : "alarms.states.unconfirmed")}
        </Tag>
      </Tooltip>
      <Tooltip title={clearedTip}>
        <Tag color={alarm.cleared ? "default" : "red"} className="kw-tag-tight">
          {t(alarm.cleared ? "alarms.states.cleared" : "alarms.stateActive")}
        </Tag>
      </Tooltip>
    </Space>
  );
}

function stateAttrs(alarm: AlarmEntry): object {
  return { "data-confirmed": alarm.confirmed, "data-cleared": alarm.cleared };
}

/** Everything that shows alarms is refreshed after a change. */
export function useAlarmsChanged() {
  const queryClient = useQueryClient();
  return async (deviceCode?: string) => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll }),
      deviceCode
        ? queryClient.invalidateQueries({ queryKey: queryKeys.deviceAlarmsAll(deviceCode) })
        : queryClient.invalidateQueries({ queryKey: ["devices", "alarms"] }),
    ]);
  };
}

/** Confirm one alarm, after asking. */
export function ConfirmAlarmButton({
  alarm,
  eid,
  compact = false,
}: {
  alarm: AlarmEntry;
  eid: number;
  /** A link without padding, under the state tags. */
  compact?: boolean;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const changed = useAlarmsChanged();
  const confirm = useMutation({
    mutationFn: () => alarmsApi.confirm(alarm.id, eid),
    onSuccess: async () => {
      message.success(t("alarms.confirmed"));
      await changed(alarm.machine_code);
    },
  });
  return (
    <Popconfirm
      title={t("alarms.confirmTitle")}
      description={<span className="kw-popconfirm-text">{t("alarms.confirmHint")}</span>}
      okText={t("alarms.confirm")}
      cancelText={t("common.cancel")}
      okButtonProps={{ ...testId(`alarm-confirm-ok-${alarm.id}`) }}
      onConfirm={() => confirm.mutateAsync().catch(() => undefined)}
    >
      <Button
        type="link"
        size="small"
        icon={<CheckOutlined />}
        loading={confirm.isPending}
        className={compact ? "kw-link-compact" : undefined}
        {...testId(`alarm-confirm-${alarm.id}`)}
      >
        {t("alarms.confirm")}
      </Button>
    </Popconfirm>
  );
}

/** imageReset of one device, after asking. */
export function ResetAlarmsButton({
  deviceCode,
  eid,
  disabled,
}: {
  deviceCode: string;
  eid: number;
  disabled?: boolean;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const changed = useAlarmsChanged();
  const reset = useMutation({
    mutationFn: () => alarmsApi.reset(deviceCode, eid),
    onSuccess: async (done) => {
      message.success(t("alarms.resetDone", done));
      await changed(deviceCode);
    },
  });
  return (
    <Popconfirm
      title={t("alarms.resetTitle")}
      description={<span className="kw-popconfirm-text">{t("alarms.resetHint")}</span>}
      okText={t("alarms.resetDevice")}
      cancelText={t("common.cancel")}
      okButtonProps={{ danger: true, ...testId("alarm-reset-ok") }}
      onConfirm={() => reset.mutateAsync().catch(() => undefined)}
      disabled={disabled}
    >
      <Button
        size="small"
        danger
        icon={<UndoOutlined />}
        loading={reset.isPending}
        disabled={disabled}
        {...testId("alarm-reset")}
      >
        {t("alarms.resetDevice")}
      </Button>
    </Popconfirm>
  );
}

/** One-click confirmation of a device's alarms (SPEC §6: the Akey or a maintainer). */
export function ConfirmAllButton({
  machineId,
  deviceCode,
  disabled,
  testIdPrefix = "alarm",
}: {
  machineId: number;
  deviceCode: string;
  disabled?: boolean;
  testIdPrefix?: string;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const changed = useAlarmsChanged();
  const confirmAll = useMutation({
    mutationFn: () => authorityApi.confirmAlarms(machineId),
    onSuccess: async () => {
      message.success(t("device.alarm.confirmedAll"));
      await changed(deviceCode);
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
    },
  });
  return (
    <Popconfirm
      title={t("device.alarm.confirmAllTitle")}
      description={<span className="kw-popconfirm-text">{t("device.alarm.confirmAllHint")}</span>}
      okText={t("device.alarm.confirmAll")}
      cancelText={t("common.cancel")}
      okButtonProps={{ ...testId(`${testIdPrefix}-confirm-all-ok`) }}
      onConfirm={() => confirmAll.mutateAsync().catch(() => undefined)}
      disabled={disabled}
    >
      <Button
        size="small"
        icon={<CheckCircleOutlined />}
        loading={confirmAll.isPending}
        disabled={disabled}
        {...testId(`${testIdPrefix}-confirm-all`)}
      >
        {t("device.alarm.confirmAll")}
      </Button>
    </Popconfirm>
  );
}
