import { CheckOutlined } from "@ant-design/icons";
import {
  ALARM_POPUP_JUMP_MINUTES,
  type AlarmEntry,
  type AlarmRights,
  alarmLevelKey,
} from "@keyway/shared";
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { App, Button, Space, Tag, Typography } from "antd";
import { type CSSProperties, useCallback, useEffect, useRef, useState } from "react";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { type Translate, useLang } from "../../i18n/index.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { ALARM_LEVEL_COLORS } from "../devices/machine.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/** One alarm as its push tells it (SPEC §3 DeviceInformResp and its optional alarm fields). */
export interface PopupAlarm {
  deviceId: number;
  deviceCode: string;
  alarmId?: number;
  level?: number;
  content?: string;
  deviceName?: string;
}

/**
 * Where the user may confirm a device's alarms: the context (eid) the device is seen in and
 * the server's `rights.confirm` from the device's alarm list — the rule the device drawer
 * and the phone's alarm list already follow. null: not known yet; false: may not.
 */
type ConfirmRight = { eid: number } | false | null;

const JUMP_MS = ALARM_POPUP_JUMP_MINUTES * 60_000;
/** The newest alarms the summary lists; the rest are counted. */
const LISTED = 3;
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

/** The first context the device is seen in, and whether the user may confirm its alarms there. */
async function rightsOf(
  queryClient: QueryClient,
  deviceCode: string,
  eids: number[],
): Promise<ConfirmRight> {
  for (const eid of eids) {
    try {
      // The device drawer's query (same key): its rights come with its alarm list.
      const result = await queryClient.fetchQuery({
        queryKey: queryKeys.deviceAlarms(deviceCode, 1, eid),
        queryFn: () => alarmsApi.deviceAlarms({ deviceCode, eid }, 1),
        meta: { silent: true },
      });
      const rights: AlarmRights | undefined = result.rights;
      return rights?.confirm ? { eid } : false;
    } catch {
      // Not in this context: the next one.
    }
  }
  return false;
}

/**
 * The left edge of a drawer open at the window's right (null when none), followed while
 * `active`: the pop-up moves beside it so that its buttons stay free.
 */
function useRightDrawerEdge(active: boolean): number | null {
  const [edge, setEdge] = useState<number | null>(null);
  useEffect(() => {
    if (!active) {
      setEdge(null);
      return;
    }
    let frame = 0;
    const measure = () => {
      frame = 0;
      let left: number | null = null;
      for (const el of document.querySelectorAll(".ant-drawer-open .ant-drawer-content-wrapper")) {
        const rect = el.getBoundingClientRect();
        if (rect.width > 0 && rect.right >= window.innerWidth - 1) {
          left = left === null ? rect.left : Math.min(left, rect.left);
        }
      }
      // Whole pixels: the drawer's slide-in would otherwise re-render the pop-up each frame.
      setEdge(left === null ? null : Math.round(left / 8) * 8);
    };
    const schedule = () => {
      if (!frame) frame = window.requestAnimationFrame(measure);
    };
    measure();
    const observer = new MutationObserver(schedule);
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["class", "style"],
    });
    window.addEventListener("resize", schedule);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", schedule);
      if (frame) window.cancelAnimationFrame(frame);
    };
  }, [active]);
  return edge;
}

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
function ConfirmButton({
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

function SingleAlarm(props: ConfirmProps) {
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

function AlarmSummary({
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
