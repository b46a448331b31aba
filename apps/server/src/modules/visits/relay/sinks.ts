import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { AppError } from "../../../http/envelope.ts";
import type { AnswerHead } from "./answer.ts";
import type { FrontConnection } from "./front.ts";
import { clearHeaders, refusalPage } from "./refusals.ts";

/**
 * Where the device's answer goes: Node's ServerResponse (a request Node parsed), or the
 * socket itself (a request the front door read, front.ts). The exchange (http.ts) is the
 * same for both.
 */
export interface AnswerSink {
  /** The browser has gone: nothing more will reach it. */
  readonly gone: boolean;
  /** The answer's head (the relay's headers); false when it cannot be sent. */
  head(answer: AnswerHead, message: string, headers: string[]): boolean;
  /** A piece of the body; false when the browser's side is full (wait for `drained`). */
  body(piece: Buffer): boolean;
  /** The answer is complete (`last`: its last piece). */
  end(last?: Buffer): void;
  /**
   * The exchange failed: the refusal page (`error`, else the device unreachable) when no head
   * went out yet, else the connection cut.
   */
  fail(error?: AppError): void;
  watch(drained: () => void, gone: () => void): void;
  unwatch(drained: () => void, gone: () => void): void;
}

/** The answer through Node's ServerResponse (Node frames the body). */
export class ResponseSink implements AnswerSink {
  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly refuse: (response: ServerResponse, error: unknown) => void,
  ) {}

  get gone(): boolean {
    return this.response.destroyed;
  }

  head(answer: AnswerHead, message: string, headers: string[]): boolean {
    clearHeaders(this.response);
    try {
      this.response.writeHead(answer.status, message, headers);
      return true;
    } catch {
      return false;
    }
  }

  body(piece: Buffer): boolean {
    return this.response.write(piece);
  }

  end(last?: Buffer): void {
    this.response.end(last);
  }

  fail(error?: AppError): void {
    if (this.response.headersSent) return void this.response.destroy();
    this.request.resume();
    this.refuse(this.response, error ?? unreachable());
  }

  watch(drained: () => void, gone: () => void): void {
    this.response.on("drain", drained);
    this.response.on("close", gone);
  }

  unwatch(drained: () => void, gone: () => void): void {
    this.response.off("drain", drained);
    this.response.off("close", gone);
  }
}

const unreachable = () => new AppError("TARGET_UNREACHABLE", null, 502);

/** A field value Node's writeHead would send (no control characters but HTAB). */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** An answer head as the socket sink writes it, but for a Date the device did not send. */
interface HeadText {
  headers: string[];
  status: number;
  message: string;
  chunked: boolean;
  close: boolean;
  keepAliveSeconds: number;
  /** The status line and the headers. */
  lines: string;
  /** The framing and connection lines and the empty line. */
  end: string;
  /** The device sent a Date: `text` is the whole head. */
  dated: boolean;
  text: string;
}

/**
 * The last head built: a page polled again gets the same headers array from the relay (its
 * memo of a repeated answer head on a visit host), and then the same text, checked once.
 */
let lastHead: HeadText | null = null;

/** The head's text, or null when a value is one Node's writeHead would refuse. */
function headText(
  status: number,
  message: string,
  headers: string[],
  chunked: boolean,
  close: boolean,
  keepAliveSeconds: number,
): HeadText | null {
  let lines = `HTTP/1.1 ${status} ${message}\r\n`;
  // The values checked together, in one pass.
  let values = message;
  let dated = false;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    const value = headers[i + 1];
    values += value;
    if (name.length === 4 && name.toLowerCase() === "date") dated = true;
    lines += `${name}: ${value}\r\n`;
  }
  if (!VALUE.test(values)) return null;
  let end = chunked ? "Transfer-Encoding: chunked\r\n" : "";
  end += close
    ? "Connection: close\r\n\r\n"
    : `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\n`;
  const text = lines + end;
  return { headers, status, message, chunked, close, keepAliveSeconds, lines, end, dated, text };
}

let dateSecond = 0;
let dateText = "";
/** The Date header's value, made once a second (as Node's own). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/**
 * The answer written on the socket by the relay itself, framed as Node frames a response:
 * the device's Content-Length kept when its body is delimited by it, else chunked; a Date
 * when the device sent none; the connection kept alive unless the browser asked to close.
 */
export class SocketSink implements AnswerSink {
  /** The head, held to go out with the body's first piece in one write. */
  private pending = "";
  private started = false;
  private chunked = false;
  /** The exchange's resume, and the one 'drain' listener while the socket is full. */
  private drained: (() => void) | null = null;
  private waitingDrain: (() => void) | null = null;
  private onGone: (() => void) | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly close: boolean,
    private readonly keepAliveSeconds: number,
    /** Told once the answer is out (`keep`: the connection may serve again) or failed. */
    private readonly connection: FrontConnection,
  ) {}

  get gone(): boolean {
    return this.socket.destroyed;
  }

  head(answer: AnswerHead, message: string, headers: string[]): boolean {
    const chunked = answer.framing === "chunked" || answer.framing === "close";
    let known = lastHead;
    if (
      known?.headers !== headers ||
      known.status !== answer.status ||
      known.message !== message ||
      known.chunked !== chunked ||
      known.close !== this.close ||
      known.keepAliveSeconds !== this.keepAliveSeconds
    ) {
      known = headText(answer.status, message, headers, chunked, this.close, this.keepAliveSeconds);
      if (!known) return false;
      lastHead = known;
    }
    // A body the tunnel delimits otherwise than by its length goes out chunked.
    this.chunked = chunked;
    this.pending = known.dated ? known.text : `${known.lines}Date: ${httpDate()}\r\n${known.end}`;
    return true;
  }

  body(piece: Buffer): boolean {
    const socket = this.socket;
    socket.cork();
    this.flushHead();
    const more = this.writePiece(piece);
    socket.uncork();
    // Full: the exchange waits for the socket's drain (listened to only now, not per answer).
    if (!more && !this.waitingDrain) {
      this.waitingDrain = () => {
        this.waitingDrain = null;
        this.drained?.();
      };
      socket.once("drain", this.waitingDrain);
    }
    return more;
  }

  end(last?: Buffer): void {
    const socket = this.socket;
    if (this.pending && !this.chunked) {
      // The whole answer came at once (a small one): head and body in one buffer, one write.
      const head = this.pending;
      const size = last?.byteLength ?? 0;
      const out = Buffer.allocUnsafe(head.length + size);
      out.write(head, 0, "latin1");
      if (last && size) last.copy(out, head.length);
      this.pending = "";
      this.started = true;
      socket.write(out);
      this.connection.done(true);
      return;
    }
    socket.cork();
    this.flushHead();
    if (last?.byteLength) this.writePiece(last);
    if (this.chunked) socket.write("0\r\n\r\n", "latin1");
    socket.uncork();
    this.connection.done(true);
  }

  fail(error?: AppError): void {
    if (this.started) {
      this.socket.destroy();
      this.connection.done(false);
      return;
    }
    const page = refusalPage(error ?? unreachable());
    const html = Buffer.from(page.html);
    let text = `HTTP/1.1 ${page.status} ${STATUS_CODES[page.status] ?? "Error"}\r\n`;
    for (const [name, value] of Object.entries(page.headers)) text += `${name}: ${value}\r\n`;
    text += `Date: ${httpDate()}\r\nContent-Length: ${html.byteLength}\r\nConnection: close\r\n\r\n`;
    this.started = true;
    this.socket.cork();
    this.socket.write(text, "latin1");
    this.socket.write(html);
    this.socket.uncork();
    this.connection.done(false);
  }

  watch(drained: () => void, gone: () => void): void {
    this.drained = drained;
    this.onGone = gone;
    // The front door holds the socket's one 'close' listener and tells the exchange.
    this.connection.gone = gone;
  }

  unwatch(): void {
    this.drained = null;
    if (this.connection.gone === this.onGone) this.connection.gone = null;
    this.onGone = null;
    if (this.waitingDrain) this.socket.off("drain", this.waitingDrain);
    this.waitingDrain = null;
  }

  private flushHead(): void {
    if (!this.pending) return;
    this.started = true;
    this.socket.write(this.pending, "latin1");
    this.pending = "";
  }

  private writePiece(piece: Buffer): boolean {
    if (!this.chunked) return this.socket.write(piece);
    this.socket.write(`${piece.byteLength.toString(16)}\r\n`, "latin1");
    this.socket.write(piece);
    return this.socket.write("\r\n", "latin1");
  }
}
