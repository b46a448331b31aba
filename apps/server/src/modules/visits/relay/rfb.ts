/**
 * An RFB (VNC) session as the screen relay follows it (docs/architecture/remote-access.md
 * "View only"): the viewer → device direction message by message, so that a view-only visit's
 * input (keys, pointer, clipboard, desktop size, power) is dropped here and never reaches the
 * device, whatever the viewer does; and the device → viewer handshake up to its security
 * types, narrowed to those the relay can follow (None, VNC password: the 16-byte response to
 * the challenge passes through, the password never leaves the viewer). After that the
 * device's bytes pass untouched. Pure: bytes in, bytes out through handlers; nothing thrown.
 * Memory: at most one message is held (a clipboard text passes or drops as it arrives).
 */

import { ByteQueue } from "./bytes.ts";
import { asksExtendedMouse, nextMessage } from "./rfbMessages.ts";

/** Security types the relay can follow: after them the viewer's messages are plain RFB. */
export const RFB_SECURITY_NONE = 1;
export const RFB_SECURITY_VNC_AUTH = 2;
const FOLLOWED = new Set([RFB_SECURITY_NONE, RFB_SECURITY_VNC_AUTH]);

/** The most clipboard text a viewer may send in one message. */
export const RFB_MAX_CUT_TEXT = 1024 * 1024;
/** Bytes one side may send ahead during the handshake (nothing legitimate comes close). */
const MAX_HANDSHAKE_AHEAD = 4096;

export interface RfbHandlers {
  /** Bytes for the device's VNC server. */
  toServer(bytes: Buffer): void;
  /** Bytes for the viewer. */
  toClient(bytes: Buffer): void;
  /** The session must end (called once; later bytes are ignored). */
  fail(reason: string): void;
}

enum Client {
  Version,
  Choice,
  Auth,
  Init,
  Message,
  CutText,
  Done,
}

enum Server {
  Version,
  Security,
  Pass,
  Done,
}

export class RfbFilter {
  /** Input messages passed to the device. */
  inputEvents = 0;
  /** Input messages dropped because the visit was view only. */
  droppedEvents = 0;

  private readonly client = new ByteQueue();
  private readonly server = new ByteQueue();
  private clientState = Client.Version;
  private serverState = Server.Version;
  /** 3, 7 or 8: the server's version, then the one the viewer chose. */
  private serverMinor = 0;
  private clientMinor = 0;
  /** 3.7/3.8: the types offered to the viewer; 3.3: the one the server chose. */
  private offered: number[] | null = null;
  private extendedMouse = false;
  /** The clipboard text being passed or dropped. */
  private cutLeft = 0;
  private cutPass = false;
  private failure: string | null = null;
  private readonly maxCutText: number;

  constructor(
    /** Read at every input message: a level change applies to the next one. */
    private readonly viewOnly: () => boolean,
    private readonly on: RfbHandlers,
    options: { maxCutText?: number } = {},
  ) {
    this.maxCutText = options.maxCutText ?? RFB_MAX_CUT_TEXT;
  }

  get failed(): string | null {
    return this.failure;
  }

  /** Whether the handshake is over and the viewer's messages are being followed. */
  get running(): boolean {
    return this.clientState === Client.Message || this.clientState === Client.CutText;
  }

  /** Bytes from the viewer. */
  fromClient(chunk: Buffer): void {
    if (this.failure) return;
    this.client.push(chunk);
    this.pumpClient();
  }

  /** Bytes from the device's VNC server. */
  fromServer(chunk: Buffer): void {
    if (this.failure) return;
    if (this.serverState === Server.Pass) {
      if (chunk.byteLength) this.on.toClient(chunk);
      return;
    }
    this.server.push(chunk);
    this.pumpServer();
    // The viewer may have been waiting on what the server said (its version, the types).
    if (!this.failure) this.pumpClient();
  }

  private fail(reason: string): false {
    if (this.failure) return false;
    this.failure = reason;
    this.clientState = Client.Done;
    this.serverState = Server.Done;
    this.client.clear();
    this.server.clear();
    this.on.fail(reason);
    return false;
  }

  // ---- device → viewer: version and security types ----

  /** Reads what it can of the server's handshake (false: waiting, or failed). */
  private pumpServer(): boolean {
    if (this.serverState === Server.Version) {
      const version = this.server.take(12);
      if (!version) return this.holdServer();
      const parsed = parseVersion(version);
      if (!parsed || parsed.major < 3 || (parsed.major === 3 && parsed.minor < 3))
        return this.fail("the VNC server does not speak RFB 3.3 or later");
      // Other 3.x as 3.3 (RFC 6143 §7.1.1); 3.8 and anything later as 3.8.
      this.serverMinor = parsed.major > 3 || parsed.minor >= 8 ? 8 : parsed.minor === 7 ? 7 : 3;
      this.on.toClient(version);
      this.serverState = Server.Security;
    }
    if (this.serverState === Server.Security) {
      // Its form depends on the version the viewer chose: wait for it.
      if (!this.clientMinor) return this.holdServer();
      if (this.clientMinor === 3) {
        const head = this.server.take(4);
        if (!head) return this.holdServer();
        const type = head.readUInt32BE(0);
        if (type !== 0 && !FOLLOWED.has(type))
          return this.refuseSecurity(`the VNC server asks for security type ${type}`);
        // 0: the server's own failure and its reason, passed on as they are.
        this.offered = [type];
        this.on.toClient(head);
      } else {
        const count = this.server.peek(1);
        if (!count) return this.holdServer();
        const n = count[0];
        if (n === 0) this.offered = [];
        else {
          const list = this.server.take(1 + n);
          if (!list) return this.holdServer();
          const types = [...list.subarray(1)];
          const kept = types.filter((t) => FOLLOWED.has(t));
          if (!kept.length)
            return this.refuseSecurity(`the VNC server offers security types ${types.join(", ")}`);
          this.offered = kept;
          this.on.toClient(Buffer.from([kept.length, ...kept]));
        }
      }
      this.serverState = Server.Pass;
      const rest = this.server.takeAll();
      if (rest.byteLength) this.on.toClient(rest);
    }
    return true;
  }

  private holdServer(): false {
    if (this.server.length > MAX_HANDSHAKE_AHEAD)
      this.fail("the VNC server sent too much before the handshake ended");
    return false;
  }

  /**
   * No type the relay can follow: the viewer is told in RFB's own words (a security failure
   * with a reason, which noVNC shows) and the session ends.
   */
  private refuseSecurity(what: string): false {
    const reason = Buffer.from(
      `${what}; the Keyway relay follows only None (1) and VNC password (2)`,
      "utf8",
    );
    const length = Buffer.alloc(4);
    length.writeUInt32BE(reason.byteLength);
    const head = this.clientMinor === 3 ? Buffer.alloc(4) : Buffer.from([0]);
    this.on.toClient(Buffer.concat([head, length, reason]));
    return this.fail(reason.toString("utf8"));
  }

  // ---- viewer → device ----

  private pumpClient(): void {
    // What passes in one read goes on in one write.
    const out: Buffer[] = [];
    this.readClient(out);
    if (out.length && !this.failure)
      this.on.toServer(out.length === 1 ? out[0] : Buffer.concat(out));
  }

  private readClient(out: Buffer[]): boolean {
    while (!this.failure) {
      switch (this.clientState) {
        case Client.Version: {
          // Not before the server's own version (a viewer answers it).
          if (!this.serverMinor) return this.holdClient();
          const version = this.client.take(12);
          if (!version) return this.holdClient();
          const parsed = parseVersion(version);
          if (parsed?.major !== 3 || ![3, 7, 8].includes(parsed.minor))
            return this.fail("the viewer does not speak RFB 3.3, 3.7 or 3.8");
          if (parsed.minor > this.serverMinor)
            return this.fail("the viewer chose a later RFB version than the server's");
          this.clientMinor = parsed.minor;
          out.push(version);
          this.clientState = Client.Choice;
          // The server's types may be waiting for this version.
          if (this.serverState === Server.Security) this.pumpServer();
          break;
        }
        case Client.Choice: {
          if (!this.offered) return this.holdClient();
          if (this.offered.length === 0 || this.offered[0] === 0) {
            // The server refused the session; whatever the viewer sends now is not RFB.
            this.clientState = Client.Done;
            break;
          }
          let type: number;
          if (this.clientMinor === 3) type = this.offered[0];
          else {
            const choice = this.client.take(1);
            if (!choice) return this.holdClient();
            type = choice[0];
            if (!this.offered.includes(type))
              return this.fail(`the viewer chose security type ${type}, which was not offered`);
            out.push(choice);
          }
          this.clientState = type === RFB_SECURITY_VNC_AUTH ? Client.Auth : Client.Init;
          break;
        }
        case Client.Auth: {
          // The DES response to the challenge: passed on, never kept or logged.
          const response = this.client.take(16);
          if (!response) return this.holdClient();
          out.push(response);
          this.clientState = Client.Init;
          break;
        }
        case Client.Init: {
          const init = this.client.take(1);
          if (!init) return this.holdClient();
          // A view-only visitor may not make the server drop its other viewers (shared = 0).
          out.push(this.viewOnly() ? Buffer.from([1]) : init);
          this.clientState = Client.Message;
          break;
        }
        case Client.Message:
          if (!this.readMessage(out)) return false;
          break;
        case Client.CutText: {
          const piece = this.client.takeUpTo(this.cutLeft);
          if (!piece) return false;
          this.cutLeft -= piece.byteLength;
          if (this.cutPass) out.push(piece);
          if (this.cutLeft === 0) this.clientState = Client.Message;
          break;
        }
        case Client.Done:
          // The server failed the handshake: nothing more goes to it.
          this.client.clear();
          return false;
      }
    }
    return false;
  }

  private holdClient(): false {
    if (this.client.length > MAX_HANDSHAKE_AHEAD)
      this.fail("the viewer sent too much before the handshake ended");
    return false;
  }

  /** One message if it is all here (false: wait for more, or failed). */
  private readMessage(out: Buffer[]): boolean {
    const q = this.client;
    const next = nextMessage(q, { extendedMouse: this.extendedMouse, maxCutText: this.maxCutText });
    switch (next.kind) {
      case "more":
        return false;
      case "invalid":
        return this.fail(next.reason);
      case "cutText": {
        const head = q.take(8) as Buffer;
        this.cutPass = this.input();
        if (this.cutPass) out.push(head);
        this.cutLeft = next.bytes;
        if (next.bytes) this.clientState = Client.CutText;
        return true;
      }
      case "message": {
        if (q.length < next.size) return false;
        if (next.input && !this.input()) {
          q.skip(next.size);
          return true;
        }
        const message = q.take(next.size) as Buffer;
        if (next.setEncodings) this.extendedMouse = asksExtendedMouse(message);
        out.push(message);
        return true;
      }
    }
  }

  /** Counts an input message; whether it passes. */
  private input(): boolean {
    if (this.viewOnly()) {
      this.droppedEvents += 1;
      return false;
    }
    this.inputEvents += 1;
    return true;
  }
}

function parseVersion(bytes: Buffer): { major: number; minor: number } | null {
  const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(bytes.toString("latin1"));
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}
