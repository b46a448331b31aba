import { NOTIFICATION_DURATION_S } from "@keyway/shared";
import { useQueryClient } from "@tanstack/react-query";
import { App } from "antd";
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import { queryKeys } from "../../api/keys.ts";
import { connectPush, type PushEvent } from "../../api/push.ts";
import { useUnreadSync } from "../../api/useUnreadSync.ts";
import { useAlarmPopup } from "../../features/alarm/useAlarmPopup.tsx";
import { useLang } from "../../i18n/index.ts";
import { COOKIE, removeCookie } from "../../lib/cookies.ts";
import { getToken, signOutLocally } from "../../lib/session.ts";
import { PATHS, PERSONAL_DEVICES_ROUTE } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/** Where the new-alarm pop-up leads: the personal list with the device's alarms open. */
export function alarmJumpPath(deviceId: number): string {
  return `${PERSONAL_DEVICES_ROUTE}&device=${deviceId}&tab=alarms`;
}

/**
 * The push channel of the signed-in user (SPEC §4 "Push channel"), run by the main layout:
 * connects with the session token, closes on logout (unmount). Each push refreshes the
 * message centre and the unread badge (also fed by GET /msg/v1/totalUnread); a new alarm
 * refreshes the alarm centre and goes to the alarm pop-up (features/alarm/: one notice for
 * all new alarms, Confirm where allowed, the jump after ALARM_POPUP_JUMP_MINUTES,
 * docs/architecture/alarms.md); other notices keep NOTIFICATION_DURATION_S; a logout push (login
 * elsewhere) clears the token, stops the channel and asks to log in again.
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

  const alarmPopup = useAlarmPopup({
    variant: "desktop",
    onView: (deviceId) => {
      // The device detail lives in the personal list.
      selectContext(null);
      navigate(alarmJumpPath(deviceId));
    },
    onCentre: () => navigate(PATHS.alarmCenter),
  });

  // The latest texts and callbacks for the long-lived subscription.
  const latest = useRef({
    t,
    modal,
    notification,
    queryClient,
    setUnread,
    alarmPopup,
  });
  latest.current = { t, modal, notification, queryClient, setUnread, alarmPopup };

  useEffect(() => {
    const token = getToken();
    if (!token || userId === null) return;
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
      const { queryClient, setUnread, notification, t, alarmPopup } = latest.current;
      // Each scene's body is typed by @keyway/protocol (PushBodies): narrow on the scene.
      if ("totalUnreadMsg" in event.body) setUnread(event.body.totalUnreadMsg);
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      switch (event.scene) {
        case "ws.device.alarm.resp":
        case "ws.device.voice.resp":
          if (event.body.deviceCode) {
            void queryClient.invalidateQueries({
              queryKey: queryKeys.deviceAlarmsAll(event.body.deviceCode),
            });
          }
          void queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll });
          if (event.scene === "ws.device.alarm.resp" && event.body.deviceId) {
            alarmPopup.add(event.body);
          }
          break;
        case "ws.device.visit.resp":
        case "ws.device.bind.resp":
          // A decision may have changed who may reach the device.
          void queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
          if (event.body.deviceId) {
            void queryClient.invalidateQueries({
              queryKey: queryKeys.authorityAll(event.body.deviceId),
            });
          }
          break;
        case "ws.mass.texting.resp":
          if (event.body.content)
            notification.info({
              title: t("push.massTexting"),
              description: event.body.content,
              duration: NOTIFICATION_DURATION_S,
            });
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
    return () => connection.close();
  }, [userId]);
}
