import type { Server } from "node:http";
import type { Socket } from "node:net";
import { ownBytes, readDirect, readToStream } from "@keyway/protocol/socket-reads";
import type { BrowserRequest } from "./headers.ts";

/**
 * The front door (docs/architecture/remote-access.md, "The front door"): every connection to
 * the HTTP server is read here first. A plain request whose head is all in one read and
 * inside a strict subset of HTTP/1.1 is offered to the relay's quick way, which serves it on
 * the socket itself, without Node's request and response objects. Anything else — Keyway's
 * own API, a request with a body, an upgrade, an unusual or partial head, a request the quick
 * way declines — goes to Node's HTTP server with its bytes put back, and the connection
 * stays there for the rest of its life: Node's parser and the full relay decide and refuse.
 */

/** A request head the front door read: no body, HTTP/1.1, one Host. */
export interface FrontRequest extends BrowserRequest {
  method: string;
  url: string;
  headers: { host: string; cookie?: string; "x-forwarded-for"?: string };
  socket: Socket;
  /** The browser asked to close the connection after this answer. */
  close: boolean;
  /** How long an idle connection is kept (the server's keep-alive time), in seconds. */
  keepAliveSeconds: number;
  /** The head's header lines as read (from the CRLF after the request line). */
  block: string;
}

/**
 * The front door's side of one connection while the quick way serves on it: one object for
 * the connection's life, so that an exchange adds no listener to the socket.
 */
export interface FrontConnection {
  /** The answer has gone out (`keep`: the connection may carry another request). */
  done(keep: boolean): void;
  /** Called once if the connection closes during the exchange (set by the exchange, or null). */
  gone: (() => void) | null;
}

/**
 * The quick way: serves the request (true), calling `connection.done` once its answer has
 * gone out, or declines it (false) having touched nothing.
 */
export type FrontServe = (request: FrontRequest, connection: FrontConnection) => boolean;

/** The largest head the front door reads itself; a larger one is Node's. */
const MAX_HEAD = 16 * 1024;
const REQUEST_LINE = /^([A-Z]{1,16}) (\/[!-~]*) HTTP\/1\.1$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * What no head of the subset holds: a control character but HTAB (DEL too), a CR not ending
 * a line, an LF not after a CR (a line CR LF, then a space or tab, is a folded one: Node's).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const BAD_TEXT = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n|\r\n[ \t]/;
/** Headers that send a request to Node: a body, an upgrade, an expectation. */
const NODE_ONLY = new Set(["transfer-encoding", "upgrade", "expect", "http2-settings"]);

/**
 * The request in `bytes` when it is one whole head of the subset, alone in the read;
 * otherwise null (Node reads it). Strict on purpose: whatever two parsers might read two ways
 * (folded lines, bare LF, repeated Host or Content-Length, a body) is not read here.
 */
export function readFrontHead(
  bytes: Buffer,
  socket: Socket,
  keepAliveSeconds: number,
  /** The connection's last request read here: its header lines, when the same, are not read again. */
  previous?: FrontRequest | null,
): FrontRequest | null {
  const size = bytes.byteLength;
  // A head not all here (or one with pipelined bytes after it): Node's. An empty line before
  // the end is one no header line of the subset passes (and a repeated block was read whole).
  if (
    size > MAX_HEAD ||
    size < 4 ||
    bytes[size - 4] !== 13 ||
    bytes[size - 3] !== 10 ||
    bytes[size - 2] !== 13 ||
    bytes[size - 1] !== 10
  )
    return null;
  const end = size - 4;
  const text = bytes.toString("latin1", 0, end);
  let at = text.indexOf("\r\n");
  if (at < 0) at = text.length;
  // The request line's pattern holds no control character.
  const line = REQUEST_LINE.exec(text.slice(0, at));
  if (!line) return null;
  const block = text.slice(at);
  // A browser polling a page sends the same header lines again: the same bytes, the same reading.
  if (previous && block === previous.block)
    // Built field by field in the order below, one shape with the first reading: a spread
    // of the last request took longer than reading the head.
    return {
      method: line[1],
      url: line[2],
      rawHeaders: previous.rawHeaders,
      headers: previous.headers,
      socket,
      close: previous.close,
      keepAliveSeconds,
      block: previous.block,
    };
  if (BAD_TEXT.test(block)) return null;
  const rawHeaders: string[] = [];
  let host: string | undefined;
  let cookie: string | undefined;
  let forwardedFor: string | undefined;
  let close = false;
  let length = false;
  while (at < text.length) {
    const start = at + 2;
    at = text.indexOf("\r\n", start);
    if (at < 0) at = text.length;
    const colon = text.indexOf(":", start);
    if (colon <= start || colon > at) return null;
    const name = text.slice(start, colon);
    if (!TOKEN.test(name)) return null;
    const value = trimSpace(text.slice(colon + 1, at));
    const lower = name.toLowerCase();
    if (NODE_ONLY.has(lower)) return null;
    if (lower === "host") {
      if (host !== undefined) return null;
      host = value;
    } else if (lower === "cookie") {
      if (cookie !== undefined) return null;
      cookie = value;
    } else if (lower === "x-forwarded-for") {
      if (forwardedFor !== undefined) return null;
      forwardedFor = value;
    } else if (lower === "content-length") {
      if (length || value !== "0") return null;
      length = true;
    } else if (lower === "connection") {
      for (const token of value.toLowerCase().split(",")) {
        const t = token.trim();
        if (t === "close") close = true;
        else if (t !== "keep-alive" && t !== "") return null;
      }
    }
    rawHeaders.push(name, value);
  }
  if (host === undefined) return null;
  const headers: FrontRequest["headers"] = { host };
  if (cookie !== undefined) headers.cookie = cookie;
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  return {
    method: line[1],
    url: line[2],
    rawHeaders,
    headers,
    socket,
    close,
    keepAliveSeconds,
    block,
  };
}

/** A field value without the spaces and tabs around it (RFC 9110 §5.5: OWS only). */
function trimSpace(value: string): string {
  let from = 0;
  let to = value.length;
  while (from < to && (value.charCodeAt(from) === 32 || value.charCodeAt(from) === 9)) from++;
  while (to > from && (value.charCodeAt(to - 1) === 32 || value.charCodeAt(to - 1) === 9)) to--;
  return from === 0 && to === value.length ? value : value.slice(from, to);
}

/** A connection the front door holds. */
interface Held extends FrontConnection {
  socket: Socket;
  serving: boolean;
  /** When its last answer went out (or it opened), by performance.now(). */
  idleSince: number;
}

/**
 * How often idle connections are looked at: one timer for the server, not one per socket
 * restarted on every read and write (which cost the relay about a microsecond a request).
 */
const SWEEP_MS = 1000;

/**
 * Puts the front door before Node's HTTP server on `server`: its connection listener is
 * called for every connection the quick way does not keep. The server's closing of idle
 * connections (server.close, Fastify's close) closes the front door's idle ones too.
 */
export function attachFront(server: Server, serve: FrontServe): void {
  const nodeListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  /** Connections the front door holds, each waiting for a request or in an exchange. */
  const held = new Set<Held>();
  let closing = false;

  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closing = true;
    for (const one of held) if (!one.serving) one.socket.destroy();
    closeIdle();
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closing = true;
    for (const one of [...held]) one.socket.destroy();
    closeAll();
  };
  // Waited out the keep-alive time, as Node would: a connection that waits for a request
  // that long closes (within SWEEP_MS more); one in an exchange stays, however slow. A time
  // of 0 keeps them, as it does in Node.
  const sweeper = setInterval(() => {
    const keepAlive = server.keepAliveTimeout;
    if (!(keepAlive > 0)) return;
    const now = performance.now();
    for (const one of held)
      if (!one.serving && now - one.idleSince >= keepAlive) one.socket.destroy();
  }, SWEEP_MS);
  sweeper.unref();
  server.on("close", () => {
    closing = true;
    clearInterval(sweeper);
  });

  server.on("connection", (socket: Socket) => {
    if (closing) {
      for (const listener of nodeListeners) listener.call(server, socket);
      return;
    }
    /** Reads go to `onBytes` as borrowed bytes (false: as 'data' events, this Node's way). */
    let direct = false;
    /** What the browser sent during an exchange, kept for after it (reading stopped meanwhile). */
    let waiting: Buffer | null = null;
    const toNode = (bytes: Buffer | null) => {
      forget();
      if (direct) readToStream(socket);
      if (bytes) socket.unshift(direct ? ownBytes(bytes) : bytes);
      for (const listener of nodeListeners) listener.call(server, socket);
    };
    const forget = () => {
      held.delete(conn);
      if (!direct) socket.off("data", onBytes);
      socket.off("error", onError);
      socket.off("close", onClose);
    };
    let closeAfter = false;
    /** `serving`: an exchange is under way; the next request waits for its end. */
    const conn: Held = {
      socket,
      serving: false,
      idleSince: performance.now(),
      gone: null,
      done: (keep: boolean) => {
        conn.serving = false;
        conn.gone = null;
        conn.idleSince = performance.now();
        if (!keep || closeAfter || closing || socket.destroyed) {
          forget();
          socket.end();
          return;
        }
        if (waiting) process.nextTick(readWaiting);
        else if (socket.isPaused()) socket.resume();
      },
    };
    /** The bytes sent during the last exchange, read as if just read; then reading goes on. */
    const readWaiting = () => {
      const bytes = waiting;
      waiting = null;
      if (!bytes || socket.destroyed || !held.has(conn)) return;
      onBytes(bytes);
      if (held.has(conn) && !waiting) socket.resume();
    };
    let last: FrontRequest | null = null;
    const onBytes = (bytes: Buffer): boolean => {
      if (conn.serving) {
        // One exchange at a time: what the browser sends meanwhile waits, and reading stops.
        if (direct) {
          waiting = ownBytes(bytes);
          return false;
        }
        socket.pause();
        socket.unshift(bytes);
        return true;
      }
      const keepAlive = Math.floor(server.keepAliveTimeout / 1000);
      const request = readFrontHead(bytes, socket, keepAlive, last);
      if (!request) {
        toNode(bytes);
        return true;
      }
      last = request;
      conn.serving = true;
      closeAfter = request.close;
      if (serve(request, conn)) return true;
      conn.serving = false;
      toNode(bytes);
      return true;
    };
    // Errors while the front door holds the socket (a reset): it closes; Node's when Node has it.
    const onError = () => {};
    const onClose = () => {
      forget();
      const gone = conn.gone;
      conn.gone = null;
      gone?.();
    };
    held.add(conn);
    direct = readDirect(socket, onBytes, false);
    if (!direct) socket.on("data", onBytes);
    socket.on("error", onError);
    socket.on("close", onClose);
  });
}
