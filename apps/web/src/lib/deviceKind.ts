import { MOBILE, PATHS } from "../paths.ts";
import { safeStorage } from "./storage.ts";

/**
 * What kind of device the page runs on (SPEC §1): desktop browsers use the main app, phones
 * and tablets are sent to the mobile route, TV boxes get TV-box mode (no navigation, the
 * device wall) and are never sent to the mobile route even though most of them run Android.
 */
export type DeviceKind = "desktop" | "mobile" | "tv";

/**
 * TV boxes and smart TVs by user agent: Samsung (SMART-TV, Tizen), LG (Web0S, NetCast),
 * Sony BRAVIA, HbbTV sets, Android TV / Google TV, Amazon Fire TV (AFTxx models), Xiaomi
 * Mi Box, Dangbei, Chromecast (CrKey), Apple TV, Roku, Opera TV.
 */
const TV_UA =
  /SMART-?TV|SmartTV|Android ?TV|GoogleTV|\bAFT[A-Z0-9]|BRAVIA|\bWeb0S\b|\bwebOS.*TV|NetCast|HbbTV|MiBOX|MIBOX|DangbeiOS|\bCrKey\b|AppleTV|\bRoku\b|Opera TV|\bTV Safari\b|; ?TV;/i;
/** Tizen also runs on phones and watches; only one without a "Mobile" token is a TV. */
const TIZEN = /\bTizen\b/i;
const MOBILE_UA =
  /Android|iPhone|iPad|iPod|Mobile|HarmonyOS|OpenHarmony|Windows Phone|IEMobile|BlackBerry|BB10|Opera Mini|Kindle|Silk\//i;

/** What the page can tell besides the user agent (iPadOS presents itself as a Mac). */
export interface DeviceHints {
  maxTouchPoints?: number;
  /** The primary pointer is a finger (CSS `pointer: coarse`). */
  coarsePointer?: boolean;
  /** The shorter side of the screen in CSS pixels. */
  screenShortSide?: number;
}

/** Narrower than this (and touch-driven) is a phone or small tablet whatever it claims. */
const MOBILE_SHORT_SIDE = 768;

export function isTvUserAgent(ua: string): boolean {
  if (TV_UA.test(ua)) return true;
  return TIZEN.test(ua) && !/Mobile/i.test(ua);
}

/** The kind of device from its user agent and, for desktop-looking agents, touch hints. */
export function deviceKindOf(ua: string, hints: DeviceHints = {}): DeviceKind {
  if (isTvUserAgent(ua)) return "tv";
  if (MOBILE_UA.test(ua)) return "mobile";
  // iPadOS 13+ sends a desktop Safari agent; a Mac has no touch points.
  if (/Macintosh/.test(ua) && (hints.maxTouchPoints ?? 0) > 1) return "mobile";
  // "Request desktop site" on a phone: a finger on a small screen is still a phone.
  if (hints.coarsePointer && (hints.screenShortSide ?? Infinity) < MOBILE_SHORT_SIDE) {
    return "mobile";
  }
  return "desktop";
}

// ---- TV-box mode by query flag, remembered ----

/** `?tv=1` turns TV-box mode on for this browser (remembered), `?tv=0` turns it off. */
export const TV_PARAM = "tv";
export const TV_STORAGE_KEY = "keyway.tvMode";

/**
 * The remembered TV flag after applying `search` (a page's query string): "1" on, "0" off,
 * null when the browser never said.
 */
export function applyTvFlag(search: string): "1" | "0" | null {
  const value = new URLSearchParams(search).get(TV_PARAM);
  if (value === "1" || value === "0") safeStorage.set(TV_STORAGE_KEY, value);
  const stored = safeStorage.get(TV_STORAGE_KEY);
  return stored === "1" || stored === "0" ? stored : null;
}

function browserHints(): DeviceHints {
  const coarse =
    typeof window.matchMedia === "function" && window.matchMedia("(pointer: coarse)").matches;
  return {
    maxTouchPoints: navigator.maxTouchPoints,
    coarsePointer: coarse,
    screenShortSide: Math.min(window.screen.width, window.screen.height),
  };
}

/**
 * This browser's kind: a remembered `?tv=1` makes it a TV, a remembered `?tv=0` takes a TV
 * agent back to the desktop app; otherwise the user agent and touch hints decide.
 */
export function currentDeviceKind(search: string = window.location.search): DeviceKind {
  const flag = applyTvFlag(search);
  if (flag === "1") return "tv";
  const kind = deviceKindOf(navigator.userAgent, browserHints());
  if (flag === "0" && kind === "tv") return "desktop";
  return kind;
}

export function isTvMode(search?: string): boolean {
  return currentDeviceKind(search) === "tv";
}

// ---- Where a phone goes instead of a desktop route ----

/**
 * A path as the router matches it: without trailing slashes and in lower case (react-router
 * matches routes case-insensitively, so "/Register/" is the register page too).
 */
export function routeKey(pathname: string): string {
  const trimmed = pathname.replace(/\/+$/, "");
  return (trimmed || "/").toLowerCase();
}

/** The desktop routes that have a mobile counterpart; everything else lands on the list. */
const MOBILE_COUNTERPART: Record<string, string> = {
  [routeKey("/login")]: MOBILE.login,
  [routeKey("/loginTimeout")]: MOBILE.login,
  [routeKey("/msgCenter")]: MOBILE.messages,
  [routeKey("/alarmCenter")]: MOBILE.alarms,
  [routeKey("/safety")]: MOBILE.me,
  [routeKey("/userInfo")]: MOBILE.me,
};

/** One 4G card's page (what the card's QR holds) and its phone view, the ICCID kept as is. */
const IOT_CARD = /^\/iotcard\/([^/]+)\/*$/i;

export function isMobilePath(pathname: string): boolean {
  const key = routeKey(pathname);
  return key === MOBILE.root || key.startsWith(`${MOBILE.root}/`);
}

/**
 * Where a phone opening `pathname` is sent, keeping only the `language` query (every route
 * takes it), or null when it stays: the mobile route itself and the exempt pages (compared
 * as the router matches, so a trailing slash or another case is still exempt).
 */
export function mobileRedirectTarget(
  pathname: string,
  search: string,
  exempt: ReadonlySet<string>,
): string | null {
  const key = routeKey(pathname);
  if (isMobilePath(pathname)) return null;
  for (const path of exempt) if (routeKey(path) === key) return null;
  // A device's screen is one full-window page on every device, the phone's included.
  if (key.startsWith(`${routeKey(PATHS.screen)}/`)) return null;
  const card = IOT_CARD.exec(pathname);
  const target = card ? `${MOBILE.iotCard}/${card[1]}` : (MOBILE_COUNTERPART[key] ?? MOBILE.root);
  const language = new URLSearchParams(search).get("language");
  return language ? `${target}?language=${encodeURIComponent(language)}` : target;
}
