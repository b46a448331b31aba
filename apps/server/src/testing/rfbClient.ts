import { performance } from "node:perf_hooks";
import { type RfbTransport, vncAuthResponse } from "./rfbTransport.ts";

export { type RfbTransport, tcpTransport, vncAuthResponse, wsTransport } from "./rfbTransport.ts";

// A small RFB 3.8 client (RFC 6143) for tests and the bench: security None or VNC
// authentication, 32-bit true colour, Raw (+ CopyRect, DesktopSize, LastRect) rectangles
// into a framebuffer, key and pointer events. Over TCP (straight to the VNC server) or a
// WebSocket (through the relay, as noVNC does): rfbTransport.ts.

export const ENCODING = { raw: 0, copyRect: 1, lastRect: -224, desktopSize: -223 } as const;

export interface UpdateTiming {
  rects: number;
  /** performance.now() when the update's first byte arrived, and when its last did. */
  firstByteAt: number;
  doneAt: number;
}

export class RfbClient {
  width = 0;
  height = 0;
  name = "";
  /** 4 bytes a pixel: blue, green, red, unused (our SetPixelFormat, little-endian). */
  framebuffer = Buffer.alloc(0);
  closed: string | null = null;
  /** Bytes received from the server so far. */
  bytesRead = 0;
  private chunks: { data: Buffer; at: number }[] = [];
  private buffered = 0;
  private wake: (() => void) | null = null;

  private constructor(private transport: RfbTransport) {
    transport.onData((data, at) => {
      this.chunks.push({ data, at });
      this.buffered += data.length;
      this.bytesRead += data.length;
      this.wake?.();
    });
    transport.onClose((reason) => {
      this.closed = reason;
      this.wake?.();
    });
  }

  /** Handshake up to ServerInit, then 32-bit true colour and `encodings`. */
  static async connect(
    transport: RfbTransport,
    options: { password?: string; encodings?: number[] } = {},
  ): Promise<RfbClient> {
    const client = new RfbClient(transport);
    try {
      await client.handshake(options.password);
    } catch (error) {
      transport.close();
      throw error;
    }
    client.setPixelFormat();
    client.setEncodings(options.encodings ?? [ENCODING.raw]);
    return client;
  }

  private async handshake(password: string | undefined): Promise<void> {
    const version = (await this.read(12)).toString("latin1");
    if (!/^RFB 003\.00[3-9]\n$/.test(version)) throw new Error(`not an RFB server: ${version}`);
    this.transport.write(Buffer.from("RFB 003.008\n", "latin1"));
    const count = (await this.read(1))[0];
    if (count === 0) throw new Error(`VNC server refused: ${await this.reason()}`);
    const types = [...(await this.read(count))];
    const type = password !== undefined && types.includes(2) ? 2 : types.includes(1) ? 1 : 0;
    if (type === 0) throw new Error(`no usable security type among ${types.join(",")}`);
    this.transport.write(Buffer.from([type]));
    if (type === 2) {
      this.transport.write(vncAuthResponse(await this.read(16), password ?? ""));
    }
    if ((await this.read(4)).readUInt32BE(0) !== 0) {
      throw new Error(`VNC authentication failed: ${await this.reason()}`);
    }
    this.transport.write(Buffer.from([1])); // ClientInit: shared
    const init = await this.read(24);
    this.width = init.readUInt16BE(0);
    this.height = init.readUInt16BE(2);
    this.name = (await this.read(init.readUInt32BE(20))).toString("utf8");
    this.framebuffer = Buffer.alloc(this.width * this.height * 4);
  }

  private async reason(): Promise<string> {
    return (await this.read((await this.read(4)).readUInt32BE(0))).toString("utf8");
  }

  /** The time the next unread byte arrived (call before reading it). */
  private async peekTime(): Promise<number> {
    while (this.buffered === 0) await this.more();
    return this.chunks[0].at;
  }

  private async more(): Promise<void> {
    if (this.closed !== null) throw new Error(this.closed);
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.wake = null;
  }

  /** Reads exactly n bytes, into `target` at `offset` when given. */
  private async read(n: number, target = Buffer.alloc(n), offset = 0): Promise<Buffer> {
    let done = 0;
    while (done < n) {
      if (this.buffered === 0) {
        await this.more();
        continue;
      }
      const head = this.chunks[0];
      const take = Math.min(n - done, head.data.length);
      head.data.copy(target, offset + done, 0, take);
      done += take;
      this.buffered -= take;
      if (take === head.data.length) this.chunks.shift();
      else head.data = head.data.subarray(take);
    }
    return target;
  }

  private setPixelFormat(): void {
    const message = Buffer.alloc(20);
    message[0] = 0;
    // bpp 32, depth 24, little-endian, true colour, max 255 each, shifts 16/8/0.
    Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0]).copy(message, 4);
    this.transport.write(message);
  }

  setEncodings(encodings: number[]): void {
    const message = Buffer.alloc(4 + 4 * encodings.length);
    message[0] = 2;
    message.writeUInt16BE(encodings.length, 2);
    for (const [i, encoding] of encodings.entries()) message.writeInt32BE(encoding, 4 + 4 * i);
    this.transport.write(message);
  }

  /** FramebufferUpdateRequest, by default for the whole screen. */
  requestUpdate(incremental: boolean, x = 0, y = 0, w = this.width, h = this.height): void {
    const message = Buffer.alloc(10);
    message[0] = 3;
    message[1] = incremental ? 1 : 0;
    message.writeUInt16BE(x, 2);
    message.writeUInt16BE(y, 4);
    message.writeUInt16BE(w, 6);
    message.writeUInt16BE(h, 8);
    this.transport.write(message);
  }

  key(keysym: number, down: boolean): void {
    const message = Buffer.alloc(8);
    message[0] = 4;
    message[1] = down ? 1 : 0;
    message.writeUInt32BE(keysym, 4);
    this.transport.write(message);
  }

  /** A key press and release (keysym: the character's code for Latin-1, RFC 6143 §7.5.4). */
  press(keysym: number): void {
    this.key(keysym, true);
    this.key(keysym, false);
  }

  pointer(x: number, y: number, buttons = 0): void {
    const message = Buffer.alloc(6);
    message[0] = 5;
    message[1] = buttons;
    message.writeUInt16BE(x, 2);
    message.writeUInt16BE(y, 4);
    this.transport.write(message);
  }

  /** ClientCutText: the viewer's clipboard (Latin-1), in one message. */
  cutText(text: Buffer): void {
    const message = Buffer.alloc(8 + text.length);
    message[0] = 6;
    message.writeUInt32BE(text.length, 4);
    text.copy(message, 8);
    this.transport.write(message);
  }

  /** Reads server messages until a whole FramebufferUpdate is in the framebuffer. */
  async nextUpdate(): Promise<UpdateTiming> {
    for (;;) {
      const firstByteAt = await this.peekTime();
      const type = (await this.read(1))[0];
      if (type === 0) {
        const rects = await this.readUpdate();
        return { rects, firstByteAt, doneAt: performance.now() };
      }
      if (type === 1) {
        const header = await this.read(5);
        await this.read(6 * header.readUInt16BE(3));
      } else if (type === 2) {
        // Bell: nothing more.
      } else if (type === 3) {
        await this.read(3);
        await this.read((await this.read(4)).readUInt32BE(0));
      } else {
        throw new Error(`unknown RFB server message ${type}`);
      }
    }
  }

  private async readUpdate(): Promise<number> {
    const count = (await this.read(3)).readUInt16BE(1);
    for (let i = 0; i < count; i++) {
      const header = await this.read(12);
      const [x, y, w, h] = [0, 2, 4, 6].map((o) => header.readUInt16BE(o));
      const encoding = header.readInt32BE(8);
      if (encoding === ENCODING.raw) {
        if (x === 0 && w === this.width) {
          await this.read(w * h * 4, this.framebuffer, y * this.width * 4);
        } else {
          const rows = await this.read(w * h * 4);
          for (let row = 0; row < h; row++) {
            rows.copy(
              this.framebuffer,
              ((y + row) * this.width + x) * 4,
              row * w * 4,
              (row + 1) * w * 4,
            );
          }
        }
      } else if (encoding === ENCODING.copyRect) {
        const source = await this.read(4);
        this.copyRect(source.readUInt16BE(0), source.readUInt16BE(2), x, y, w, h);
      } else if (encoding === ENCODING.desktopSize) {
        this.width = w;
        this.height = h;
        this.framebuffer = Buffer.alloc(w * h * 4);
      } else if (encoding === ENCODING.lastRect) {
        return i;
      } else {
        throw new Error(`unexpected RFB encoding ${encoding}`);
      }
    }
    return count;
  }

  private copyRect(sx: number, sy: number, x: number, y: number, w: number, h: number): void {
    const copy = Buffer.alloc(w * h * 4);
    for (let row = 0; row < h; row++) {
      const from = ((sy + row) * this.width + sx) * 4;
      this.framebuffer.copy(copy, row * w * 4, from, from + w * 4);
    }
    for (let row = 0; row < h; row++) {
      copy.copy(this.framebuffer, ((y + row) * this.width + x) * 4, row * w * 4, (row + 1) * w * 4);
    }
  }

  /** The colour at (x, y) as #rrggbb. */
  pixel(x: number, y: number): string {
    const at = (y * this.width + x) * 4;
    const [b, g, r] = [this.framebuffer[at], this.framebuffer[at + 1], this.framebuffer[at + 2]];
    return `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;
  }

  /** The share of the screen in `colour` (#rrggbb), 0 to 1. */
  share(colour: string): number {
    const r = Number.parseInt(colour.slice(1, 3), 16);
    const g = Number.parseInt(colour.slice(3, 5), 16);
    const b = Number.parseInt(colour.slice(5, 7), 16);
    let same = 0;
    const fb = this.framebuffer;
    for (let at = 0; at < fb.length; at += 4) {
      if (fb[at] === b && fb[at + 1] === g && fb[at + 2] === r) same++;
    }
    return fb.length === 0 ? 0 : same / (fb.length / 4);
  }

  /** Asks for the whole screen (not incremental) and waits for it. */
  async refresh(): Promise<UpdateTiming> {
    this.requestUpdate(false);
    return this.nextUpdate();
  }

  /**
   * Asks for changes until most of the screen (90 %) is `colour`; fails after `timeoutMs`.
   * The first request is a full one, so a colour already on screen counts.
   */
  async untilColour(colour: string, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let incremental = false;
    while (this.share(colour) < 0.9) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`the screen did not turn ${colour}`);
      this.requestUpdate(incremental);
      incremental = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.nextUpdate(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the screen did not turn ${colour}`)), left);
        }),
      ]).finally(() => clearTimeout(timer));
    }
  }

  close(): void {
    this.transport.close();
  }
}
