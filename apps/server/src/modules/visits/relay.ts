import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { TUNNEL_RESET } from "@keyway/protocol";
import { TunnelError } from "@keyway/protocol/mux";
import { HW, type HwKey } from "@keyway/shared";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { createWebSocketStream, type WebSocket } from "ws";
import { AppError } from "../../http/envelope.ts";
import type { Actor } from "../access/service.ts";
import { DeviceOfflineError } from "../tunnel/service.ts";
import { bridgeWebSocket, forwardHttp, forwardUpgrade, RELAYED_HEADER } from "./forward.ts";
import type { VisitHosts } from "./hosts.ts";
import type { VisitService, VisitSession } from "./service.ts";

/** The visit cookie: the ticket of the visit URL, exchanged on first open. */
export const VISIT_COOKIE = "kw_visit";
export const TICKET_PARAM = "kw_ticket";

/**
 * Path mode: `/visit/<id>/?kw_ticket=T` is claimed once and moves to `/visit/<id>.<key>/`,
 * where the key (the visit's secret, 256 bits) stands in for the cookie a sandboxed page
 * cannot carry.
 */
const VISIT_PATH = /^\/visit\/([a-z2-7]{26})(?:\.([A-Za-z0-9_-]{43}))?(\/[^?]*)?(\?.*)?$/;

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

/** WebSocket close codes of `/visit-tcp` (4000-4999 are the application's). */
export const TCP_CLOSE: Partial<Record<HwKey, number>> = {
  VISIT_NOT_FOUND: 4404,
  VISIT_ENDED: 4410,
  DEVICE_OFFLINE: 4502,
  TARGET_NOT_ALLOWED: 4503,
  TARGET_UNREACHABLE: 4504,
};

interface Route {
  id: string;
  /** "/visit/<id>.<key>" (or "/visit/<id>" before the claim) in path mode, "" on the visit host. */
  prefix: string;
  /** The device's path and query. */
  path: string;
  /** Path mode: the visit's key from the URL (undefined before the claim). */
  key?: string;
  /** Path mode: whether the URL went on past the prefix with a slash. */
  trailingSlash?: boolean;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
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
 * The relay (ARCHITECTURE "Remote access"): a browser's requests to a visit host
 * (`<id>.visit.<host>`) or under `/visit/<id>/` go to the device's web UI through the agent's
 * tunnel — HTTP through a keep-alive pool of tunnel streams per visit, WebSocket upgrades as
 * raw byte pipes — and `/visit-tcp/<id>` carries a raw TCP stream for `keyway-agent forward`.
 * Every hop is a stream with backpressure: nothing holds more than a tunnel window per stream.
 */
export function createRelay(deps: {
  visits: VisitService;
  hosts: VisitHosts;
  publicUrl: string;
  log: FastifyBaseLogger;
}) {
  const { visits, hosts, log } = deps;
  const secure = deps.publicUrl.startsWith("https:");
  const publicProto = secure ? "https" : "http";

  /** The visit a request belongs to: by its host (under the visit domain only) or its path. */
  function route(request: IncomingMessage): Route | null {
    const url = request.url ?? "/";
    const byHost = hosts.idOfHost(request.headers.host);
    if (byHost) return { id: byHost, prefix: "", path: url.startsWith("/") ? url : `/${url}` };
    const byPath = VISIT_PATH.exec(url);
    if (!byPath) return null;
    const key = byPath[2];
    return {
      id: byPath[1],
      prefix: key ? `/visit/${byPath[1]}.${key}` : `/visit/${byPath[1]}`,
      path: `${byPath[3] ?? "/"}${byPath[4] ?? ""}`,
      key,
      trailingSlash: byPath[3] !== undefined,
    };
  }

  /** The visit of a request: the cookie on a visit host, the key in the path in path mode. */
  function sessionFor(request: IncomingMessage, r: Route): Promise<VisitSession> {
    if (r.prefix) return visits.byCookie(r.id, r.key);
    return visits.byCookie(r.id, cookieValue(request.headers.cookie, VISIT_COOKIE));
  }

  /** onRequest hook: visit traffic is taken out of Fastify before any route sees it. */
  async function onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const found = route(request.raw);
    if (!found) return;
    reply.hijack();
    if (request.raw.headers.upgrade) {
      void upgrade(request.raw, request.raw.socket, upgradeHead(request.raw), found);
    } else {
      void relayHttp(request.raw, reply.raw, found);
    }
  }

  /**
   * The fast path, ahead of Fastify on the HTTP server itself: a visit request is taken here
   * (true) without routing, hooks or reply objects, which cost more than the relay's own work
   * on a small request. Upgrades stay with @fastify/websocket and `onRequest`.
   */
  function take(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.headers.upgrade) return false;
    const found = route(request);
    if (!found) return false;
    void relayHttp(request, response, found);
    return true;
  }

  /** Where the browser stands: the visit host, or Keyway's host in path mode. */
  function browserOrigin(request: IncomingMessage): string {
    return `${publicProto}://${request.headers.host ?? ""}`;
  }

  function requestHeaders(
    request: IncomingMessage,
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
    request: IncomingMessage,
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

  /** Another node's URL when it holds the tunnel of the visit's device (several nodes). */
  async function elsewhere(request: IncomingMessage, r: Route): Promise<string | null> {
    if (request.headers[RELAYED_HEADER]) return null;
    return visits.nodeOf(r.id);
  }

  async function relayHttp(request: IncomingMessage, response: ServerResponse, r: Route) {
    let session: VisitSession;
    try {
      const node = await elsewhere(request, r);
      if (node) return forwardHttp(request, response, node, (error) => refuse(response, error));
      const ticket = r.path.includes(`${TICKET_PARAM}=`)
        ? new URL(r.path, "http://visit").searchParams.get(TICKET_PARAM)
        : null;
      if (ticket) {
        const { cookie } = await visits.claim(r.id, ticket);
        request.resume();
        const url = new URL(r.path, "http://visit");
        url.searchParams.delete(TICKET_PARAM);
        clearHeaders(response);
        // On a visit host the secret becomes the visit cookie; in path mode it goes into the
        // path, since the sandboxed page's requests carry no cookies.
        const pathMode = r.prefix !== "";
        response.writeHead(302, {
          location: `${pathMode ? `/visit/${r.id}.${cookie}` : ""}${url.pathname}${url.search}`,
          ...(pathMode
            ? {}
            : {
                "set-cookie": `${VISIT_COOKIE}=${cookie}; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
              }),
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
          "content-length": "0",
        });
        response.end();
        return;
      }
      if (r.prefix && !r.trailingSlash) {
        // Relative links of the device's pages resolve against /visit/<id>.<key>/, not /visit/.
        request.resume();
        clearHeaders(response);
        response.writeHead(301, { location: `${r.prefix}${r.path}`, "content-length": "0" });
        response.end();
        return;
      }
      session = await sessionFor(request, r);
    } catch (error) {
      request.resume();
      return refuse(response, error);
    }
    visits.touch(session);
    const upstream = http.request({
      method: request.method,
      path: r.path,
      headers: requestHeaders(request, session, r, false),
      agent: visits.agentOf(session),
      setHost: false,
    });
    upstream.on("response", (answer) => {
      clearHeaders(response);
      response.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage,
        responseHeaders(answer.rawHeaders, request, session, r),
      );
      answer.pipe(response);
      answer.on("error", () => response.destroy());
      answer.on("aborted", () => response.destroy());
    });
    upstream.on("error", (error) => {
      request.unpipe(upstream);
      if (!response.headersSent) {
        request.resume();
        refuse(
          response,
          error instanceof AppError ? error : new AppError("TARGET_UNREACHABLE", null, 502),
        );
      } else response.destroy();
    });
    // The browser went away (or the visit was cut): the device's answer is no longer wanted.
    response.on("close", () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, r: Route) {
    socket.on("error", () => socket.destroy());
    try {
      const node = await elsewhere(request, r);
      if (node) return forwardUpgrade(request, socket, head, node);
      const session = await sessionFor(request, r);
      const stream = await visits.openStream(session, null);
      visits.hold(session, socket);
      const headers = requestHeaders(request, session, r, true);
      let headText = `${request.method ?? "GET"} ${r.path} HTTP/1.1\r\n`;
      for (let i = 0; i < headers.length; i += 2)
        headText += `${headers[i]}: ${headers[i + 1]}\r\n`;
      stream.write(`${headText}\r\n`);
      if (head.length) stream.write(head);
      // From here on bytes both ways: the device's handshake answer and the frames.
      (socket as Socket).setNoDelay?.(true);
      socket.pipe(stream);
      stream.pipe(socket);
      stream.on("error", () => socket.destroy());
      stream.on("close", () => {
        if (stream.closeError) socket.destroy();
      });
      socket.on("close", () => stream.destroy());
    } catch (error) {
      const e = asAppError(error);
      const status = e.httpStatus >= 400 ? e.httpStatus : 403;
      const code = HW[e.key].code;
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? "Refused"}\r\nConnection: close\r\nX-Keyway-Hwcode: ${code}\r\nContent-Length: 0\r\n\r\n`,
      );
    }
  }

  /**
   * `/visit-tcp/<id>?target=host:port`: one raw TCP stream to the target per WebSocket, for
   * the visit's own user and terminal (cloudtoken). Refusals close with TCP_CLOSE codes and
   * the hwcode in the reason.
   */
  function tcp(
    socket: WebSocket,
    visitId: string,
    target: string | undefined,
    caller: { actor: Actor; token: string; relayed: boolean },
  ) {
    const { actor } = caller;
    // Nothing is read until it is known where the device's tunnel is.
    socket.pause();
    (caller.relayed ? Promise.resolve(null) : visits.nodeOf(visitId)).then(
      (node) => {
        if (!node) return tcpHere(socket, visitId, target, actor);
        const query = target ? `?target=${encodeURIComponent(target)}` : "";
        bridgeWebSocket(socket, node, `/visit-tcp/${visitId}${query}`, caller.token);
        socket.resume();
      },
      () => tcpHere(socket, visitId, target, actor),
    );
  }

  function tcpHere(socket: WebSocket, visitId: string, target: string | undefined, actor: Actor) {
    // Made at once: bytes the client sends while the stream opens wait here (bounded: the
    // WebSocket is paused when this buffer fills).
    const local = createWebSocketStream(socket);
    socket.resume();
    local.on("error", () => {});
    const closeWith = (error: unknown) => {
      const e = asAppError(error);
      const code = TCP_CLOSE[e.key] ?? 4403;
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
        socket.close(code, `${HW[e.key].code} ${HW[e.key].en}`.slice(0, 120));
    };
    (async () => {
      const session = await visits.byCaller(visitId, actor);
      const stream = await visits.openStream(session, target ?? session.target);
      visits.hold(session, {
        destroy: () => closeWith(new AppError("VISIT_ENDED", null, 410)),
        once: (_event: "close", f: () => void) => socket.once("close", f),
      });
      if (socket.readyState !== socket.OPEN) return stream.destroy();
      stream.pipe(local);
      local.pipe(stream);
      stream.on("close", () => {
        const error = stream.closeError;
        if (!error) return;
        if (error instanceof DeviceOfflineError)
          closeWith(new AppError("DEVICE_OFFLINE", null, 502));
        else if (error instanceof TunnelError && error.code === TUNNEL_RESET.rightsEnded)
          closeWith(new AppError("VISIT_ENDED", null, 410));
        else closeWith(new AppError("TARGET_UNREACHABLE", null, 502));
      });
      socket.once("close", () => stream.destroy());
    })().catch(closeWith);
  }

  function refuse(response: ServerResponse, error: unknown) {
    const e = asAppError(error);
    if (response.headersSent) return response.destroy();
    const status = e.httpStatus >= 400 ? e.httpStatus : 403;
    const entry = HW[e.key];
    clearHeaders(response);
    response.writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-keyway-hwcode": String(entry.code),
    });
    response.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>Keyway</title></head>` +
        `<body style="font-family:sans-serif;margin:3em;color:#333">` +
        `<h2>${escapeHtml(entry.zh)}</h2><p>${escapeHtml(entry.en)}</p>` +
        `<p style="color:#999">hwcode ${escapeHtml(String(entry.code))}</p></body></html>`,
    );
  }

  function asAppError(error: unknown): AppError {
    if (error instanceof AppError) return error;
    log.warn({ err: error }, "relay failure");
    return new AppError("TARGET_UNREACHABLE", null, 502);
  }

  return { onRequest, take, tcp, route };
}

/** Headers Fastify's plugins (helmet) put on the response: the device's own go instead. */
function clearHeaders(response: ServerResponse) {
  for (const name of response.getHeaderNames()) response.removeHeader(name);
}

/** The bytes read past an upgrade request's head, kept by @fastify/websocket on the request. */
function upgradeHead(request: IncomingMessage): Buffer {
  const holder = request as unknown as Record<symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(request)) {
    if (symbol.description === "ws-head" && Buffer.isBuffer(holder[symbol]))
      return holder[symbol] as Buffer;
  }
  return Buffer.alloc(0);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
