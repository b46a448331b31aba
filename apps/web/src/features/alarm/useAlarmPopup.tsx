import { ALARM_POPUP_JUMP_MINUTES, type AlarmEntry } from "@keyway/shared";
import { useQueryClient } from "@tanstack/react-query";
import { App, Button, Space, Typography } from "antd";
import { type CSSProperties, useCallback, useEffect, useRef, useState } from "react";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { useLang } from "../../i18n/index.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import {
  AlarmSummary,
  ConfirmButton,
  type PopupAlarm,
  SingleAlarm,
  testId,
} from "./AlarmPopupParts.tsx";
import { type ConfirmRight, rightsOf } from "./popupRights.ts";
import { useRightDrawerEdge } from "./useRightDrawerEdge.ts";

const JUMP_MS = ALARM_POPUP_JUMP_MINUTES * 60_000;
const KEY = "alarm-popup";
/** The notice's width (antd's default) and its gap to the window's or a drawer's edge. */
const WIDTH = 384;
const GAP = 24;
/** A phone's tab bar and safe area: the pop-up sits above them. */
const PHONE_TAB_BAR = 64;

export interface AlarmPopupOptions {
  /** "desktop": bottom right, or beside an open drawer; "phone": above the tab bar. */
  variant: "desktop" | "phone";
  /** Opens one device's alarms. */
  onView: (deviceId: number) => void;
  /** Opens the alarm centre (or the phone's alarms tab). */
  onCentre: () => void;
}

/**
 * The new-alarm pop-up (SPEC §9 "Alarm pop-up jump"): one notice for every alarm that came
 * in, newest first — a single alarm in full, several as a summary ("3 new alarms") listing
 * the newest with a link to the alarm centre. Each alarm the user may confirm has Confirm
 * (PUT /v1/devices/alarms, as in the alarm centre); confirming takes it off the pop-up and
 * refreshes the alarm lists, and the pop-up closes with its last alarm. Left alone, it opens
 * the alarms ALARM_POPUP_JUMP_MINUTES after the newest alarm (the device's when all are of
 * one device, else the alarm centre). It stays clear of the header (bottom of the window)
 * and of an open drawer (beside it, docs decision "popup").
 */
export function useAlarmPopup(options: AlarmPopupOptions): { add: (alarm: PopupAlarm) => void } {
  const { t } = useLang();
  const { notification, message } = App.useApp();
  const queryClient = useQueryClient();
  const [alarms, setAlarms] = useState<PopupAlarm[]>([]);
  const shown = useRef(alarms);
  shown.current = alarms;
  const [rights, setRights] = useState<ReadonlyMap<string, ConfirmRight>>(new Map());
  const [confirming, setConfirming] = useState<ReadonlySet<number>>(new Set());
  const drawerLeft = useRightDrawerEdge(options.variant === "desktop" && alarms.length > 0);
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(options);
  latest.current = options;
  // The contexts to look the device up in: the current one first, then personal, then the others.
  const contextEid = useAppStore((s) => selectCurrentContext(s).eid);
  const enterprises = useAppStore((s) => s.enterprisesList);
  const eids = useRef<number[]>([]);
  eids.current = [...new Set([contextEid, 0, ...enterprises.map((e) => e.eid)])];

  const close = useCallback(() => {
    window.clearTimeout(timer.current);
    timer.current = undefined;
    setAlarms([]);
  }, []);

  const view = useCallback(
    (deviceId: number) => {
      close();
      latest.current.onView(deviceId);
    },
    [close],
  );
  const centre = useCallback(() => {
    close();
    latest.current.onCentre();
  }, [close]);

  const add = useCallback(
    (alarm: PopupAlarm) => {
      setAlarms((list) => [
        alarm,
        ...list.filter((a) => a.alarmId === undefined || a.alarmId !== alarm.alarmId),
      ]);
      setRights((known) => {
        if (known.has(alarm.deviceCode)) {
          // A new alarm may come with changed rights: asked again below, the old answer kept.
          return known;
        }
        return new Map(known).set(alarm.deviceCode, null);
      });
      void rightsOf(queryClient, alarm.deviceCode, eids.current).then((right) =>
        setRights((known) => new Map(known).set(alarm.deviceCode, right)),
      );
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => {
        timer.current = undefined;
        const devices = new Set(shown.current.map((a) => a.deviceId));
        const [only] = devices;
        setAlarms([]);
        if (devices.size === 1 && only !== undefined) latest.current.onView(only);
        else if (devices.size > 1) latest.current.onCentre();
      }, JUMP_MS);
    },
    [queryClient],
  );

  const confirm = useCallback(
    async (alarm: PopupAlarm, eid: number) => {
      const id = alarm.alarmId;
      if (id === undefined) return;
      setConfirming((s) => new Set(s).add(id));
      try {
        await alarmsApi.confirm(id, eid);
        message.success(t("alarms.confirmed"));
        setAlarms((list) => list.filter((a) => a.alarmId !== id));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll }),
          queryClient.invalidateQueries({ queryKey: queryKeys.deviceAlarmsAll(alarm.deviceCode) }),
        ]);
      } catch (error) {
        // The server's refusal (e.g. the level changed meanwhile), in its words.
        showError(error);
      } finally {
        setConfirming((s) => {
          const next = new Set(s);
          next.delete(id);
          return next;
        });
      }
    },
    [message, queryClient, t],
  );

  useEffect(() => {
    if (alarms.length === 0) {
      window.clearTimeout(timer.current);
      notification.destroy(KEY);
      return;
    }
    const devices = new Set(alarms.map((a) => a.deviceId));
    const oneDevice = devices.size === 1 ? alarms[0]?.deviceId : undefined;
    const phone = options.variant === "phone";
    // Beside an open drawer when it leaves room; narrower when it leaves a little less.
    const beside = drawerLeft !== null;
    const width = phone
      ? undefined
      : beside
        ? Math.max(280, Math.min(WIDTH, drawerLeft - 2 * GAP))
        : WIDTH;
    const style: CSSProperties = phone
      ? { width: "calc(100vw - 24px)", marginBottom: PHONE_TAB_BAR }
      : { width };
    const right = (a: PopupAlarm) => rights.get(a.deviceCode) ?? null;
    const single = alarms.length === 1 ? alarms[0] : undefined;
    notification.open({
      key: KEY,
      type: "warning",
      placement: phone ? "bottom" : beside ? "bottomLeft" : "bottomRight",
      duration: false,
      style,
      className: "kw-alarm-popup",
      title: single ? t("push.alarmTitle") : t("push.alarmSummary", { count: alarms.length }),
      description: (
        <div
          data-testid="alarm-popup"
          data-count={alarms.length}
          data-device={oneDevice}
          data-alarm={single?.alarmId}
          data-placement={phone ? "bottom" : beside ? "beside-drawer" : "bottom-right"}
        >
          {single ? (
            <SingleAlarm
              alarm={single}
              right={right(single)}
              confirming={single.alarmId !== undefined && confirming.has(single.alarmId)}
              onConfirm={confirm}
              t={t}
            />
          ) : (
            <AlarmSummary
              alarms={alarms}
              rightOf={right}
              confirming={confirming}
              onConfirm={confirm}
              t={t}
            />
          )}
          <Typography.Text type="secondary" className="kw-small kw-block">
            {t(oneDevice === undefined ? "push.alarmJumpCentreHint" : "push.alarmJumpHint", {
              minutes: ALARM_POPUP_JUMP_MINUTES,
            })}
          </Typography.Text>
        </div>
      ),
      actions: (
        <Space size={8} wrap>
          <Button size="small" onClick={centre} {...testId("alarm-popup-centre")}>
            {t("push.alarmCentre")}
          </Button>
          {oneDevice !== undefined && (
            <Button
              size="small"
              type={single && right(single) ? "default" : "primary"}
              onClick={() => view(oneDevice)}
              {...testId("alarm-popup-view")}
            >
              {t("push.view")}
            </Button>
          )}
          {single?.alarmId !== undefined && right(single) && (
            <ConfirmButton
              alarm={single}
              right={right(single)}
              confirming={confirming.has(single.alarmId)}
              onConfirm={confirm}
              t={t}
              primary
              testid="alarm-popup-confirm"
            />
          )}
        </Space>
      ),
      onClose: close,
    });
  }, [
    alarms,
    rights,
    confirming,
    drawerLeft,
    t,
    notification,
    options.variant,
    confirm,
    view,
    centre,
    close,
  ]);

  // An alarm confirmed elsewhere (a list, another session) leaves the pop-up when a list
  // read after it says so.
  const pending = alarms.length > 0;
  useEffect(() => {
    if (!pending) return;
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== "updated" || event.action.type !== "success") return;
      const list = (event.query.state.data as { list?: unknown } | undefined)?.list;
      if (!Array.isArray(list)) return;
      const done = new Set<number>();
      for (const entry of list as Partial<AlarmEntry>[]) {
        if (entry?.confirmed === 1 && typeof entry.id === "number") done.add(entry.id);
      }
      if (done.size === 0) return;
      setAlarms((shown) => {
        const left = shown.filter((a) => a.alarmId === undefined || !done.has(a.alarmId));
        return left.length === shown.length ? shown : left;
      });
    });
  }, [pending, queryClient]);

  // Leaving the layout (logout) takes the pop-up and its jump along.
  useEffect(
    () => () => {
      window.clearTimeout(timer.current);
      notification.destroy(KEY);
    },
    [notification],
  );

  return { add };
}
