import { ALARM_POPUP_JUMP_MINUTES, alarmLevelKey } from "@keyway/shared";
import { useQueryClient } from "@tanstack/react-query";
import { App, Button, Space, Tag, Typography } from "antd";
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import { queryKeys } from "../../api/keys.ts";
import { connectPush, type PushEvent } from "../../api/push.ts";
import { useUnreadSync } from "../../api/useUnreadSync.ts";
import { useLang } from "../../i18n/index.ts";
import { COOKIE, removeCookie } from "../../lib/cookies.ts";
import { getToken, signOutLocally } from "../../lib/session.ts";
import { PATHS, PERSONAL_DEVICES_ROUTE } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";
import { ALARM_LEVEL_COLORS } from "../devices/machine.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/** What an alarm push tells beyond the SPEC's fields (optional; older servers send none). */
interface AlarmPush {
  alarmId?: number;
  level?: number;
  content?: string;
  deviceName?: string;
}
const JUMP_MS = ALARM_POPUP_JUMP_MINUTES * 60_000;

/** Where the new-alarm pop-up leads: the personal list with the device's alarms open. */
export function alarmJumpPath(deviceId: number): string {
  return `${PERSONAL_DEVICES_ROUTE}&device=${deviceId}&tab=alarms`;
}

/**
 * The push channel of the signed-in user (SPEC §4 "Push channel"), run by the main layout:
 * connects with the session token, closes on logout (unmount). Each push refreshes the
 * message centre and the unread badge (also fed by GET /msg/v1/totalUnread); a new alarm
 * refreshes the alarm centre and pops up a notification with the device, level and content
 * (one per device, the newest replacing the last), a link to the alarm centre and View, which
 * leads to the device's alarms — by itself after ALARM_POPUP_JUMP_MINUTES unless dismissed
 * (docs/decisions.md 51); a logout push (login elsewhere) clears the token, stops the channel
 * and asks to log in again.
 */
export function usePushChannel(): void {
  const { t } = useLang();
  const { modal, notification } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const userId = useAppStore((s) => s.userId);
  const setUnread = useAppStore((s) => s.setUnread);
  const selectContext = useAppStore((s) => s.selectContext);

  useUnreadSync();

  // The latest texts and callbacks for the long-lived subscription.
  const latest = useRef({
    t,
    modal,
    notification,
    navigate,
    queryClient,
    setUnread,
    selectContext,
  });
  latest.current = { t, modal, notification, navigate, queryClient, setUnread, selectContext };

  useEffect(() => {
    const token = getToken();
    if (!token || userId === null) return;
    const timers = new Map<number, number>();

    const jumpToAlarms = (deviceId: number) => {
      const { notification, navigate, selectContext } = latest.current;
      window.clearTimeout(timers.get(deviceId));
      timers.delete(deviceId);
      notification.destroy(`alarm-${deviceId}`);
      // The device detail lives in the personal list.
      selectContext(null);
      navigate(alarmJumpPath(deviceId));
    };

    const toAlarmCentre = (deviceId: number) => {
      const { notification, navigate } = latest.current;
      window.clearTimeout(timers.get(deviceId));
      timers.delete(deviceId);
      notification.destroy(`alarm-${deviceId}`);
      navigate(PATHS.alarmCenter);
    };

    const popAlarm = (deviceId: number, deviceCode: string, alarm: AlarmPush) => {
      const { notification, t } = latest.current;
      const band = alarm.level === undefined ? undefined : alarmLevelKey(alarm.level);
      const key = `alarm-${deviceId}`;
      window.clearTimeout(timers.get(deviceId));
      timers.set(
        deviceId,
        window.setTimeout(() => jumpToAlarms(deviceId), JUMP_MS),
      );
      notification.warning({
        key,
        title: t("push.alarmTitle"),
        description: (
          <span data-testid="alarm-popup" data-device={deviceId} data-alarm={alarm.alarmId}>
            <Space size={6} wrap>
              <Typography.Text strong data-testid="alarm-popup-device">
                {alarm.deviceName || deviceCode}
              </Typography.Text>
              {band && (
                <Tag color={ALARM_LEVEL_COLORS[band]} className="kw-tag-tight">
                  {t(`device.alarm.levels.${band}`)}
                </Tag>
              )}
            </Space>
            <br />
            {alarm.content ? (
              <span className="kw-break" data-testid="alarm-popup-content">
                {alarm.content}
              </span>
            ) : (
              <>
                {t("push.alarmBody")} <Typography.Text code>{deviceCode}</Typography.Text>
              </>
            )}
            <br />
            <Typography.Text type="secondary" className="kw-small">
              {t("push.alarmJumpHint", { minutes: ALARM_POPUP_JUMP_MINUTES })}
            </Typography.Text>
          </span>
        ),
        duration: false,
        actions: (
          <Space size={8}>
            <Button
              size="small"
              onClick={() => toAlarmCentre(deviceId)}
              {...testId("alarm-popup-centre")}
            >
              {t("push.alarmCentre")}
            </Button>
            <Button
              type="primary"
              size="small"
              onClick={() => jumpToAlarms(deviceId)}
              {...testId("alarm-popup-view")}
            >
              {t("push.view")}
            </Button>
          </Space>
        ),
        onClose: () => {
          window.clearTimeout(timers.get(deviceId));
          timers.delete(deviceId);
        },
      });
    };

    const loggedOut = () => {
      const { modal, t } = latest.current;
      // SPEC §4: clear the token, close the channel, prompt to log in again.
      removeCookie(COOKIE.token);
      connection.close();
      modal.warning({
        title: t("push.loggedOutTitle"),
        content: <span data-testid="push-logout-modal">{t("push.loggedOutHint")}</span>,
        okText: t("push.relogin"),
        keyboard: false,
        mask: { closable: false },
        okButtonProps: { ...testId("push-relogin") },
        onOk: () => signOutLocally("/login"),
      });
    };

    const handle = (event: PushEvent) => {
      const { queryClient, setUnread, notification, t } = latest.current;
      const body = event.body as
        | ({
            totalUnreadMsg?: number;
            deviceId?: number;
            deviceCode?: string;
          } & AlarmPush)
        | null;
      if (typeof body?.totalUnreadMsg === "number") setUnread(body.totalUnreadMsg);
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      switch (event.scene) {
        case "ws.device.alarm.resp":
        case "ws.device.voice.resp":
          if (body?.deviceCode) {
            void queryClient.invalidateQueries({
              queryKey: queryKeys.deviceAlarmsAll(body.deviceCode),
            });
          }
          void queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll });
          if (event.scene === "ws.device.alarm.resp" && body?.deviceId) {
            popAlarm(body.deviceId, body.deviceCode ?? "", body);
          }
          break;
        case "ws.device.visit.resp":
        case "ws.device.bind.resp":
          // A decision may have changed who may reach the device.
          void queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
          if (body?.deviceId) {
            void queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(body.deviceId) });
          }
          break;
        case "ws.mass.texting.resp":
          if (body?.content)
            notification.info({ title: t("push.massTexting"), description: body.content });
          break;
        default:
          break;
      }
    };

    // Back after a loss: the pushes of that time are gone; the badge and lists read again.
    const reconnected = () => {
      const { queryClient } = latest.current;
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll });
    };

    const connection = connectPush(token, {
      onPush: handle,
      onLogout: loggedOut,
      onReconnect: reconnected,
    });
    return () => {
      connection.close();
      for (const timer of timers.values()) window.clearTimeout(timer);
      timers.clear();
    };
  }, [userId]);
}
