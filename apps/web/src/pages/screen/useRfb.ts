/// <reference types="novnc__novnc" />
import RFBExport from "@novnc/novnc/lib/rfb";
import { useCallback, useEffect, useRef, useState } from "react";
import { endOfClose, hwcodeOfReason, type RfbEnd } from "./screenState.ts";

/**
 * noVNC 1.6 is CommonJS (`exports.default = RFB`, `__esModule`): the bundler's default import
 * is module.exports itself in the production build (Node's interop), the class in others.
 */
const RFB: typeof RFBExport =
  (RFBExport as unknown as { default?: typeof RFBExport }).default ?? RFBExport;
type RFB = RFBExport;

/** Where the RFB session is: handshake, asking a password, showing, or over. */
export type RfbStatus = "connecting" | "password" | "online" | "ended" | "failed";

export interface RfbState {
  status: RfbStatus;
  end: RfbEnd | null;
  /** The close reason's hwcode (the relay closes with "<hwcode> <text>"), or the VNC reason. */
  code: string | null;
  detail: string | null;
  /** What the VNC server asks for: ["password"], or ["username", "password"]. */
  credentials: string[];
  desktopName: string;
  /** The last text the device put on its clipboard. */
  clipboard: string | null;
}

const START: RfbState = {
  status: "connecting",
  end: null,
  code: null,
  detail: null,
  credentials: [],
  desktopName: "",
  clipboard: null,
};

/** The viewer's options on a session (a new one gets them when it starts). */
function applyOptions(rfb: RFB, options: { viewOnly: boolean; scale: boolean }) {
  rfb.viewOnly = options.viewOnly;
  rfb.scaleViewport = options.scale;
  rfb.clipViewport = false;
  rfb.resizeSession = false;
}

export interface RfbControls {
  sendCredentials(credentials: { username?: string; password: string }): void;
  sendCtrlAltDel(): void;
  paste(text: string): void;
  disconnect(): void;
  focus(): void;
}

/**
 * One noVNC session in `target` over the visit's WebSocket `url` (opened here, so that its
 * close code and reason — why the relay ended it — are known; noVNC's own events do not
 * carry them). A new `url` (a reconnect: tickets are good once) starts a new session.
 * `viewOnly` is set on noVNC for the user's sake only: the relay drops a read-only visitor's
 * input whatever the page sends.
 */
export function useRfb(
  target: HTMLElement | null,
  url: string | null,
  options: { viewOnly: boolean; scale: boolean },
): { state: RfbState; controls: RfbControls } {
  const [state, setState] = useState<RfbState>(START);
  const rfbRef = useRef<RFB | null>(null);
  const byUser = useRef(false);
  const optionsRef = useRef(options);
  optionsRef.current = options;

  useEffect(() => {
    if (!target || !url) return;
    setState(START);
    byUser.current = false;
    let over = false;
    let connected = false;
    let closeCode = 0;
    let closeReason = "";
    const finish = (status: "ended" | "failed", end: RfbEnd, code: string | null, detail = "") => {
      if (over) return;
      over = true;
      setState((s) => ({ ...s, status, end, code, detail: detail || null, credentials: [] }));
    };
    let rfb: RFB | null = null;
    // Started a tick later: React's StrictMode (development) mounts effects twice, and the
    // visit's ticket opens one WebSocket only; the first mount's cleanup cancels this.
    const start = window.setTimeout(() => {
      try {
        const socket = new WebSocket(url);
        socket.addEventListener("close", (e) => {
          closeCode = e.code;
          closeReason = e.reason;
        });
        rfb = new RFB(target, socket, { shared: true });
      } catch (error) {
        finish("failed", "lost", null, error instanceof Error ? error.message : String(error));
        return;
      }
      listen(rfb);
    }, 0);
    const listen = (rfb: RFB) => {
      rfbRef.current = rfb;
      rfb.background = "#141414";
      applyOptions(rfb, optionsRef.current);
      rfb.addEventListener("connect", () => {
        connected = true;
        setState((s) => ({ ...s, status: "online", credentials: [] }));
        rfb.focus({ preventScroll: true });
      });
      rfb.addEventListener("credentialsrequired", (e) => {
        setState((s) => ({ ...s, status: "password", credentials: e.detail.types }));
      });
      rfb.addEventListener("securityfailure", (e) => {
        finish("failed", "security", String(e.detail.status), e.detail.reason ?? "");
      });
      rfb.addEventListener("desktopname", (e) => {
        setState((s) => ({ ...s, desktopName: e.detail.name }));
      });
      rfb.addEventListener("clipboard", (e) => {
        setState((s) => ({ ...s, clipboard: e.detail.text }));
      });
      rfb.addEventListener("disconnect", () => {
        // The socket's close event comes first: its code says why.
        const code = hwcodeOfReason(closeReason);
        if (byUser.current) finish("ended", "you", null);
        else finish(connected ? "ended" : "failed", endOfClose(closeCode), code, closeReason);
      });
    };
    return () => {
      over = true;
      window.clearTimeout(start);
      rfbRef.current = null;
      try {
        rfb?.disconnect();
      } catch {
        // Already gone.
      }
    };
  }, [target, url]);

  const { viewOnly, scale } = options;
  useEffect(() => {
    const rfb = rfbRef.current;
    if (rfb) applyOptions(rfb, { viewOnly, scale });
  }, [viewOnly, scale]);

  const sendCredentials = useCallback((c: { username?: string; password: string }) => {
    rfbRef.current?.sendCredentials({
      username: c.username ?? "",
      password: c.password,
      target: "",
    });
    setState((s) => ({ ...s, status: "connecting", credentials: [] }));
  }, []);
  const sendCtrlAltDel = useCallback(() => rfbRef.current?.sendCtrlAltDel(), []);
  const paste = useCallback((text: string) => rfbRef.current?.clipboardPasteFrom(text), []);
  const disconnect = useCallback(() => {
    byUser.current = true;
    rfbRef.current?.disconnect();
  }, []);
  const focus = useCallback(() => rfbRef.current?.focus({ preventScroll: true }), []);

  return { state, controls: { sendCredentials, sendCtrlAltDel, paste, disconnect, focus } };
}
