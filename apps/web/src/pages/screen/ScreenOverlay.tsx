import {
  ApiOutlined,
  CloseCircleOutlined,
  CloudOutlined,
  DisconnectOutlined,
  LoadingOutlined,
  LockOutlined,
  StopOutlined,
  UserOutlined,
} from "@ant-design/icons";
import type { Lang } from "@keyway/shared";
import { Button, Flex, Progress, Typography } from "antd";
import type { ReactNode } from "react";
import { useNavigate } from "react-router";
import { useLang } from "../../i18n/index.ts";
import { CONSENT_WAIT_MS } from "../../lib/visit.ts";
import { overlayText, type ScreenState, type ScreenView } from "./screenState.ts";

const ICONS: Record<ScreenState, ReactNode> = {
  connecting: <LoadingOutlined />,
  waiting: <UserOutlined />,
  password: <LockOutlined />,
  online: null,
  ended: <DisconnectOutlined />,
  offline: <ApiOutlined />,
  failed: <CloseCircleOutlined />,
  unbound: <StopOutlined />,
  closed: <CloudOutlined />,
  refused: <StopOutlined />,
};

/**
 * What the middle of the viewer says while the screen is not on: connecting, the on-site
 * approval wait with its seconds left, or why it failed or ended (the server's message) with
 * "Reconnect" — a new visit URL, the old ticket being spent.
 */
export function ScreenOverlay(props: {
  view: ScreenView;
  name: string;
  seconds: number;
  /** The device is known to ask at the machine (true), known not to (false), or unknown. */
  consent: boolean | null;
  lang: Lang;
  onReconnect: () => void;
}) {
  const { t } = useLang();
  const navigate = useNavigate();
  const { view, name, seconds } = props;
  const { title, text } = overlayText(view, name, t, props.lang);
  const busy = view.state === "connecting" || view.state === "waiting";
  const total = CONSENT_WAIT_MS / 1000;
  // On the phone (same tab): back. In a tab of its own: closed — or, where the browser
  // does not let a page close its tab, on to the app.
  const leave = () => {
    if (window.history.length > 1) return navigate(-1);
    window.close();
    window.setTimeout(() => navigate("/", { replace: true }), 200);
  };
  return (
    <div className="kw-screen-overlay" data-testid="screen-overlay" data-state={view.state}>
      <Flex vertical align="center" gap={12} className="kw-screen-overlay-box">
        <span className={`kw-screen-overlay-icon kw-screen-overlay-${view.state}`}>
          {ICONS[view.state]}
        </span>
        <Typography.Title level={4} className="kw-screen-overlay-title" data-testid="screen-title">
          {title}
        </Typography.Title>
        {view.state === "waiting" ? (
          <>
            <Typography.Text
              type="secondary"
              className="kw-screen-overlay-text"
              data-testid="screen-waiting"
            >
              {props.consent === true
                ? t("screen.waitingSure", { name, seconds })
                : t("screen.waitingMaybe", { name, seconds })}
            </Typography.Text>
            <Progress
              type="circle"
              size={72}
              percent={(seconds / total) * 100}
              format={() => `${seconds} s`}
              data-testid="screen-countdown"
              data-seconds={seconds}
            />
          </>
        ) : (
          text && (
            <Typography.Text
              type="secondary"
              className="kw-screen-overlay-text"
              data-testid="screen-message"
            >
              {text}
            </Typography.Text>
          )
        )}
        {!busy && (
          <Flex gap={8} wrap justify="center">
            <Button type="primary" onClick={props.onReconnect} data-testid="screen-reconnect">
              {t("screen.reconnect")}
            </Button>
            <Button onClick={leave} data-testid="screen-leave">
              {t("screen.close")}
            </Button>
          </Flex>
        )}
      </Flex>
    </div>
  );
}
