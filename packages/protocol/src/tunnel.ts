import * as z from "zod/mini";
import { text } from "./schemaText.ts";

/**
 * The remote-access tunnel (ARCHITECTURE "Remote access", docs/architecture/remote-access.md): one
 * outbound WebSocket per agent at `/tunnel`, carrying many byte streams. Every WebSocket
 * message is one binary frame:
 *
 *   byte 0      frame type (TUNNEL_FRAME)
 *   bytes 1-4   stream id, unsigned 32-bit big-endian (0 for link frames: ping, pong, hello)
 *   bytes 5-    payload, by type:
 *     open      u32 receive window, u16 port, UTF-8 host ("" and 0: the agent's default target)
 *     opened    u32 receive window
 *     data      the bytes (at most TUNNEL_MAX_DATA)
 *     end       nothing: the sender will send no more data on this stream (half-close)
 *     reset     u16 reason (TUNNEL_RESET), UTF-8 text: the stream is gone both ways
 *     window    u32 increment: the receiver consumed that many more bytes
 *     ping/pong 0-64 opaque bytes, echoed
 *     hello     UTF-8 JSON (agentHello), the agent's first frame
 *     control   UTF-8 JSON (tunnelControl), stream 0: on-site consent and visits ended on
 *               site. Sent to an agent only when its hello lists the "control" feature.
 *
 * Flow control is per stream and per direction, by credit: a side may have at most the
 * peer's announced window of DATA bytes unacknowledged; the peer returns credit with
 * `window` frames as its consumer takes the bytes. Nobody buffers more than a window per
 * stream, whatever the speed of the far end. Only the server opens streams.
 *
 * A receiver trusts none of this. Data before `opened` or beyond the window, credit beyond
 * TUNNEL_MAX_WINDOW (or the first window announced, when larger) and an `open` for a live id
 * reset that stream (`protocol`); frames for unknown streams are dropped; a frame that does
 * not parse, a text message, an `open` sent to the server, or replies left unread end the
 * link (TUNNEL_CLOSE.protocol).
 *
 * Browser-safe (Uint8Array, DataView): the Node stream layer is `@keyway/protocol/mux`.
 */

export const TUNNEL_PATH = "/tunnel";

/**
 * The carrier of current agents: `GET /tunnel` with `Upgrade: keyway-tunnel/2` (HTTP/1.1, no
 * WebSocket), after which the raw socket (TLS under wss/https) carries length-prefixed frames
 * (`tunnelSocket.ts`): `u32 length | frame`. No per-byte masking, and DATA payloads are
 * written and read in place. The number is the wire version: a server answers any other
 * `keyway-tunnel/N` with 426 and the version it speaks. Agents of version 1 (WebSocket,
 * one frame per binary message) are still accepted on the same path.
 */
export const TUNNEL_PROTOCOL = "keyway-tunnel/2";
export const TUNNEL_PROTOCOL_NAME = "keyway-tunnel";

/** Frame types. */
export const TUNNEL_FRAME = {
  open: 1,
  opened: 2,
  data: 3,
  end: 4,
  reset: 5,
  window: 6,
  ping: 7,
  pong: 8,
  hello: 9,
  /**
   * Socket carrier only (stream 0): u16 code (TUNNEL_CLOSE), UTF-8 reason; the sender closes
   * the link. A WebSocket link uses WebSocket close frames instead.
   */
  close: 10,
  /** Stream 0: UTF-8 JSON (tunnelControl), both ways; only to agents announcing "control". */
  control: 11,
} as const;

/** Reasons of a `reset`. */
export const TUNNEL_RESET = {
  /** The target is not on the agent's allow-list. */
  refused: 1,
  /** The agent could not connect to the target (refused, unreachable, no such host). */
  unreachable: 2,
  /** Opening took too long. */
  timeout: 3,
  /** One side gave up on the stream (its consumer went away). */
  cancelled: 4,
  /** The visitor's right ended (revoked, expired, cloud closed, ended by the owner). */
  rightsEnded: 5,
  /**
   * The peer broke the protocol on this stream: data before `opened` or beyond the window,
   * credit beyond a window, an `open` for its id while it lives.
   */
  protocol: 6,
  /** Too many open streams on this link. */
  tooMany: 7,
  /** The link is closing. */
  goingAway: 8,
} as const;
export type TunnelResetCode = (typeof TUNNEL_RESET)[keyof typeof TUNNEL_RESET];

/**
 * Initial receive window per stream and direction. A receiver whose consumer keeps up doubles
 * it (up to TUNNEL_MAX_WINDOW, all streams of a link within TUNNEL_LINK_BUDGET): a transfer
 * over a long or busy path needs a window of its rate × round trip, a slow reader only what
 * it holds.
 */
export const TUNNEL_WINDOW = 256 * 1024;
export const TUNNEL_MAX_WINDOW = 4 * 1024 * 1024;
export const TUNNEL_LINK_BUDGET = 64 * 1024 * 1024;
/** Largest DATA payload in one frame. */
export const TUNNEL_MAX_DATA = 64 * 1024;
/** Streams one link may hold at once. */
export const TUNNEL_MAX_STREAMS = 2048;
/** The agent pings this often; a link silent for three times as long is dead. */
export const TUNNEL_PING_MS = 15_000;

/** WebSocket close codes of `/tunnel` (4000-4999 are the application's). */
export const TUNNEL_CLOSE = {
  /** Another connection of the same device took over. */
  replaced: 4409,
  /** Nothing heard for three ping periods. */
  silent: 4408,
  /** A frame that does not parse. */
  protocol: 4400,
} as const;

/** What the agent tells about itself when its tunnel comes up. */
export const agentHello = z.object({
  version: z._default(text(64), ""),
  /** The target of a visit that names none: "host:port". */
  target: text(300),
  /** Every target the agent will connect to ("host:port"), the default included. */
  allow: z.array(text(300)).check(z.maxLength(1000)),
  /** The device's screen (VNC, RFB) when the agent offers it: "host:port", also on `allow`. */
  vnc: z.optional(text(300)),
  /** What the agent understands beyond streams: "control" (TUNNEL_FRAME.control messages). */
  features: z.optional(z.array(text(32)).check(z.maxLength(32))),
});
export type AgentHello = z.infer<typeof agentHello>;

/** The hello feature of agents that take control messages (on-site consent). */
export const AGENT_FEATURE_CONTROL = "control";

/** How long the person at the machine has to accept a visit (no answer is a refusal). */
export const CONSENT_TIMEOUT_MS = 30_000;

const visitRef = z.string().check(z.regex(/^[a-z2-7]{26}$/));

/**
 * Control messages on stream 0 (docs/architecture/remote-access.md "On-site consent").
 * Server → agent: `consent.ask` (someone asks to start a visit; answer within timeout_ms),
 * `consent.cancel` (the question is void: timed out or the visitor gave up), `visit.ended`
 * (an accepted visit is over, for whatever reason). Agent → server: `consent.answer`,
 * `visit.end` (the person at the machine ends an accepted visit).
 */
export const tunnelControl = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("consent.ask"),
    visit: visitRef,
    /** The visitor as the device's owner knows them: name and masked account. */
    visitor: text(200),
    account: z._default(text(200), ""),
    /** "web" (the device's web UI), "screen" (VNC) or "tcp" (a TCP forward). */
    kind: z.enum(["web", "screen", "tcp"]),
    viewOnly: z.boolean(),
    timeoutMs: z.int().check(z.gte(1), z.lte(600_000)),
  }),
  z.object({ t: z.literal("consent.cancel"), visit: visitRef }),
  z.object({ t: z.literal("consent.answer"), visit: visitRef, accept: z.boolean() }),
  z.object({ t: z.literal("visit.ended"), visit: visitRef }),
  z.object({ t: z.literal("visit.end"), visit: visitRef }),
]);
export type TunnelControl = z.infer<typeof tunnelControl>;

export type TunnelFrame =
  | { type: "open"; id: number; window: number; host: string; port: number }
  | { type: "opened"; id: number; window: number }
  | { type: "data"; id: number; data: Uint8Array }
  | { type: "end"; id: number }
  | { type: "reset"; id: number; code: number; reason: string }
  | { type: "window"; id: number; increment: number }
  | { type: "ping"; data: Uint8Array }
  | { type: "pong"; data: Uint8Array }
  | { type: "hello"; hello: AgentHello }
  | { type: "control"; message: TunnelControl };

const HEADER = 5;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function frame(type: number, id: number, payloadLength: number): [Uint8Array, DataView] {
  const bytes = new Uint8Array(HEADER + payloadLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint8(0, type);
  view.setUint32(1, id);
  return [bytes, view];
}

/** A DATA frame; the hot path, so it skips the union. */
export function encodeData(id: number, data: Uint8Array): Uint8Array {
  const [bytes] = frame(TUNNEL_FRAME.data, id, data.byteLength);
  bytes.set(data, HEADER);
  return bytes;
}

export function encodeFrame(f: TunnelFrame): Uint8Array {
  switch (f.type) {
    case "open": {
      const host = encoder.encode(f.host);
      const [bytes, view] = frame(TUNNEL_FRAME.open, f.id, 6 + host.byteLength);
      view.setUint32(HEADER, f.window);
      view.setUint16(HEADER + 4, f.port);
      bytes.set(host, HEADER + 6);
      return bytes;
    }
    case "opened": {
      const [bytes, view] = frame(TUNNEL_FRAME.opened, f.id, 4);
      view.setUint32(HEADER, f.window);
      return bytes;
    }
    case "data":
      return encodeData(f.id, f.data);
    case "end":
      return frame(TUNNEL_FRAME.end, f.id, 0)[0];
    case "reset": {
      const reason = encoder.encode(f.reason.slice(0, 200));
      const [bytes, view] = frame(TUNNEL_FRAME.reset, f.id, 2 + reason.byteLength);
      view.setUint16(HEADER, f.code);
      bytes.set(reason, HEADER + 2);
      return bytes;
    }
    case "window": {
      const [bytes, view] = frame(TUNNEL_FRAME.window, f.id, 4);
      view.setUint32(HEADER, f.increment);
      return bytes;
    }
    case "ping":
    case "pong": {
      const data = f.data.subarray(0, 64);
      const [bytes] = frame(TUNNEL_FRAME[f.type], 0, data.byteLength);
      bytes.set(data, HEADER);
      return bytes;
    }
    case "hello":
    case "control": {
      const json = encoder.encode(JSON.stringify(f.type === "hello" ? f.hello : f.message));
      const [bytes] = frame(TUNNEL_FRAME[f.type], 0, json.byteLength);
      bytes.set(json, HEADER);
      return bytes;
    }
  }
}

/** Parses one frame; null when it is malformed (the link should then be closed). */
export function decodeFrame(bytes: Uint8Array): TunnelFrame | null {
  if (bytes.byteLength < HEADER) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = view.getUint8(0);
  const id = view.getUint32(1);
  const payload = bytes.subarray(HEADER);
  const size = payload.byteLength;
  switch (type) {
    case TUNNEL_FRAME.data:
      if (size > TUNNEL_MAX_DATA) return null;
      return { type: "data", id, data: payload };
    case TUNNEL_FRAME.open:
      if (size < 6) return null;
      return {
        type: "open",
        id,
        window: view.getUint32(HEADER),
        port: view.getUint16(HEADER + 4),
        host: decoder.decode(payload.subarray(6)),
      };
    case TUNNEL_FRAME.opened:
      if (size !== 4) return null;
      return { type: "opened", id, window: view.getUint32(HEADER) };
    case TUNNEL_FRAME.end:
      return size === 0 ? { type: "end", id } : null;
    case TUNNEL_FRAME.reset:
      if (size < 2) return null;
      return {
        type: "reset",
        id,
        code: view.getUint16(HEADER),
        // As much as a sender may put there (200 characters): a peer's essay is not kept.
        reason: decoder.decode(payload.subarray(2, 2 + 800)).slice(0, 200),
      };
    case TUNNEL_FRAME.window:
      if (size !== 4) return null;
      return { type: "window", id, increment: view.getUint32(HEADER) };
    case TUNNEL_FRAME.ping:
    case TUNNEL_FRAME.pong:
      if (size > 64) return null;
      return { type: type === TUNNEL_FRAME.ping ? "ping" : "pong", data: payload };
    case TUNNEL_FRAME.hello: {
      try {
        const parsed = agentHello.safeParse(JSON.parse(decoder.decode(payload)));
        return parsed.success ? { type: "hello", hello: parsed.data } : null;
      } catch {
        return null;
      }
    }
    case TUNNEL_FRAME.control: {
      if (size > 4096) return null;
      try {
        const parsed = tunnelControl.safeParse(JSON.parse(decoder.decode(payload)));
        return parsed.success ? { type: "control", message: parsed.data } : null;
      } catch {
        return null;
      }
    }
    default:
      return null;
  }
}

/** A target on the device's LAN. */
export interface TunnelTarget {
  host: string;
  port: number;
}

/**
 * "host:port", "[v6]:port" → target; null when malformed. Host names are compared in lower
 * case, so allow-lists match whatever case the user typed.
 */
export function parseTarget(text: string): TunnelTarget | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(text.trim());
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return null;
  const host = (match[1] ?? match[2]).toLowerCase();
  if (host.length > 253) return null;
  return { host, port };
}

export function formatTarget(target: TunnelTarget): string {
  return target.host.includes(":")
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`;
}
