import { useQueryClient } from "@tanstack/react-query";
import { Dialog } from "antd-mobile";
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import { queryKeys } from "../../api/keys.ts";
import { connectPush, type PushEvent } from "../../api/push.ts";
import { useUnreadSync } from "../../api/useUnreadSync.ts";
import { useAlarmPopup } from "../../features/alarm/useAlarmPopup.tsx";
import { useLang } from "../../i18n/index.ts";
import { COOKIE, removeCookie } from "../../lib/cookies.ts";
import { getToken } from "../../lib/session.ts";
import { MOBILE } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";
import { useMobileSignOut } from "./useSignOut.ts";

/**
 * The push channel on the phone (SPEC §4): the same channel as the desktop's, told the
 * phone's way — each push refreshes the messages, alarms and devices on screen and the
 * unread badge; new alarms go to the desktop's alarm pop-up (AlarmPopup.tsx: one summary,
 * Confirm where allowed), above the tab bar, leading to the device or the alarms tab; a
 * logout push (login elsewhere) clears the token and asks to log in again.
 */
export function useMobilePush(): void {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const userId = useAppStore((s) => s.userId);
  const setUnread = useAppStore((s) => s.setUnread);
  useUnreadSync();

  const signOut = useMobileSignOut();
  const navigate = useNavigate();
  const alarmPopup = useAlarmPopup({
    variant: "phone",
    onView: (deviceId) => navigate(`${MOBILE.device}/${deviceId}`),
    onCentre: () => navigate(MOBILE.alarms),
  });
  const latest = useRef({ t, queryClient, setUnread, signOut, alarmPopup });
  latest.current = { t, queryClient, setUnread, signOut, alarmPopup };

  useEffect(() => {
    const token = getToken();
    if (!token || userId === null) return;
    const handle = (event: PushEvent) => {
      const { queryClient, setUnread, alarmPopup } = latest.current;
      // Each scene's body is typed by @keyway/protocol (PushBodies): narrow on the scene.
      if ("totalUnreadMsg" in event.body) setUnread(event.body.totalUnreadMsg);
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      if (event.scene === "ws.device.alarm.resp" || event.scene === "ws.device.voice.resp") {
        void queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll });
        void queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
        if (event.scene === "ws.device.alarm.resp" && event.body.deviceId) {
          alarmPopup.add(event.body);
        }
      }
      if (event.scene === "ws.device.visit.resp" || event.scene === "ws.device.bind.resp") {
        void queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
      }
    };
    const loggedOut = () => {
      const { t, signOut } = latest.current;
      removeCookie(COOKIE.token);
      connection.close();
      void Dialog.alert({
        title: t("push.loggedOutTitle"),
        content: <span data-testid="m-push-logout">{t("push.loggedOutHint")}</span>,
        confirmText: t("push.relogin"),
        onConfirm: () => signOut(),
      });
    };
    // Back after a loss: the pushes of that time are gone; the badge and lists read again.
    const reconnected = () => {
      const { queryClient } = latest.current;
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
    };
    const connection = connectPush(token, {
      onPush: handle,
      onLogout: loggedOut,
      onReconnect: reconnected,
    });
    return () => connection.close();
  }, [userId]);
}
