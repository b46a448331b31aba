import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { upgradeHead } from "../../http/upgradeHead.ts";
import { RELAYED_HEADER } from "./forward.ts";
import type { VisitHosts } from "./hosts.ts";
import { type BrowserRequest, cookieValue, createRelayHeaders } from "./relay/headers.ts";
import { createHttpRelay } from "./relay/http.ts";
import { createRefusals } from "./relay/refusals.ts";
import { createRouter, type Route, VISIT_COOKIE } from "./relay/route.ts";
import { createScreenRelay } from "./relay/screen.ts";
import { createSocketRelay } from "./relay/sockets.ts";
import type { VisitService, VisitSession } from "./service.ts";

/**
 * The relay (ARCHITECTURE "Remote access"): a browser's requests to a visit host
 * (`<id>.visit.<host>`) or under `/visit/<id>/` go to the device's web UI through the agent's
 * tunnel — HTTP through a keep-alive pool of tunnel streams per visit, WebSocket upgrades as
 * raw byte pipes — `/visit-tcp/<id>` carries a raw TCP stream for `keyway-agent forward`, and
 * `/visit-screen/<id>` the device's screen (RFB) for the viewer in Keyway's page.
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
  const route = createRouter(hosts);
  const headers = createRelayHeaders(publicProto);
  const { refuse, refuseViewOnly, asAppError } = createRefusals(log);

  /** The visit of a request: the cookie on a visit host, the key in the path in path mode. */
  function sessionFor(request: BrowserRequest, r: Route): Promise<VisitSession> {
    if (r.prefix) return visits.byCookie(r.id, r.key);
    return visits.byCookie(r.id, cookieValue(request.headers.cookie, VISIT_COOKIE));
  }

  /** sessionFor's answer when it needs no wait (visits.byCookieNow), else null. */
  function sessionNow(request: BrowserRequest, r: Route): VisitSession | null {
    if (r.prefix) return visits.byCookieNow(r.id, r.key);
    return visits.byCookieNow(r.id, cookieValue(request.headers.cookie, VISIT_COOKIE));
  }

  /** Another node's URL when it holds the tunnel of the visit's device (several nodes). */
  async function elsewhere(request: IncomingMessage, r: Route): Promise<string | null> {
    if (request.headers[RELAYED_HEADER]) return null;
    return visits.nodeOf(r.id);
  }

  const { relayHttp, serveFront } = createHttpRelay({
    visits,
    secure,
    headers,
    sessionFor,
    sessionNow,
    elsewhere,
    refuse,
    refuseViewOnly,
    asAppError,
    route,
  });
  const { upgrade, tcp } = createSocketRelay({
    visits,
    headers,
    sessionFor,
    elsewhere,
    asAppError,
  });
  const { screen } = createScreenRelay({ visits, asAppError });

  /** onRequest hook: visit traffic is taken out of Fastify before any route sees it. */
  async function onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const found = route(request.raw);
    if (!found) return;
    reply.hijack();
    if (request.raw.headers.upgrade) {
      void upgrade(request.raw, request.raw.socket, upgradeHead(request.raw), found);
    } else {
      relayHttp(request.raw, reply.raw, found);
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
    relayHttp(request, response, found);
    return true;
  }

  return { onRequest, take, serveFront, tcp, screen, route };
}
