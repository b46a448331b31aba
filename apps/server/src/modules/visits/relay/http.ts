import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { TunnelStream } from "@keyway/protocol/mux";
import { AppError } from "../../../http/envelope.ts";
import { forwardHttp } from "../forward.ts";
import type { VisitService, VisitSession } from "../service.ts";
import { AnswerReader } from "./answer.ts";
import type { RelayHeaders } from "./headers.ts";
import { clearHeaders } from "./refusals.ts";
import { type Route, TICKET_PARAM, VISIT_COOKIE } from "./route.ts";

/** A first open: the URL carries the one-time ticket, to be exchanged for the visit's secret. */
const carriesTicket = (r: Route) => r.path.includes(`${TICKET_PARAM}=`);
/** Path mode without the slash after the prefix: redirected so relative links resolve. */
const needsSlash = (r: Route) => r.prefix !== "" && !r.trailingSlash;

/** Methods that change nothing (RFC 9110 §9.2.1): all a read-only visitor may send. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

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
  /** sessionFor's answer when it is known without waiting (else null). */
  sessionNow: (request: IncomingMessage, r: Route) => VisitSession | null;
  elsewhere: (request: IncomingMessage, r: Route) => Promise<string | null>;
  refuse: (response: ServerResponse, error: unknown) => void;
  refuseViewOnly: (response: ServerResponse, request: IncomingMessage) => void;
}) {
  const { visits, secure, sessionFor, sessionNow, elsewhere, refuse, refuseViewOnly } = deps;

  /**
   * One request for the visit's activity: no body, no headers; the recorder keeps the path
   * without its query (activity.ts, the one place that decides what is stored).
   */
  function report(
    session: VisitSession,
    request: IncomingMessage,
    r: Route,
    at: Date,
    answer: { status: number; bytesIn: number; bytesOut: number },
  ) {
    visits.activity.http({
      visitId: session.id,
      deviceId: session.deviceId,
      at,
      method: request.method ?? "GET",
      path: r.path,
      viewOnly: session.viewOnly,
      ...answer,
    });
  }
  const { requestHeaders, responseHeaders } = deps.headers;

  /**
   * A request of a visit open here whose cookie (or key) was admitted before, whose rights
   * check still holds and whose tunnel is here goes on at once: its head is on its way to
   * the device before Node has finished with the request. Anything else, or anything
   * unsure, takes the full way, which decides and refuses (docs/architecture/remote-access.md).
   */
  return function relayHttp(request: IncomingMessage, response: ServerResponse, r: Route): void {
    const quick = !carriesTicket(r) && !needsSlash(r) && sessionNow(request, r);
    if (quick && visits.tunnelHere(quick)) admitted(request, response, quick, r);
    else void relayFully(request, response, r);
  };

  async function relayFully(request: IncomingMessage, response: ServerResponse, r: Route) {
    let session: VisitSession;
    try {
      const node = await elsewhere(request, r);
      if (node) return forwardHttp(request, response, node, (error) => refuse(response, error));
      const ticket = carriesTicket(r)
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
      if (needsSlash(r)) {
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
    admitted(request, response, session, r);
  }

  /** A request of an admitted visit: refused when read-only forbids it, else exchanged. */
  function admitted(
    request: IncomingMessage,
    response: ServerResponse,
    session: VisitSession,
    r: Route,
  ) {
    visits.touch(session);
    const at = session.lastActive;
    // A read-only visitor changes nothing: only safe methods reach the device.
    if (session.viewOnly && !SAFE_METHODS.has(request.method ?? "GET")) {
      request.resume();
      refuseViewOnly(response, request);
      report(session, request, r, at, { status: 403, bytesIn: 0, bytesOut: 0 });
      return;
    }
    const stream = visits.agentOf(session).leaseNow();
    if (stream) exchange(request, response, session, r, at, stream);
    else void leaseAndExchange(request, response, session, r, at);
  }

  /** No idle stream of the visit's pool: one freed or opened (the rights check again). */
  async function leaseAndExchange(
    request: IncomingMessage,
    response: ServerResponse,
    session: VisitSession,
    r: Route,
    at: Date,
  ) {
    let stream: TunnelStream;
    try {
      stream = await visits.agentOf(session).lease();
    } catch (error) {
      request.resume();
      report(session, request, r, at, { status: 0, bytesIn: 0, bytesOut: 0 });
      return refuse(
        response,
        error instanceof AppError ? error : new AppError("TARGET_UNREACHABLE", null, 502),
      );
    }
    exchange(request, response, session, r, at, stream);
  }

  /**
   * One request and its answer on a pooled tunnel stream: the request head written by us, the
   * body passed on (chunked again when the browser sent it chunked), and of the answer only
   * the head parsed (AnswerReader); its body goes to the browser as the views read.
   */
  function exchange(
    request: IncomingMessage,
    response: ServerResponse,
    session: VisitSession,
    r: Route,
    at: Date,
    stream: TunnelStream,
  ) {
    const pool = visits.agentOf(session);
    if (response.destroyed) return pool.release(stream, false);
    const method = request.method ?? "GET";
    const lengthHeader = request.headers["content-length"];
    const chunked =
      request.headers["transfer-encoding"] !== undefined && lengthHeader === undefined;
    // No Content-Length and no Transfer-Encoding: the request has no body (RFC 9112 §6.3).
    const bodiless = !chunked && (lengthHeader === undefined || lengthHeader === "0");
    const headers = requestHeaders(request, session, r, false);
    let head = `${method} ${r.path} HTTP/1.1\r\n`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    head += chunked
      ? "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
      : "Connection: keep-alive\r\n\r\n";

    // The stream may have served earlier exchanges: this one's bytes are what it adds.
    const bytesIn = stream.bytesIn;
    const bytesOut = stream.bytesOut;
    // The head goes first: nothing of the answer can arrive before this function returns, and
    // what is set up below is then off the request's way.
    stream.write(head);
    // Nothing follows the head: it leaves now, while the rest is set up.
    if (bodiless) stream.flush();
    let requestSent = bodiless;
    let settled = false;
    let status = 0;
    const settle = (reusable: boolean) => {
      if (settled) return;
      settled = true;
      report(session, request, r, at, {
        status,
        bytesIn: stream.bytesIn - bytesIn,
        bytesOut: stream.bytesOut - bytesOut,
      });
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("close", onClose);
      stream.off("drain", onStreamDrain);
      response.off("drain", onResponseDrain);
      request.off("data", onRequestData);
      request.off("end", onRequestEnd);
      if (!reusable) request.resume();
      pool.release(stream, reusable && requestSent);
    };
    const failed = () => {
      settle(false);
      if (!response.headersSent) {
        request.resume();
        refuse(response, new AppError("TARGET_UNREACHABLE", null, 502));
      } else response.destroy();
    };
    const reader = new AnswerReader(method, {
      head: (answer) => {
        status = answer.status;
        clearHeaders(response);
        try {
          response.writeHead(
            answer.status,
            answer.statusMessage || STATUS_CODES[answer.status] || "Unknown",
            responseHeaders(answer.rawHeaders, request, session, r),
          );
        } catch {
          failed();
        }
      },
      body: (piece) => {
        if (!response.write(piece)) stream.pause();
      },
      end: (reusable, last) => {
        // The browser's answer first; the bookkeeping after it is off its way.
        response.end(last);
        settle(reusable);
      },
      error: failed,
    });
    const onData = (chunk: Buffer) => reader.push(chunk);
    const onEnd = () => reader.end();
    const onClose = () => {
      if (!reader.finished) failed();
    };
    const onResponseDrain = () => stream.resume();
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("close", onClose);
    response.on("drain", onResponseDrain);
    // The browser went away (or the visit was cut): the device's answer is no longer wanted.
    response.on("close", () => {
      if (!settled) settle(false);
    });

    // The request: its head, then its body with backpressure.
    const onStreamDrain = () => request.resume();
    const onRequestData = (chunk: Buffer) => {
      const more = chunked
        ? stream.write(`${chunk.byteLength.toString(16)}\r\n`) &&
          stream.write(chunk) &&
          stream.write("\r\n")
        : stream.write(chunk);
      if (!more) request.pause();
    };
    const onRequestEnd = () => {
      if (chunked && !settled) stream.write("0\r\n\r\n");
      requestSent = true;
    };
    // Paused by a slow browser in its last exchange, perhaps.
    stream.resume();
    if (bodiless) return;
    stream.on("drain", onStreamDrain);
    request.on("data", onRequestData);
    request.on("end", onRequestEnd);
  }
}
