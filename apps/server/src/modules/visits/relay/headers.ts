import type { IncomingMessage } from "node:http";
import type { VisitSession } from "../session.ts";
import { type Route, VISIT_COOKIE } from "./route.ts";

/**
 * What the relay reads of a browser's request: Node's IncomingMessage, or the head the front
 * door read itself (front.ts).
 */
export type BrowserRequest = Pick<
  IncomingMessage,
  "method" | "url" | "rawHeaders" | "headers" | "socket"
>;

/**
 * Path mode answers run in an opaque origin (docs/security.md): no access to Keyway's
 * cookies, storage or API as the visitor, no top navigation of the visitor's tab; the rest
 * a device UI needs (scripts, forms, pop-ups that stay sandboxed, dialogs, downloads) stays.
 */
const PATH_MODE_HEADERS = [
  "Content-Security-Policy",
  "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads allow-pointer-lock",
  // The key is in the URL: no page may carry it away in a Referer.
  "Referrer-Policy",
  "no-referrer",
];

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  // Scanned in place (every relayed request reads it): `name=value` pairs between semicolons.
  for (let at = 0; at < header.length; ) {
    let end = header.indexOf(";", at);
    if (end < 0) end = header.length;
    const eq = header.indexOf("=", at);
    if (eq > at && eq < end && header.slice(at, eq).trim() === name)
      return header.slice(eq + 1, end).trim();
    at = end + 1;
  }
  return undefined;
}

/** The Cookie header of a visit host without Keyway's visit cookie (the device never sees it). */
function deviceCookies(header: string): string {
  return header
    .split(";")
    .filter((part) => {
      const name = part.split("=")[0]?.trim();
      return name && name !== VISIT_COOKIE;
    })
    .map((p) => p.trim())
    .join("; ");
}

/** Path mode: a device's Set-Cookie goes into the visit's jar (deleted when it expires it). */
function keepCookie(jar: Map<string, string>, setCookie: string, now: number) {
  const [pair, ...attributes] = setCookie.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return;
  const name = pair.slice(0, eq).trim();
  let gone = false;
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.split("=");
    const value = rest.join("=").trim();
    const lower = key.trim().toLowerCase();
    if (lower === "max-age" && Number(value) <= 0) gone = true;
    if (lower === "expires" && Date.parse(value) <= now) gone = true;
  }
  if (gone) jar.delete(name);
  // Bounded: a device cannot grow the server's memory through its cookies.
  else if (jar.has(name) || jar.size < 64)
    jar.set(
      name,
      pair
        .slice(eq + 1)
        .trim()
        .slice(0, 4096),
    );
}

function jarHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/**
 * The headers both ways between the browser and the device: the browser's own (Keyway's
 * cookies, forwarding headers, hop-by-hop ones) stay out, the device sees itself as the
 * origin, and its answer is kept on the visit (Location, cookies, path mode's policy).
 */
export function createRelayHeaders(publicProto: "http" | "https") {
  /** Where the browser stands: the visit host, or Keyway's host in path mode. */
  function browserOrigin(request: BrowserRequest): string {
    return `${publicProto}://${request.headers.host ?? ""}`;
  }

  function requestHeaders(
    request: BrowserRequest,
    session: VisitSession,
    r: Route,
    keepUpgrade: boolean,
  ): string[] {
    const origin = browserOrigin(request);
    const deviceOrigin = `http://${session.target}`;
    const out: string[] = [];
    const raw = request.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      const lower = name.toLowerCase();
      let value = raw[i + 1];
      if (lower === "host" || lower === "expect" || lower === "cloudtoken") continue;
      if (lower.startsWith("x-forwarded-")) continue;
      if (
        HOP_BY_HOP.has(lower) &&
        !(keepUpgrade && (lower === "upgrade" || lower === "connection"))
      )
        continue;
      if (lower === "cookie") {
        // Path mode: the browser's cookies are Keyway's (token, lang); the device's are in the jar.
        if (r.prefix) continue;
        value = deviceCookies(value);
        if (!value) continue;
      }
      // The device sees itself as the origin, as if the browser stood on its LAN (a
      // sandboxed path-mode page says "null").
      if (lower === "origin" && (value === origin || (r.prefix && value === "null")))
        value = deviceOrigin;
      if (lower === "referer" && value.startsWith(`${origin}${r.prefix}`))
        value = deviceOrigin + (value.slice(origin.length + r.prefix.length) || "/");
      out.push(name, value);
    }
    if (r.prefix && session.jar.size > 0) out.push("Cookie", jarHeader(session.jar));
    const client = request.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "";
    const forwardedFor = request.headers["x-forwarded-for"];
    out.push(
      "Host",
      session.target,
      "X-Forwarded-For",
      forwardedFor ? `${forwardedFor}, ${client}` : client,
      "X-Forwarded-Host",
      request.headers.host ?? "",
      "X-Forwarded-Proto",
      publicProto,
    );
    if (r.prefix) out.push("X-Forwarded-Prefix", r.prefix);
    return out;
  }

  function responseHeaders(
    raw: string[],
    request: BrowserRequest,
    session: VisitSession,
    r: Route,
  ): string[] {
    const origin = browserOrigin(request);
    const out: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      const lower = name.toLowerCase();
      let value = raw[i + 1];
      if (HOP_BY_HOP.has(lower)) continue;
      // Clear-Site-Data reaches the whole site (Keyway's own cookies too); the pages' policy
      // is ours in path mode.
      if (lower === "clear-site-data") continue;
      if (r.prefix && lower === "referrer-policy") continue;
      if (lower === "location") {
        // The device names itself by its LAN address; the browser must stay on the visit.
        for (const self of [`http://${session.target}`, `https://${session.target}`]) {
          if (value.startsWith(self)) value = origin + r.prefix + (value.slice(self.length) || "/");
        }
        if (r.prefix && value.startsWith("/") && !value.startsWith("//")) value = r.prefix + value;
      }
      if (lower === "set-cookie") {
        // Path mode: kept in the visit's jar on the server, never set on Keyway's host.
        if (r.prefix) {
          keepCookie(session.jar, value, Date.now());
          continue;
        }
        // Cookies stay on the visit host.
        value = value.replace(/;\s*domain=[^;]*/gi, "");
      }
      out.push(name, value);
    }
    if (r.prefix) out.push(...PATH_MODE_HEADERS);
    return out;
  }

  return { requestHeaders, responseHeaders };
}

export type RelayHeaders = ReturnType<typeof createRelayHeaders>;
