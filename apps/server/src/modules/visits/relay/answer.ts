/**
 * The device's HTTP/1.1 answer on a tunnel stream, read by the relay without Node's HTTP
 * client: only the head is parsed; the body is handed on as views of the bytes read, ended
 * by its framing (Content-Length, chunked, or the stream's end), so that a stream whose
 * answer is complete goes back to the visit's pool. Whatever the device sends, this throws
 * nothing: a malformed answer is an error (the relay answers 502 or cuts the response).
 */

/** The most a head may take (status line and headers). */
const MAX_HEAD = 64 * 1024;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** NUL anywhere, or a CR not ending a line (in a value it could start a header of its own). */
const BAD_TEXT = /\0|\r(?!\n)/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: (.*))?$/;
const HEAD_END = Buffer.from("\r\n\r\n");
const BARE_HEAD_END = Buffer.from("\n\n");

export interface AnswerHead {
  status: number;
  statusMessage: string;
  /** Name, value, name, value… as received. */
  rawHeaders: string[];
  /** The stream may carry another exchange once this answer's body has ended. */
  keepAlive: boolean;
  /** How the body is delimited on the stream (none: HEAD, 204, 304). */
  framing: Framing["kind"];
}

export interface AnswerHandlers {
  head(head: AnswerHead): void;
  /** A piece of the body (a view: pass it on, do not keep it). */
  body(piece: Buffer): void;
  /**
   * The body is complete; `reusable`: nothing followed it and the stream may serve again.
   * `last`: the body's last piece when it came with the end (not given to body()), so that
   * it goes out with the end in one write.
   */
  end(reusable: boolean, last?: Buffer): void;
  error(message: string): void;
}

type Framing =
  | { kind: "length"; left: number }
  | { kind: "chunked" }
  | { kind: "close" }
  | { kind: "none" };

/** Chunked decoding's states. */
enum Chunk {
  Size,
  Data,
  DataEnd,
  Trailer,
}

export class AnswerReader {
  private headBytes: Buffer | null = null;
  private inBody = false;
  private done = false;
  private framing: Framing = { kind: "none" };
  private keepAlive = false;
  // chunked
  private chunkState = Chunk.Size;
  private chunkLeft = 0;
  private line = "";

  constructor(
    /** The request's method: a HEAD's answer has no body. */
    private readonly method: string,
    private readonly on: AnswerHandlers,
    /** The stream's memo of its last answer head (kept by the caller, one per stream). */
    private readonly memo?: AnswerMemo,
  ) {}

  get finished(): boolean {
    return this.done;
  }

  /** Reads no more: the exchange has failed on the browser's side (nothing more is called). */
  stop(): void {
    this.done = true;
  }

  /** Bytes from the stream. */
  push(chunk: Buffer): void {
    if (this.done) {
      // Bytes past the answer: nothing a sound device sends unasked.
      return;
    }
    let data = chunk;
    while (!this.inBody && !this.done && data.byteLength) {
      const rest = this.readHead(data);
      if (rest === null) return;
      data = rest;
    }
    if (this.done || !this.inBody) return;
    if (data.byteLength) this.readBody(data);
  }

  /** The stream ended (the device closed its side). */
  end(): void {
    if (this.done) return;
    if (this.inBody && this.framing.kind === "close") {
      this.finish(false);
      return;
    }
    this.fail(this.inBody ? "the answer was cut short" : "no answer");
  }

  private fail(message: string): void {
    if (this.done) return;
    this.done = true;
    this.on.error(message);
  }

  private finish(reusable: boolean, last?: Buffer): void {
    if (this.done) return;
    this.done = true;
    this.on.end(reusable, last);
  }

  /** Gathers and parses a head; the bytes after it, or null when more are needed (or on error). */
  private readHead(data: Buffer): Buffer | null {
    const all = this.headBytes ? Buffer.concat([this.headBytes, data]) : data;
    let end = all.indexOf(HEAD_END);
    let skip = 4;
    if (end < 0) {
      end = all.indexOf(BARE_HEAD_END);
      skip = 2;
    }
    if (end < 0) {
      if (all.byteLength > MAX_HEAD) this.fail("an answer head above 64 KiB");
      // Kept as its own copy: `data` is a view into the stream's read.
      else this.headBytes = Buffer.from(all);
      return null;
    }
    if (end > MAX_HEAD) {
      this.fail("an answer head above 64 KiB");
      return null;
    }
    this.headBytes = null;
    const rest = all.subarray(end + skip);
    const text = all.toString("latin1", 0, end);
    // The stream's last answer head, when this one is the same bytes, is not read again.
    const memo = this.memo;
    let parsed: ParsedHead | string;
    if (memo?.parsed && memo.text === text) parsed = memo.parsed;
    else {
      parsed = parseAnswerHead(text);
      if (memo && typeof parsed !== "string" && parsed.code >= 200) {
        memo.text = text;
        memo.parsed = parsed;
      }
    }
    if (typeof parsed === "string") {
      this.fail(parsed);
      return null;
    }
    const { code, statusMessage, rawHeaders, length, chunked, transferEncoding } = parsed;
    let close = parsed.close;
    // 1xx: interim (100 Continue, 103 Early Hints); the final answer follows.
    if (code < 200) {
      if (code === 101) {
        this.fail("an upgrade answer to a plain request");
        return null;
      }
      return rest;
    }
    if (this.method === "HEAD" || code === 204 || code === 304) this.framing = { kind: "none" };
    else if (transferEncoding) {
      this.framing = chunked ? { kind: "chunked" } : { kind: "close" };
      // Both: chunked wins, and nobody trusts that stream again.
      if (length !== null) close = true;
    } else if (length !== null) this.framing = { kind: "length", left: length };
    else this.framing = { kind: "close" };
    this.keepAlive = !close && this.framing.kind !== "close";
    this.inBody = true;
    this.on.head({
      status: code,
      statusMessage,
      rawHeaders,
      keepAlive: this.keepAlive,
      framing: this.framing.kind,
    });
    if (this.done) return null;
    if (this.framing.kind === "none" || (this.framing.kind === "length" && this.framing.left === 0))
      this.finish(this.keepAlive && rest.byteLength === 0);
    return rest;
  }

  private readBody(data: Buffer): void {
    const f = this.framing;
    if (f.kind === "close") {
      this.on.body(data);
      return;
    }
    if (f.kind === "length") {
      const take = Math.min(f.left, data.byteLength);
      const piece = take === data.byteLength ? data : data.subarray(0, take);
      f.left -= take;
      if (f.left === 0) this.finish(this.keepAlive && take === data.byteLength, piece);
      else if (take) this.on.body(piece);
      return;
    }
    if (f.kind === "chunked") this.readChunked(data);
    else if (data.byteLength) this.finish(false);
  }

  private readChunked(data: Buffer): void {
    let at = 0;
    const n = data.byteLength;
    while (at < n && !this.done) {
      if (this.chunkState === Chunk.Data) {
        const take = Math.min(this.chunkLeft, n - at);
        this.on.body(data.subarray(at, at + take));
        this.chunkLeft -= take;
        at += take;
        if (this.chunkLeft === 0) this.chunkState = Chunk.DataEnd;
        continue;
      }
      // Line-oriented states: a size line, the CRLF after data, trailer lines.
      const lf = data.indexOf(10, at);
      const piece = data.toString("latin1", at, lf < 0 ? n : lf);
      if (this.line.length + piece.length > 4096) {
        this.fail("a chunk line above 4 KiB");
        return;
      }
      if (lf < 0) {
        this.line += piece;
        return;
      }
      at = lf + 1;
      const line = (this.line + piece).replace(/\r$/, "");
      this.line = "";
      if (this.chunkState === Chunk.DataEnd) {
        if (line !== "") {
          this.fail("chunk data longer than its size");
          return;
        }
        this.chunkState = Chunk.Size;
      } else if (this.chunkState === Chunk.Size) {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!size) {
          this.fail("a malformed chunk size");
          return;
        }
        this.chunkLeft = Number.parseInt(size[1], 16);
        this.chunkState = this.chunkLeft === 0 ? Chunk.Trailer : Chunk.Data;
      } else if (line === "") {
        // The last trailer line: the body is complete.
        this.finish(this.keepAlive && at === n);
        return;
      }
    }
  }
}

/** What a head says, read once: the same bytes read the same (the reader's memo). */
interface ParsedHead {
  code: number;
  statusMessage: string;
  rawHeaders: string[];
  length: number | null;
  chunked: boolean;
  transferEncoding: boolean;
  close: boolean;
}

/** The last answer head read on a stream: a kept-alive device repeats it within its second. */
export interface AnswerMemo {
  text: string;
  parsed: ParsedHead | null;
}

/** Reads an answer head's text (without its last empty line); a failure's reason otherwise. */
function parseAnswerHead(text: string): ParsedHead | string {
  // NUL, or a CR that ends no line: nothing a header may hold.
  if (BAD_TEXT.test(text)) return "a malformed header in the answer";
  // Lines end in CRLF; a bare LF is taken too (as Node's parser does).
  let at = text.indexOf("\n");
  if (at < 0) at = text.length;
  const status = STATUS_LINE.exec(text.slice(0, text.charCodeAt(at - 1) === 13 ? at - 1 : at));
  if (!status) return "not an HTTP/1.x answer";
  const code = Number(status[2]);
  const rawHeaders: string[] = [];
  let length: number | null = null;
  let chunked = false;
  let transferEncoding = false;
  let close = status[1] === "0";
  while (at < text.length) {
    const start = at + 1;
    at = text.indexOf("\n", start);
    if (at < 0) at = text.length;
    const lineEnd = text.charCodeAt(at - 1) === 13 ? at - 1 : at;
    const colon = text.indexOf(":", start);
    const name = colon > start && colon < lineEnd ? text.slice(start, colon) : "";
    if (!TOKEN.test(name)) return "a malformed header in the answer";
    const value = text.slice(colon + 1, lineEnd).trim();
    // Only the names the framing depends on are lowered (by their length first).
    const n = name.length;
    const lower = n === 14 || n === 17 || n === 10 ? name.toLowerCase() : "";
    if (lower === "content-length") {
      if (!/^\d{1,15}$/.test(value) || (length !== null && length !== Number(value)))
        return "a malformed Content-Length in the answer";
      length = Number(value);
    } else if (lower === "transfer-encoding") {
      transferEncoding = true;
      chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
    } else if (lower === "connection") {
      const tokens = value
        .toLowerCase()
        .split(",")
        .map((t) => t.trim());
      if (tokens.includes("close")) close = true;
      else if (status[1] === "0" && tokens.includes("keep-alive")) close = false;
    }
    rawHeaders.push(name, value);
  }
  return {
    code,
    statusMessage: status[3] ?? "",
    rawHeaders,
    length,
    chunked,
    transferEncoding,
    close,
  };
}
