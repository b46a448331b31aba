import {
  decodeFrame,
  encodeFrame,
  TUNNEL_FRAME,
  TUNNEL_MAX_DATA,
  TUNNEL_MAX_WINDOW,
  TUNNEL_WINDOW,
  type TunnelControl,
} from "@keyway/protocol";
import fc from "fast-check";

/**
 * Hostile tunnel frames for the fuzz tests of both ends (the agent's and the server's
 * `/tunnel`): well-formed frames with values no sound peer sends, and messages that do not
 * parse at all.
 */

/** Stream ids of the hostile frames: far from those a link's own mux hands out (1, 2, …). */
export const HOSTILE_ID_MIN = 1_000_000;

const u32 = fc.oneof(
  fc.constantFrom(0, 1, TUNNEL_WINDOW, TUNNEL_MAX_WINDOW, TUNNEL_MAX_WINDOW + 1, 0xffff_ffff),
  fc.integer({ min: 0, max: 0xffff_ffff }),
);

/** A few ids, so that frames meet the streams earlier frames opened. */
const id = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: HOSTILE_ID_MIN, max: HOSTILE_ID_MIN + 24 }) },
  { weight: 1, arbitrary: fc.integer({ min: HOSTILE_ID_MIN, max: 0xffff_ffff }) },
  { weight: 1, arbitrary: fc.constant(0) },
);

const payload = fc.oneof(
  { weight: 8, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4096 }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: TUNNEL_MAX_DATA })
      .map((n) => new Uint8Array(n).fill(0x5a)),
  },
);

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.constantFrom("127.0.0.1", "localhost", "LOCALHOST", "::1", "0.0.0.0", "../../etc"),
);

/**
 * One well-formed frame with hostile values (`targets`: "host:port" the receiver may know,
 * asked for in some opens). `opens`: include `open` frames (the agent accepts them; sent to
 * the server they end the link).
 */
export function hostileFrame(targets: string[], opens: boolean): fc.Arbitrary<Uint8Array> {
  const target = fc.oneof(
    fc.constantFrom(...targets).map((t) => {
      const colon = t.lastIndexOf(":");
      return { host: t.slice(0, colon), port: Number(t.slice(colon + 1)) };
    }),
    fc.record({ host: text, port: fc.integer({ min: 0, max: 65_535 }) }),
    fc.constant({ host: "", port: 0 }),
  );
  const frames = [
    fc.record({ id, window: u32 }).map((f) => encodeFrame({ type: "opened", ...f })),
    fc.record({ id, data: payload }).map((f) => encodeFrame({ type: "data", ...f })),
    id.map((i) => encodeFrame({ type: "end", id: i })),
    fc
      .record({ id, code: fc.integer({ min: 0, max: 0xffff }), reason: text })
      .map((f) => encodeFrame({ type: "reset", ...f })),
    fc.record({ id, increment: u32 }).map((f) => encodeFrame({ type: "window", ...f })),
    fc.uint8Array({ maxLength: 64 }).map((data) => encodeFrame({ type: "ping", data })),
    fc.uint8Array({ maxLength: 64 }).map((data) => encodeFrame({ type: "pong", data })),
    fc
      .record({ target: text, allow: fc.array(text, { maxLength: 4 }) })
      .map((hello) => encodeFrame({ type: "hello", hello: { version: "fuzz", ...hello } })),
  ];
  if (opens)
    frames.push(
      fc
        .record({ id, window: u32, target })
        .map((f) => encodeFrame({ type: "open", id: f.id, window: f.window, ...f.target })),
    );
  // Control messages that parse, about visits nobody asked about: each end's own kind only
  // (the other kind ends the link, like an `open` sent to the opener).
  frames.push(hostileControl(opens ? "server" : "agent").map(encodeControl));
  return fc.oneof(...frames);
}

const visitRef = fc
  .array(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz234567"), { minLength: 26, maxLength: 26 })
  .map((chars) => chars.join(""));

/** A well-formed control message as `from` sends it ("server": asks and notices). */
export function hostileControl(from: "server" | "agent"): fc.Arbitrary<TunnelControl> {
  if (from === "agent")
    return fc.oneof(
      fc
        .record({ visit: visitRef, accept: fc.boolean() })
        .map((m): TunnelControl => ({ t: "consent.answer", ...m })),
      visitRef.map((visit): TunnelControl => ({ t: "visit.end", visit })),
    );
  return fc.oneof(
    fc
      .record({
        visit: visitRef,
        visitor: fc.string({ maxLength: 200 }),
        account: fc.string({ maxLength: 40 }),
        kind: fc.constantFrom("web" as const, "screen" as const, "tcp" as const),
        viewOnly: fc.boolean(),
        timeoutMs: fc.integer({ min: 1, max: 600_000 }),
      })
      .map((m): TunnelControl => ({ t: "consent.ask", ...m })),
    visitRef.map((visit): TunnelControl => ({ t: "consent.cancel", visit })),
    visitRef.map((visit): TunnelControl => ({ t: "visit.ended", visit })),
  );
}

export function encodeControl(message: TunnelControl): Uint8Array {
  return encodeFrame({ type: "control", message });
}

/** A binary message that does not parse as a frame (truncated, oversized, unknown, garbage). */
export const malformedFrame: fc.Arbitrary<Uint8Array> = fc
  .oneof(
    // Shorter than the header.
    fc.uint8Array({ maxLength: 4 }),
    // Fixed-size frames of the wrong size.
    fc
      .record({
        type: fc.constantFrom(TUNNEL_FRAME.opened, TUNNEL_FRAME.window, TUNNEL_FRAME.end),
        size: fc.integer({ min: 0, max: 9 }),
      })
      .map(({ type, size }) => frameOf(type, new Uint8Array(size))),
    fc.integer({ min: 0, max: 5 }).map((size) => frameOf(TUNNEL_FRAME.open, new Uint8Array(size))),
    fc.integer({ min: 0, max: 1 }).map((size) => frameOf(TUNNEL_FRAME.reset, new Uint8Array(size))),
    // Oversized.
    fc
      .integer({ min: TUNNEL_MAX_DATA + 1, max: TUNNEL_MAX_DATA + 4096 })
      .map((n) => frameOf(TUNNEL_FRAME.data, new Uint8Array(n))),
    fc.integer({ min: 65, max: 300 }).map((n) => frameOf(TUNNEL_FRAME.ping, new Uint8Array(n))),
    // Unknown types.
    fc
      .record({
        type: fc.oneof(fc.constant(0), fc.integer({ min: 10, max: 255 })),
        body: fc.uint8Array({ maxLength: 64 }),
      })
      .map(({ type, body }) => frameOf(type, body)),
    // A hello that is not one.
    fc
      .oneof(fc.string(), fc.constant('{"target":5}'), fc.constant("[]"))
      .map((s) => frameOf(TUNNEL_FRAME.hello, new TextEncoder().encode(s))),
    // A control message that is not one: no JSON, an unknown kind, a bad visit, too long.
    fc
      .oneof(
        fc.string(),
        fc.constant('{"t":"consent.answer","visit":"x","accept":true}'),
        fc.constant('{"t":"shell","cmd":"reboot"}'),
        fc.constant(`{"t":"visit.end","visit":"${"a".repeat(26)}","pad":"${"x".repeat(5000)}"}`),
      )
      .map((s) => frameOf(TUNNEL_FRAME.control, new TextEncoder().encode(s))),
    // Anything.
    fc.uint8Array({ maxLength: 200 }),
  )
  .filter((bytes) => decodeFrame(bytes) === null);

function frameOf(type: number, body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(5 + body.byteLength);
  bytes[0] = type;
  new DataView(bytes.buffer).setUint32(1, HOSTILE_ID_MIN);
  bytes.set(body, 5);
  return bytes;
}
