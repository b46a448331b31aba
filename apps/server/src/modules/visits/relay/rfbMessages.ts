import type { ByteQueue } from "./bytes.ts";

/**
 * The viewer's RFB messages (RFC 6143 §7.5 and the extensions noVNC sends): how long the next
 * one is and whether it is input, read from its first bytes. Anything else is not followed:
 * an unknown type has no known length, so nothing after it could be.
 */

/** Client message types. */
export const RFB_CLIENT_MESSAGE = {
  setPixelFormat: 0,
  setEncodings: 2,
  framebufferUpdateRequest: 3,
  keyEvent: 4,
  pointerEvent: 5,
  clientCutText: 6,
  enableContinuousUpdates: 150,
  fence: 248,
  xvp: 250,
  setDesktopSize: 251,
  qemu: 255,
} as const;

/** The ExtendedMouseButtons pseudo-encoding: a PointerEvent with bit 7 set has one byte more. */
export const EXTENDED_MOUSE_BUTTONS = -316;

export type NextMessage =
  /** Not enough bytes yet to know. */
  | { kind: "more" }
  /** A whole message of `size` bytes (perhaps not all received yet). */
  | { kind: "message"; size: number; input: boolean; setEncodings?: true }
  /** ClientCutText: its 8-byte head, then `bytes` of text passed or dropped as they come. */
  | { kind: "cutText"; bytes: number }
  | { kind: "invalid"; reason: string };

const MORE: NextMessage = { kind: "more" };
const fixed = (size: number, input = false): NextMessage => ({ kind: "message", size, input });

/** The next message at the front of `q`. */
export function nextMessage(
  q: ByteQueue,
  options: { extendedMouse: boolean; maxCutText: number },
): NextMessage {
  const type = q.byte(0);
  if (type === null) return MORE;
  const M = RFB_CLIENT_MESSAGE;
  switch (type) {
    case M.setPixelFormat:
      return fixed(20);
    case M.setEncodings: {
      const count = q.uint16(2);
      if (count === null) return MORE;
      return { kind: "message", size: 4 + 4 * count, input: false, setEncodings: true };
    }
    case M.framebufferUpdateRequest:
      return fixed(10);
    case M.keyEvent:
      return fixed(8, true);
    case M.pointerEvent: {
      const mask = q.byte(1);
      if (mask === null) return MORE;
      return fixed(options.extendedMouse && mask & 0x80 ? 7 : 6, true);
    }
    case M.clientCutText: {
      const head = q.peek(8);
      if (!head) return MORE;
      // Extended clipboard: a negative length (two's complement) is the size of its payload.
      const bytes = Math.abs(head.readInt32BE(4));
      if (bytes > options.maxCutText)
        return {
          kind: "invalid",
          reason: `the viewer sent ${bytes} bytes of clipboard text (at most ${options.maxCutText})`,
        };
      return { kind: "cutText", bytes };
    }
    case M.enableContinuousUpdates:
      return fixed(10);
    case M.fence: {
      const length = q.byte(8);
      if (length === null) return MORE;
      if (length > 64) return { kind: "invalid", reason: "the viewer sent a fence above 64 bytes" };
      return fixed(9 + length);
    }
    case M.xvp:
      return fixed(4, true);
    case M.setDesktopSize: {
      const screens = q.byte(6);
      if (screens === null) return MORE;
      return fixed(8 + 16 * screens, true);
    }
    case M.qemu: {
      const subtype = q.byte(1);
      if (subtype === null) return MORE;
      // Only its extended key event (subtype 0) is followed; audio and others are not.
      if (subtype !== 0)
        return { kind: "invalid", reason: `the viewer sent QEMU message ${subtype}` };
      return fixed(12, true);
    }
    default:
      return { kind: "invalid", reason: `the viewer sent RFB message type ${type}` };
  }
}

/** Whether a SetEncodings message lists ExtendedMouseButtons. */
export function asksExtendedMouse(setEncodings: Buffer): boolean {
  for (let at = 4; at + 4 <= setEncodings.byteLength; at += 4)
    if (setEncodings.readInt32BE(at) === EXTENDED_MOUSE_BUTTONS) return true;
  return false;
}
