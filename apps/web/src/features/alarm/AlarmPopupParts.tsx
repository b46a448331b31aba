import { CheckOutlined } from "@ant-design/icons";
import { alarmLevelKey } from "@keyway/shared";
import { Button, Space, Tag, Typography } from "antd";
import type { CSSProperties } from "react";
import type { Translate } from "../../i18n/index.ts";
import { ALARM_LEVEL_COLORS } from "../device/machine.ts";
import type { ConfirmRight } from "./popupRights.ts";

export const testId = (id: string) => ({ "data-testid": id }) as object;

/** One alarm as its push tells it (SPEC §3 DeviceInformResp and its optional alarm fields). */
export interface PopupAlarm {
  deviceId: number;
  deviceCode: string;
  alarmId?: number;
  level?: number;
  content?: string;
  deviceName?: string;
}

/** The newest alarms the summary lists; the rest are counted. */
const LISTED = 3;

function LevelTag({ level, t }: { level: number | undefined; t: Translate }) {
  if (level === undefined) return null;
  const band = alarmLevelKey(level);
  return (
    <Tag color={ALARM_LEVEL_COLORS[band]} className="kw-tag-tight">
      {t(`device.alarm.levels.${band}`)}
    </Tag>
  );
}

interface ConfirmProps {
  alarm: PopupAlarm;
  right: ConfirmRight;
  confirming: boolean;
  onConfirm: (alarm: PopupAlarm, eid: number) => void;
  t: Translate;
}

/** Confirm, only where the server says the user may (nothing while that is asked). */
export function ConfirmButton({
  alarm,
  right,
  confirming,
  onConfirm,
  t,
  primary = false,
  testid,
}: ConfirmProps & { primary?: boolean; testid: string }) {
  if (!right || alarm.alarmId === undefined) return null;
  return (
    <Button
      size="small"
      type={primary ? "primary" : "link"}
      icon={<CheckOutlined />}
      loading={confirming}
      className={primary ? undefined : "kw-link-compact"}
      onClick={() => onConfirm(alarm, right.eid)}
      {...testId(testid)}
    >
      {t("alarms.confirm")}
    </Button>
  );
}

const rightsAttr = (right: ConfirmRight) =>
  ({ "data-rights": right === null ? "loading" : right ? "confirm" : "none" }) as object;

export function SingleAlarm(props: ConfirmProps) {
  const { alarm, right, t } = props;
  return (
    <div {...testId(`alarm-popup-item-${alarm.alarmId ?? alarm.deviceId}`)} {...rightsAttr(right)}>
      <Space size={6} wrap>
        <Typography.Text strong data-testid="alarm-popup-device">
          {alarm.deviceName || alarm.deviceCode}
        </Typography.Text>
        <LevelTag level={alarm.level} t={t} />
      </Space>
      <div>
        {alarm.content ? (
          <span className="kw-break" data-testid="alarm-popup-content">
            {alarm.content}
          </span>
        ) : (
          <>
            {t("push.alarmBody")} <Typography.Text code>{alarm.deviceCode}</Typography.Text>
          </>
        )}
      </div>
    </div>
  );
}

const itemStyle: CSSProperties = {
  display: "flex",
  alignItems: "flex-start",
  gap: 8,
  padding: "6px 0",
  borderBottom: "1px solid rgba(5, 5, 5, 0.06)",
};

export function AlarmSummary({
  alarms,
  rightOf,
  confirming,
  onConfirm,
  t,
}: {
  alarms: PopupAlarm[];
  rightOf: (alarm: PopupAlarm) => ConfirmRight;
  confirming: ReadonlySet<number>;
  onConfirm: (alarm: PopupAlarm, eid: number) => void;
  t: Translate;
}) {
  const more = alarms.length - LISTED;
  return (
    <div style={{ marginBottom: 6 }}>
      {alarms.slice(0, LISTED).map((alarm) => (
        <div
          key={alarm.alarmId ?? `${alarm.deviceId}-${alarm.content}`}
          style={itemStyle}
          {...testId(`alarm-popup-item-${alarm.alarmId ?? alarm.deviceId}`)}
          {...rightsAttr(rightOf(alarm))}
        >
          <div style={{ flex: 1, minWidth: 0 }}>
            <Space size={6} wrap>
              <Typography.Text strong ellipsis style={{ maxWidth: 180 }}>
                {alarm.deviceName || alarm.deviceCode}
              </Typography.Text>
              <LevelTag level={alarm.level} t={t} />
            </Space>
            <div className="kw-break kw-small">{alarm.content || t("push.alarmBody")}</div>
          </div>
          <ConfirmButton
            alarm={alarm}
            right={rightOf(alarm)}
            confirming={alarm.alarmId !== undefined && confirming.has(alarm.alarmId)}
            onConfirm={onConfirm}
            t={t}
            testid={`alarm-popup-confirm-${alarm.alarmId}`}
          />
        </div>
      ))}
      {more > 0 && (
        <Typography.Text type="secondary" className="kw-small" data-testid="alarm-popup-more">
          {t("push.alarmMore", { count: more })}
        </Typography.Text>
      )}
    </div>
  );
}
