import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { TunnelStream } from "@keyway/protocol/mux";
import type { AppError } from "../../../http/envelope.ts";
import { forwardHttp } from "../forward.ts";
import type { VisitService, VisitSession } from "../service.ts";
import { type AnswerHead, type AnswerMemo, AnswerReader } from "./answer.ts";
import type { FrontConnection, FrontRequest } from "./front.ts";
import type { BrowserRequest, RelayHeaders } from "./headers.ts";
import { clearHeaders } from "./refusals.ts";
import { type Route, TICKET_PARAM, VISIT_COOKIE } from "./route.ts";
import { type AnswerSink, ResponseSink, SocketSink } from "./sinks.ts";

/** A first open: the URL carries the one-time ticket, to be exchanged for the visit's secret. */
const carriesTicket = (r: Route) => r.path.includes(`${TICKET_PARAM}=`);
/** Path mode without the slash after the prefix: redirected so relative links resolve. */
const needsSlash = (r: Route) => r.prefix !== "" && !r.trailingSlash;

/** Headers without Content-Length. */
function lengthless(headers: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (headers[i].toLowerCase() !== "content-length") out.push(headers[i], headers[i + 1]);
  return out;
}

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
  sessionFor: (request: BrowserRequest, r: Route) => Promise<VisitSession>;
  /** sessionFor's answer when it is known without waiting (else null). */
  sessionNow: (request: BrowserRequest, r: Route) => VisitSession | null;
  route: (request: BrowserRequest) => Route | null;
  elsewhere: (request: IncomingMessage, r: Route) => Promise<string | null>;
  refuse: (response: ServerResponse, error: unknown) => void;
  refuseViewOnly: (response: ServerResponse, request: IncomingMessage) => void;
  asAppError: (error: unknown) => AppError;
}) {
  const { visits, secure, sessionFor, sessionNow, elsewhere, route } = deps;
  const { refuse, refuseViewOnly, asAppError } = deps;

  /**
   * One request for the visit's activity: no body, no headers; the recorder keeps the path
   * without its query (activity.ts, the one place that decides what is stored).
   */
  function report(
    session: VisitSession,
    request: BrowserRequest,
    r: Route,
    at: number,
    answer: { status: number; bytesIn: number; bytesOut: number },
  ) {
    visits.activity.http({
      visitId: session.id,
      deviceId: session.deviceId,
      atMs: at,
      method: request.method ?? "GET",
      path: r.path,
      viewOnly: session.viewOnly,
      status: answer.status,
      bytesIn: answer.bytesIn,
      bytesOut: answer.bytesOut,
    });
  }
  const { requestHeaders, responseHeaders } = deps.headers;

  /** Each pooled stream's last answer head, read once (answer.ts). */
  const answerMemos = new WeakMap<TunnelStream, AnswerMemo>();

  /**
   * The browser's headers of a device's answer head. A head the stream's memo repeats shares
   * its header list: on a visit host (not in path mode, where the device's cookies go into
   * the visit's jar) its headers are kept for the same visit, target, Host and framing.
   */
  const browserHeadersOf = new WeakMap<
    string[],
    { session: VisitSession; target: string; host: string; framing: string; headers: string[] }
  >();

  /**
   * The device's head lines of a front-door request's header list, kept while the list is
   * the connection's last (front.ts shares it while a browser repeats its header lines) on
   * a visit host — not in path mode, whose cookie jar the device may change between requests.
   */
  const linesOf = new WeakMap<string[], { session: VisitSession; target: string; lines: string }>();

  /**
   * A request of a visit open here whose cookie (or key) was admitted before, whose rights
   * check still holds and whose tunnel is here goes on at once: its head is on its way to
   * the device before Node has finished with the request. Anything else, or anything
   * unsure, takes the full way, which decides and refuses (docs/architecture/remote-access.md).
   */
  function relayHttp(request: IncomingMessage, response: ServerResponse, r: Route): void {
    const quick = quickSession(request, r);
    if (quick) admitted(request, response, quick, r);
    else void relayFully(request, response, r);
  }

  /** The visit of a request that may go on at once: admitted before, its tunnel here. */
  function quickSession(request: BrowserRequest, r: Route): VisitSession | null {
    if (carriesTicket(r) || needsSlash(r)) return null;
    const session = sessionNow(request, r);
    return session && visits.tunnelHere(session) ? session : null;
  }

  /**
   * The front door's request (front.ts), a GET, HEAD or OPTIONS without a body: served on its
   * socket when its visit is open here with its tunnel here (admitted at once, or after its
   * cookie and rights are checked again). Declined (false, nothing touched) otherwise — the
   * ticket's first open, another node's visit, a changing method — for Node's parser and
   * relayHttp to take.
   */
  function serveFront(request: FrontRequest, connection: FrontConnection): boolean {
    if (!SAFE_METHODS.has(request.method)) return false;
    const r = route(request);
    if (!r || carriesTicket(r) || needsSlash(r)) return false;
    const quick = quickSession(request, r);
    if (!quick && !visits.openHere(r.id)) return false;
    const sink = new SocketSink(
      request.socket,
      request.close,
      request.keepAliveSeconds,
      connection,
    );
    if (quick) take(request, sink, quick, r, null);
    else void admitFront(request, sink, r);
    return true;
  }

  /** The front door's request whose cookie and rights are checked again first. */
  async function admitFront(request: FrontRequest, sink: AnswerSink, r: Route) {
    let session: VisitSession;
    try {
      session = await sessionFor(request, r);
    } catch (error) {
      return sink.fail(asAppError(error));
    }
    take(request, sink, session, r, null);
  }

  return { relayHttp, serveFront };

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

  /** A request Node parsed of an admitted visit: refused when read-only forbids it, else taken. */
  function admitted(
    request: IncomingMessage,
    response: ServerResponse,
    session: VisitSession,
    r: Route,
  ) {
    // A read-only visitor changes nothing: only safe methods reach the device.
    if (session.viewOnly && !SAFE_METHODS.has(request.method ?? "GET")) {
      visits.touch(session);
      request.resume();
      refuseViewOnly(response, request);
      report(session, request, r, session.lastActiveAt, { status: 403, bytesIn: 0, bytesOut: 0 });
      return;
    }
    take(request, new ResponseSink(request, response, refuse), session, r, request);
  }

  /** A request the visit may make: on an idle stream of its pool at once, or the next one. */
  function take(
    request: BrowserRequest,
    sink: AnswerSink,
    session: VisitSession,
    r: Route,
    body: IncomingMessage | null,
  ) {
    visits.touch(session);
    const at = session.lastActiveAt;
    const stream = visits.agentOf(session).leaseNow();
    if (stream) exchange(request, sink, session, r, at, stream, body);
    else void leaseAndExchange(request, sink, session, r, at, body);
  }

  /** No idle stream of the visit's pool: one freed or opened (the rights check again). */
  async function leaseAndExchange(
    request: BrowserRequest,
    sink: AnswerSink,
    session: VisitSession,
    r: Route,
    at: number,
    body: IncomingMessage | null,
  ) {
    let stream: TunnelStream;
    try {
      stream = await visits.agentOf(session).lease();
    } catch (error) {
      report(session, request, r, at, { status: 0, bytesIn: 0, bytesOut: 0 });
      return sink.fail(asAppError(error));
    }
    exchange(request, sink, session, r, at, stream, body);
  }

  function browserHeaders(
    answer: AnswerHead,
    request: BrowserRequest,
    session: VisitSession,
    r: Route,
  ): string[] {
    const host = request.headers.host ?? "";
    const keep = !r.prefix;
    const known = keep ? browserHeadersOf.get(answer.rawHeaders) : undefined;
    if (
      known &&
      known.session === session &&
      known.target === session.target &&
      known.host === host &&
      known.framing === answer.framing
    )
      return known.headers;
    let headers = responseHeaders(answer.rawHeaders, request, session, r);
    // A body the tunnel delimits otherwise goes out chunked: a stated length would lie.
    if (answer.framing === "chunked" || answer.framing === "close") headers = lengthless(headers);
    if (keep)
      browserHeadersOf.set(answer.rawHeaders, {
        session,
        target: session.target,
        host,
        framing: answer.framing,
        headers,
      });
    return headers;
  }

  /** The device's head after the request line: the relay's headers, the framing, the end. */
  function headLines(
    request: BrowserRequest,
    session: VisitSession,
    r: Route,
    chunked: boolean,
    front: boolean,
  ): string {
    const keep = front && !r.prefix && !chunked;
    const known = keep ? linesOf.get(request.rawHeaders) : undefined;
    if (known && known.session === session && known.target === session.target) return known.lines;
    const headers = requestHeaders(request, session, r, false);
    let lines = "";
    for (let i = 0; i < headers.length; i += 2) lines += `${headers[i]}: ${headers[i + 1]}\r\n`;
    lines += chunked
      ? "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
      : "Connection: keep-alive\r\n\r\n";
    if (keep) linesOf.set(request.rawHeaders, { session, target: session.target, lines });
    return lines;
  }

  /**
   * One request and its answer on a pooled tunnel stream: the request head written by us, the
   * body passed on (chunked again when the browser sent it chunked), and of the answer only
   * the head parsed (AnswerReader); its body goes to the browser (`sink`) as the views read.
   * `body`: the request when Node parsed it (its body, if any, is read from it).
   */
  function exchange(
    request: BrowserRequest,
    sink: AnswerSink,
    session: VisitSession,
    r: Route,
    at: number,
    stream: TunnelStream,
    body: IncomingMessage | null,
  ) {
    const pool = visits.agentOf(session);
    if (sink.gone) return pool.release(stream, false);
    const method = request.method ?? "GET";
    const lengthHeader = request.headers["content-length"];
    const chunked =
      request.headers["transfer-encoding"] !== undefined && lengthHeader === undefined;
    // No Content-Length and no Transfer-Encoding: the request has no body (RFC 9112 §6.3).
    const bodiless = !body || (!chunked && (lengthHeader === undefined || lengthHeader === "0"));
    const head = `${method} ${r.path} HTTP/1.1\r\n${headLines(request, session, r, chunked, !body)}`;

    // The stream may have served earlier exchanges: this one's bytes are what it adds.
    const bytesIn = stream.bytesIn;
    const bytesOut = stream.bytesOut;
    // The head goes first: nothing of the answer can arrive before this function returns, and
    // what is set up below is then off the request's way.
    // Nothing follows the head: it leaves now (one frame, one write), while the rest is set up.
    // Header bytes are latin1 to Node's parser and to ours: they go on as they came.
    if (!bodiless || !stream.sendNow(head)) {
      stream.write(head, "latin1");
      if (bodiless) stream.flush();
    }
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
      // The stream's reader, end and close are the pool's from here (release).
      sink.unwatch(onSinkDrain, onSinkGone);
      if (body) {
        stream.off("drain", onStreamDrain);
        body.off("data", onRequestData);
        body.off("end", onRequestEnd);
        if (!reusable) body.resume();
      }
      pool.release(stream, reusable && requestSent);
    };
    const failed = () => {
      // Nothing of this answer goes on, even when the failure came from the browser's side.
      reader.stop();
      settle(false);
      sink.fail();
    };
    let memo = answerMemos.get(stream);
    if (!memo) {
      memo = { text: "", parsed: null };
      answerMemos.set(stream, memo);
    }
    const reader = new AnswerReader(
      method,
      {
        head: (answer) => {
          status = answer.status;
          const message = answer.statusMessage || STATUS_CODES[answer.status] || "Unknown";
          if (!sink.head(answer, message, browserHeaders(answer, request, session, r))) failed();
        },
        body: (piece) => {
          if (!sink.body(piece)) stream.pause();
        },
        end: (reusable, last) => {
          // The browser's answer first; the bookkeeping after it is off its way.
          sink.end(last);
          settle(reusable);
        },
        error: failed,
      },
      memo,
    );
    const onData = (chunk: Buffer) => reader.push(chunk);
    const onEnd = () => reader.end();
    const onClose = () => {
      if (!reader.finished) failed();
    };
    const onSinkDrain = () => stream.resume();
    // The browser went away (or the visit was cut): the device's answer is no longer wanted.
    const onSinkGone = () => settle(false);
    stream.setReader(onData);
    pool.watch(stream, { end: onEnd, close: onClose });
    sink.watch(onSinkDrain, onSinkGone);

    // The request: its head, then its body with backpressure.
    const onStreamDrain = () => body?.resume();
    const onRequestData = (chunk: Buffer) => {
      const more = chunked
        ? stream.write(`${chunk.byteLength.toString(16)}\r\n`) &&
          stream.write(chunk) &&
          stream.write("\r\n")
        : stream.write(chunk);
      if (!more) body?.pause();
    };
    const onRequestEnd = () => {
      if (chunked && !settled) stream.write("0\r\n\r\n");
      requestSent = true;
    };
    // Paused by a slow browser in its last exchange, perhaps.
    stream.resume();
    if (bodiless || !body) return;
    stream.on("drain", onStreamDrain);
    body.on("data", onRequestData);
    body.on("end", onRequestEnd);
  }
}
