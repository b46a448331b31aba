import { ConfigProvider, Grid, theme } from "antd";
import { useEffect, useState } from "react";
import { Navigate, useLocation, useParams } from "react-router";
import type { VisitScope } from "../../api/visits.ts";
import { useConsentSecondsLeft } from "../../features/device/ConsentCountdown.tsx";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { loginPathFor } from "../account/returnPath.ts";
import { ScreenBar } from "./ScreenBar.tsx";
import { ScreenClipboard } from "./ScreenClipboard.tsx";
import { ScreenOverlay } from "./ScreenOverlay.tsx";
import { ScreenPassword } from "./ScreenPassword.tsx";
import { screenViewOf } from "./screenState.ts";
import { useRfb } from "./useRfb.ts";
import { useScreenDevice, useScreenVisit } from "./useScreenVisit.ts";
import "./screen.css";

const positive = (value: string | null | undefined): number | undefined => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/**
 * /screen/<machine id>[?eid=|?project=]: a device's own screen (VNC) in the browser, full
 * window, outside the main layout (issue 20). Signed-in users only; anyone else logs in and
 * comes back here.
 */
export function ScreenPage() {
  const { pathname, search } = useLocation();
  const id = positive(useParams().id);
  const query = new URLSearchParams(search);
  const eid = positive(query.get("eid"));
  const projectId = positive(query.get("project"));
  if (!hasToken()) return <Navigate to={loginPathFor(pathname, search)} replace />;
  if (!id) return <Navigate to="/" replace />;
  return (
    // A screen is best seen on dark surroundings: the viewer's own controls, drawers and
    // dialogs are antd's dark theme (the brand colour kept).
    <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
      <ScreenViewer key={`${id}-${eid}-${projectId}`} machineId={id} scope={{ eid, projectId }} />
    </ConfigProvider>
  );
}

/**
 * The viewer: asks the screen visit (kind "screen"), shows the connection state in the bar and,
 * while the screen is not on, in the middle; runs noVNC against the answer's WebSocket, with
 * scaling (fit or 1:1), full screen, clipboard, Ctrl+Alt+Del and the VNC password asked here
 * (held by the form only until sent). A reconnect asks a new visit URL.
 */
function ScreenViewer({ machineId, scope }: { machineId: number; scope: VisitScope }) {
  const { t, lang } = useLang();
  const compact = !Grid.useBreakpoint().md;
  const [attempt, setAttempt] = useState(0);
  const [scale, setScale] = useState(true);
  const [clipboardOpen, setClipboardOpen] = useState(false);
  const [stage, setStage] = useState<HTMLDivElement | null>(null);
  const [page, setPage] = useState<HTMLDivElement | null>(null);
  const device = useScreenDevice(machineId, scope);
  const visit = useScreenVisit(machineId, scope, attempt);
  const ready = visit.phase === "ready" ? visit.visit : null;
  const viewOnly = ready?.view_only ?? false;
  const { state: rfb, controls } = useRfb(stage, ready?.ws_url ?? null, { viewOnly, scale });
  const seconds = useConsentSecondsLeft(visit.phase === "asking" ? visit.since : null);
  const view = screenViewOf(visit, rfb, device.consent, Date.now());
  const shownName = device.name || rfb.desktopName || t("screen.thisDevice");

  // The page itself never scrolls or zooms by a finger on the screen (touch drives the pointer).
  useEffect(() => {
    document.documentElement.classList.add("kw-screen-open");
    return () => document.documentElement.classList.remove("kw-screen-open");
  }, []);

  const reconnect = () => {
    setClipboardOpen(false);
    setAttempt((n) => n + 1);
  };

  return (
    <div
      ref={setPage}
      className="kw-screen-page"
      data-testid="screen-page"
      data-state={view.state}
      data-view-only={viewOnly ? 1 : 0}
    >
      <ScreenBar
        name={shownName}
        desktopName={rfb.desktopName}
        view={view}
        viewOnly={viewOnly}
        compact={compact}
        scale={scale}
        onScale={setScale}
        fullscreenTarget={page}
        clipboardFresh={rfb.clipboard !== null}
        onClipboard={() => setClipboardOpen(true)}
        controls={controls}
        onReconnect={reconnect}
      />
      <div className="kw-screen-stage" data-testid="screen-stage">
        <div
          ref={setStage}
          className={`kw-screen-canvas${view.state === "online" ? "" : " kw-screen-canvas-idle"}`}
          data-testid="screen-canvas"
        />
        {view.state !== "online" && view.state !== "password" && (
          <ScreenOverlay
            view={view}
            name={shownName}
            seconds={seconds}
            consent={device.consent}
            lang={lang}
            onReconnect={reconnect}
          />
        )}
      </div>
      <ScreenPassword
        open={view.state === "password"}
        name={shownName}
        credentials={rfb.credentials}
        onSubmit={controls.sendCredentials}
        onCancel={controls.disconnect}
      />
      <ScreenClipboard
        open={clipboardOpen}
        compact={compact}
        fromDevice={rfb.clipboard}
        viewOnly={viewOnly}
        online={view.state === "online"}
        onSend={controls.paste}
        onClose={() => {
          setClipboardOpen(false);
          controls.focus();
        }}
      />
    </div>
  );
}
