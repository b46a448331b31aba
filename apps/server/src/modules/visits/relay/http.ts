import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { AppError } from "../../../http/envelope.ts";
import { forwardHttp } from "../forward.ts";
import type { VisitService, VisitSession } from "../service.ts";
import type { RelayHeaders } from "./headers.ts";
import { clearHeaders } from "./refusals.ts";
import { type Route, TICKET_PARAM, VISIT_COOKIE } from "./route.ts";

/**
 * A browser's HTTP request to a visit: carried to the node holding the tunnel, or the
 * ticket exchanged for the visit's secret, or relayed to the device UI through the visit's
 * keep-alive pool of tunnel streams.
 */
export function createHttpRelay(deps: {
  visits: VisitService;
  secure: boolean;
  headers: RelayHeaders;
  sessionFor: (request: IncomingMessage, r: Route) => Promise<VisitSession>;
  elsewhere: (request: IncomingMessage, r: Route) => Promise<string | null>;
  refuse: (response: ServerResponse, error: unknown) => void;
}) {
  const { visits, secure, sessionFor, elsewhere, refuse } = deps;
  const { requestHeaders, responseHeaders } = deps.headers;

  return async function relayHttp(request: IncomingMessage, response: ServerResponse, r: Route) {
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
  };
}
