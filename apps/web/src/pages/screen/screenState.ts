import { HW, hwKeyOf, hwMessage, type Lang } from "@keyway/shared";
import type { Translate } from "../../i18n/index.ts";
import { CONSENT_HINT_AFTER_MS, type ConnectFailure } from "../../lib/visit.ts";
import type { RfbState } from "./useRfb.ts";
import type { ScreenVisit } from "./useScreenVisit.ts";

/**
 * Why it is over: the visit ended or its right went ("visit"), the device went offline, its
 * screen could not be reached, its VNC server closed the session ("device"), the connection
 * dropped or broke ("lost"), the VNC server refused the password ("security"), or the user
 * disconnected ("you").
 */
export type RfbEnd = "visit" | "offline" | "unreachable" | "device" | "lost" | "security" | "you";

/**
 * The relay's close codes (/visit-screen: 4403 refused, 4404 no such visit, 4410 ended,
 * 4502 offline, 4503/4504 target not allowed / unreachable, 4400 a broken RFB session, 1000
 * the VNC server closed it) onto what the viewer says.
 */
export function endOfClose(code: number): RfbEnd {
  if (code === 4403 || code === 4404 || code === 4410) return "visit";
  if (code === 4502) return "offline";
  if (code === 4503 || code === 4504) return "unreachable";
  if (code === 1000) return "device";
  return "lost";
}

/** "10010401 Visit ended" → "10010401". */
export function hwcodeOfReason(reason: string): string | null {
  return /^(\d{8})\b/.exec(reason.trim())?.[1] ?? null;
}

/**
 * The viewer's connection state (SPEC §4 "Connection": connecting; online success; failed or
 * offline; not bound or cloud closed), with issue 20's: waiting for on-site approval, asking
 * the VNC password, not accepted at the machine, and ended (the visit or its right ended,
 * or the connection dropped).
 */
export type ScreenState =
  | "connecting"
  | "waiting"
  | "password"
  | "online"
  | "ended"
  | ConnectFailure;

export interface ScreenView {
  state: ScreenState;
  /** Why it ended or failed, once the session had started. */
  end: RfbEnd | null;
  /** A server's or relay's hwcode, when there is one. */
  code: string | null;
  /** The server's localized message (refusals) or the relay's / VNC server's reason. */
  message: string | null;
}

/**
 * Where the viewer is: the visit URL call first (connecting, then — pending past a second,
 * unless the device is known not to ask — waiting for approval at the machine), then the
 * RFB session over the answer's WebSocket.
 */
export function screenViewOf(
  visit: ScreenVisit,
  rfb: RfbState,
  consent: boolean | null,
  now: number,
): ScreenView {
  if (visit.phase === "asking") {
    const waiting = consent !== false && now - visit.since >= CONSENT_HINT_AFTER_MS;
    return { state: waiting ? "waiting" : "connecting", end: null, code: null, message: null };
  }
  if (visit.phase === "refused") {
    return { state: visit.state, end: null, code: visit.code, message: visit.message };
  }
  if (!visit.visit.ws_url) {
    return { state: "failed", end: null, code: String(HW.SCREEN_NOT_OFFERED.code), message: null };
  }
  const status = rfb.status;
  if (status === "ended" || status === "failed") {
    return { state: status, end: rfb.end, code: rfb.code, message: rfb.detail };
  }
  return { state: status, end: null, code: null, message: null };
}

/** The localized text of a relay close reason's hwcode ("10010401 …"), else null. */
export function closeMessage(code: string | null, lang: Lang): string | null {
  if (!code) return null;
  const key = hwKeyOf(code);
  return key ? hwMessage(key, lang) : null;
}

/** Title and description of the overlay shown while the screen is not on. */
export function overlayText(
  view: ScreenView,
  name: string,
  t: Translate,
  lang: Lang,
): { title: string; text: string } {
  const fromCode = closeMessage(view.code, lang);
  switch (view.state) {
    case "connecting":
    case "password":
      return { title: t("screen.connecting", { name }), text: t("screen.connectingHint") };
    case "waiting":
      return { title: t("screen.waiting"), text: "" };
    case "ended": {
      const end = view.end ?? "lost";
      const generic = end === "visit" ? t("screen.endedHint") : t("screen.lostHint");
      // "Visit ended" says no more than the title: the hint says what may have happened.
      const specific = view.code === String(HW.VISIT_ENDED.code) ? null : fromCode;
      return { title: t(`screen.ended.${end}`, { name }), text: specific ?? generic };
    }
    case "failed": {
      if (view.end === "security") {
        return {
          title: t("screen.ended.security"),
          text: view.message
            ? `${t("screen.securityHint")} (${view.message})`
            : t("screen.securityHint"),
        };
      }
      // The relay's reason in our words when it carries an hwcode; else what was said, as is.
      const said = view.message && !fromCode ? ` (${view.message})` : "";
      return {
        title: t("screen.failed", { name }),
        text: `${fromCode ?? t("screen.failedHint")}${said}`,
      };
    }
    case "online":
      return { title: "", text: "" };
    default:
      // offline, unbound, closed, refused: the server's own message says why.
      return { title: t(`screen.${view.state}`, { name }), text: view.message ?? fromCode ?? "" };
  }
}
