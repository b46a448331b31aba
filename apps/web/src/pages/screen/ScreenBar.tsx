import {
  CompressOutlined,
  ControlOutlined,
  CopyOutlined,
  DisconnectOutlined,
  EyeOutlined,
  FullscreenExitOutlined,
  FullscreenOutlined,
  ReloadOutlined,
} from "@ant-design/icons";
import {
  Badge,
  type BadgeProps,
  Button,
  Popconfirm,
  Segmented,
  Tag,
  Tooltip,
  Typography,
} from "antd";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { useLang } from "../../i18n/index.ts";
import type { ScreenState, ScreenView } from "./screenState.ts";
import type { RfbControls } from "./useRfb.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

const BADGE: Record<ScreenState, BadgeProps["status"]> = {
  connecting: "processing",
  waiting: "processing",
  password: "processing",
  online: "success",
  ended: "default",
  offline: "warning",
  failed: "error",
  unbound: "error",
  closed: "error",
  refused: "error",
};

/** The Fullscreen API on `target`, where the browser has it (not on an iPhone's Safari). */
function useFullscreen(target: HTMLElement | null) {
  const [active, setActive] = useState(false);
  useEffect(() => {
    const sync = () => setActive(document.fullscreenElement !== null);
    document.addEventListener("fullscreenchange", sync);
    return () => document.removeEventListener("fullscreenchange", sync);
  }, []);
  const toggle = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
    else void target?.requestFullscreen().catch(() => {});
  }, [target]);
  return { supported: document.fullscreenEnabled === true, active, toggle };
}

/** A bar button: text and icon on a wide screen, the icon with a tooltip on a phone. */
function BarButton(props: {
  icon: ReactNode;
  label: string;
  compact: boolean;
  disabled?: boolean;
  danger?: boolean;
  onClick?: () => void;
  testId: string;
}) {
  const button = (
    <Button
      size="small"
      type="text"
      className="kw-screen-bar-button"
      icon={props.icon}
      disabled={props.disabled}
      danger={props.danger}
      onClick={props.onClick}
      aria-label={props.label}
      data-testid={props.testId}
    >
      {props.compact ? null : props.label}
    </Button>
  );
  return props.compact ? <Tooltip title={props.label}>{button}</Tooltip> : button;
}

/**
 * The viewer's top bar: the device, the connection state (SPEC §4), "view only" for a
 * read-only visitor, and the tools — fit or 1:1, clipboard, Ctrl+Alt+Del (asked first: some
 * systems restart on it), full screen, disconnect or reconnect.
 */
export function ScreenBar(props: {
  name: string;
  desktopName: string;
  view: ScreenView;
  viewOnly: boolean;
  compact: boolean;
  scale: boolean;
  onScale: (scale: boolean) => void;
  fullscreenTarget: HTMLElement | null;
  clipboardFresh: boolean;
  onClipboard: () => void;
  controls: RfbControls;
  onReconnect: () => void;
}) {
  const { t } = useLang();
  const { view, compact, controls } = props;
  const fullscreen = useFullscreen(props.fullscreenTarget);
  const online = view.state === "online";
  const over = !["connecting", "waiting", "password", "online"].includes(view.state);
  return (
    <header className="kw-screen-bar" data-testid="screen-bar">
      <div className="kw-screen-bar-title">
        <Typography.Text strong ellipsis className="kw-screen-name" data-testid="screen-name">
          {props.name}
        </Typography.Text>
        {!compact && props.desktopName && props.desktopName !== props.name && (
          <Typography.Text type="secondary" ellipsis className="kw-screen-desktop">
            {props.desktopName}
          </Typography.Text>
        )}
        <span
          className="kw-screen-state"
          data-testid="screen-status"
          data-state={view.state}
          data-end={view.end ?? ""}
          data-code={view.code ?? ""}
        >
          <Badge status={BADGE[view.state]} text={t(`screen.states.${view.state}`)} />
        </span>
        {props.viewOnly && (
          <Tooltip title={t("screen.viewOnlyHint")}>
            <Tag
              color="gold"
              icon={<EyeOutlined />}
              className="kw-screen-tag"
              data-testid="screen-view-only"
            >
              {t("screen.viewOnly")}
            </Tag>
          </Tooltip>
        )}
      </div>
      <div className="kw-screen-tools">
        {compact ? (
          <BarButton
            compact
            icon={props.scale ? <span className="kw-screen-one">1:1</span> : <CompressOutlined />}
            label={props.scale ? t("screen.actual") : t("screen.fit")}
            onClick={() => props.onScale(!props.scale)}
            testId="screen-scale-toggle"
          />
        ) : (
          <Segmented
            size="small"
            value={props.scale ? "fit" : "actual"}
            onChange={(value) => props.onScale(value === "fit")}
            options={[
              {
                value: "fit",
                label: <span data-testid="screen-scale-fit">{t("screen.fit")}</span>,
              },
              { value: "actual", label: <span data-testid="screen-scale-actual">1:1</span> },
            ]}
          />
        )}
        <Badge dot={props.clipboardFresh} offset={[-4, 4]}>
          <BarButton
            compact={compact}
            icon={<CopyOutlined />}
            label={t("screen.clipboard")}
            disabled={!online}
            onClick={props.onClipboard}
            testId="screen-clipboard"
          />
        </Badge>
        <Popconfirm
          title={t("screen.ctrlAltDelConfirm", { name: props.name })}
          description={t("screen.ctrlAltDelHint")}
          okText={t("screen.send")}
          onConfirm={() => {
            controls.sendCtrlAltDel();
            controls.focus();
          }}
          disabled={!online || props.viewOnly}
          okButtonProps={{ ...testId("screen-cad-confirm") }}
        >
          <span>
            <BarButton
              compact={compact}
              icon={<ControlOutlined />}
              label={t("screen.ctrlAltDel")}
              disabled={!online || props.viewOnly}
              testId="screen-cad"
            />
          </span>
        </Popconfirm>
        {fullscreen.supported && (
          <BarButton
            compact={compact}
            icon={fullscreen.active ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
            label={fullscreen.active ? t("screen.exitFullscreen") : t("screen.fullscreen")}
            onClick={fullscreen.toggle}
            testId="screen-fullscreen"
          />
        )}
        {over ? (
          <BarButton
            compact={compact}
            icon={<ReloadOutlined />}
            label={t("screen.reconnect")}
            onClick={props.onReconnect}
            testId="screen-bar-reconnect"
          />
        ) : (
          <BarButton
            compact={compact}
            icon={<DisconnectOutlined />}
            label={t("screen.disconnect")}
            danger
            disabled={view.state !== "online" && view.state !== "password"}
            onClick={controls.disconnect}
            testId="screen-disconnect"
          />
        )}
      </div>
    </header>
  );
}
