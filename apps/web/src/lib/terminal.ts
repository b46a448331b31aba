import { currentDeviceKind, isMobilePath } from "./deviceKind.ts";
import { STORAGE_KEY, safeStorage } from "./storage.ts";

/** A random RFC 4122 v4 UUID; crypto.randomUUID exists only in secure contexts. */
function uuid(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The terminal UUID of this browser, created once and kept in localStorage. */
export function terminalUUID(): string {
  let id = safeStorage.get(STORAGE_KEY.terminalUUID);
  if (!id) {
    id = uuid();
    safeStorage.set(STORAGE_KEY.terminalUUID, id);
  }
  return id;
}

/** "Chrome 126", "Edge 125", "Firefox 127", "Safari 17" … from the user agent. */
export function browserName(ua: string = navigator.userAgent): string {
  const rules: [RegExp, string][] = [
    [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
    [/OPR\/(\d+)/, "Opera"],
    [/SamsungBrowser\/(\d+)/, "Samsung Internet"],
    [/Firefox\/(\d+)/, "Firefox"],
    [/FxiOS\/(\d+)/, "Firefox"],
    [/CriOS\/(\d+)/, "Chrome"],
    [/Chrom(?:e|ium)\/(\d+)/, "Chrome"],
    [/Version\/(\d+)[\d.]* .*Safari\//, "Safari"],
  ];
  for (const [pattern, name] of rules) {
    const match = pattern.exec(ua);
    if (match) return `${name} ${match[1]}`;
  }
  return "Browser";
}

/** "Windows", "macOS", "Linux", "Android 14", "iOS 17" … */
export function osName(ua: string = navigator.userAgent): string {
  const android = /Android (\d+)/.exec(ua);
  if (android) return `Android ${android[1]}`;
  const ios = /(?:iPhone|iPad|iPod).* OS (\d+)/.exec(ua);
  if (ios) return `iOS ${ios[1]}`;
  if (/Windows NT 10/.test(ua)) return "Windows 10/11";
  if (/Windows/.test(ua)) return "Windows";
  if (/Mac OS X/.test(ua)) return "macOS";
  if (/CrOS/.test(ua)) return "ChromeOS";
  if (/Linux/.test(ua)) return "Linux";
  return "Unknown";
}

/**
 * The terminal type sent at login. The server keeps one live session per type, so a phone on
 * the mobile route ("mobile") and a TV wall ("tv") do not push out the desktop ("web") of the
 * same account; "android" / "ios" stay the phone apps' own (docs/architecture/accounts.md#login).
 */
export type WebTerminalType = "web" | "mobile" | "tv";

export function terminalType(
  pathname: string = window.location.pathname,
  search: string = window.location.search,
): WebTerminalType {
  if (isMobilePath(pathname)) return "mobile";
  const kind = currentDeviceKind(search);
  return kind === "desktop" ? "web" : kind;
}

export function terminalInfo() {
  return {
    terminalUUID: terminalUUID(),
    terminalType: terminalType(),
    terminalName: browserName(),
    terminalOS: osName(),
  } as const;
}
