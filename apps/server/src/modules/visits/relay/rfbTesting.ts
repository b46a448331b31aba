/**
 * RFB messages as a viewer and a VNC server write them, for the filter's tests (rfb.test.ts,
 * rfb.fuzz.test.ts).
 */
import { RfbFilter } from "./rfb.ts";

export const serverVersion = (minor: 3 | 7 | 8) => Buffer.from(`RFB 003.00${minor}\n`, "latin1");
export const clientVersion = serverVersion;

const u8 = (...bytes: number[]) => Buffer.from(bytes);
function u16(v: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}
function u32(v: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
}
function s32(v: number) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

/** Client messages, by name: [bytes, whether it is input]. */
export const msg = {
  setPixelFormat: () =>
    Buffer.concat([
      u8(0, 0, 0, 0, 32, 24, 0, 1),
      u16(255),
      u16(255),
      u16(255),
      u8(0, 8, 16, 0, 0, 0),
    ]),
  setEncodings: (encodings: number[]) =>
    Buffer.concat([u8(2, 0), u16(encodings.length), ...encodings.map(s32)]),
  updateRequest: (incremental = 1) =>
    Buffer.concat([u8(3, incremental), u16(0), u16(0), u16(320), u16(200)]),
  key: (keysym: number, down: boolean) => Buffer.concat([u8(4, down ? 1 : 0, 0, 0), u32(keysym)]),
  pointer: (x: number, y: number, mask = 0) => Buffer.concat([u8(5, mask), u16(x), u16(y)]),
  pointerExtended: (x: number, y: number, mask: number) =>
    Buffer.concat([u8(5, (mask & 0x7f) | 0x80), u16(x), u16(y), u8((mask >> 7) & 0xff)]),
  cutText: (text: Buffer | string, extended = false) => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, "latin1");
    return Buffer.concat([u8(6, 0, 0, 0), s32(extended ? -bytes.length : bytes.length), bytes]);
  },
  continuousUpdates: () => Buffer.concat([u8(150, 1), u16(0), u16(0), u16(320), u16(200)]),
  fence: (payload: Buffer) =>
    Buffer.concat([u8(248, 0, 0, 0), u32(0x80000001), u8(payload.length), payload]),
  xvp: (op: number) => u8(250, 0, 1, op),
  setDesktopSize: (w: number, h: number, screens = 1) => {
    const list = [];
    for (let i = 0; i < screens; i++)
      list.push(Buffer.concat([u32(i), u16(0), u16(0), u16(w), u16(h), u32(0)]));
    return Buffer.concat([u8(251, 0), u16(w), u16(h), u8(screens, 0), ...list]);
  },
  qemuKey: (keysym: number, down: boolean, keycode: number) =>
    Buffer.concat([u8(255, 0), u16(down ? 1 : 0), u32(keysym), u32(keycode)]),
};

/** What a filter handed on, and its failure. */
export function run(viewOnly: boolean | (() => boolean)) {
  const seen = {
    toServer: [] as Buffer[],
    toClient: [] as Buffer[],
    failure: null as string | null,
  };
  const filter = new RfbFilter(typeof viewOnly === "function" ? viewOnly : () => viewOnly, {
    toServer: (b) => seen.toServer.push(Buffer.from(b)),
    toClient: (b) => seen.toClient.push(Buffer.from(b)),
    fail: (reason) => {
      if (seen.failure !== null) throw new Error("failed twice");
      seen.failure = reason;
    },
  });
  return {
    filter,
    seen,
    server: () => Buffer.concat(seen.toServer),
    client: () => Buffer.concat(seen.toClient),
  };
}

/** A 3.8 handshake with security None, the server offering `types`; the bytes each way. */
export function handshake38(types = [1]) {
  return {
    fromServer: [serverVersion(8), Buffer.from([types.length, ...types]), u32(0)],
    fromClient: [clientVersion(8), Buffer.from([1]), Buffer.from([0])],
  };
}

/** Feeds a filter the 3.8 handshake (None) and returns it ready for messages. */
export function ready(viewOnly: boolean | (() => boolean)) {
  const r = run(viewOnly);
  const h = handshake38();
  r.filter.fromServer(h.fromServer[0]);
  r.filter.fromClient(h.fromClient[0]);
  r.filter.fromServer(h.fromServer[1]);
  r.filter.fromClient(Buffer.concat(h.fromClient.slice(1)));
  r.filter.fromServer(h.fromServer[2]);
  r.seen.toServer.length = 0;
  r.seen.toClient.length = 0;
  return r;
}

/** Cuts bytes into pieces at the given offsets. */
export function cut(bytes: Buffer, at: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    pieces.push(bytes.subarray(from, to));
    from = to;
  }
  return pieces;
}
