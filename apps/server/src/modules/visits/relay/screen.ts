import type { TunnelStream } from "@keyway/protocol/mux";
import { HW, type HwKey } from "@keyway/shared";
import type { WebSocket } from "ws";
import type { AppError } from "../../../http/envelope.ts";
import { limitMessages } from "../../../http/websocketLimits.ts";
import { bridgeWebSocket } from "../forward.ts";
import type { VisitService, VisitSession } from "../service.ts";
import { cutStreamError } from "../streams.ts";
import { RFB_MAX_CUT_TEXT, RfbFilter } from "./rfb.ts";
import { TICKET_PARAM } from "./route.ts";

/**
 * Close codes of `/visit-screen` (4000-4999 are the application's); the reason is
 * "<hwcode> <English text>", or "rfb: <what>" for a session the relay could not follow.
 */
export const SCREEN_CLOSE = {
  rfb: 4400,
  refused: 4403,
  notFound: 4404,
  ended: 4410,
  offline: 4502,
  notAllowed: 4503,
  unreachable: 4504,
} as const;

const CLOSE_OF: Partial<Record<HwKey, number>> = {
  VISIT_NOT_FOUND: SCREEN_CLOSE.notFound,
  VISIT_ENDED: SCREEN_CLOSE.ended,
  DEVICE_OFFLINE: SCREEN_CLOSE.offline,
  TARGET_NOT_ALLOWED: SCREEN_CLOSE.notAllowed,
  TARGET_UNREACHABLE: SCREEN_CLOSE.unreachable,
};

/**
 * The largest message a viewer's socket takes (decision 227): nothing is read before its
 * ticket is claimed, so a refused stranger (whose socket is read again only to take its close
 * answer) gets 4 KiB; a claimed viewer, the largest clipboard text RFB passes and room for the
 * small input messages noVNC sends in the same flush. A socket carried to another node keeps
 * the unclaimed bound until that node first speaks (decision 230).
 */
export const SCREEN_MESSAGE_MAX = { unclaimed: 4 * 1024, claimed: RFB_MAX_CUT_TEXT + 64 * 1024 };

/** Bytes queued for a slow viewer before the device's stream is paused. */
const HIGH_WATER = 1024 * 1024;

/**
 * The screen relay: a viewer's WebSocket (noVNC in Keyway's page) carried to the agent's VNC
 * server on a tunnel stream, through the RFB filter (view only enforced here, not in the
 * viewer), with backpressure both ways, the visit's rights checks and revocation, byte counts
 * and the activity record (input passed and dropped).
 */
export function createScreenRelay(deps: {
  visits: VisitService;
  asAppError: (error: unknown) => AppError;
}) {
  const { visits, asAppError } = deps;

  function screen(socket: WebSocket, visitId: string, ticket: string, relayed: boolean) {
    // Nothing is read until the visit and its stream are there.
    socket.pause();
    limitMessages(socket, SCREEN_MESSAGE_MAX.unclaimed);
    (relayed ? Promise.resolve(null) : visits.nodeOf(visitId)).then(
      (node) => {
        if (!node) return screenHere(socket, visitId, ticket);
        // The ticket is claimed on the node that holds the device's tunnel. That node sends
        // nothing before it has claimed it and piped the device's stream (RFB's server speaks
        // first), so the viewer keeps the unclaimed bound until then (decision 230).
        const query = `?${TICKET_PARAM}=${encodeURIComponent(ticket)}`;
        bridgeWebSocket(socket, node, `/visit-screen/${visitId}${query}`, null, () =>
          limitMessages(socket, SCREEN_MESSAGE_MAX.claimed),
        );
      },
      () => screenHere(socket, visitId, ticket),
    );
  }

  function closeWith(socket: WebSocket, code: number, reason: string) {
    if (socket.readyState !== socket.OPEN && socket.readyState !== socket.CONNECTING) return;
    // A paused socket would never read the viewer's answering close frame (and would hold the
    // connection for ws's 30 s close timeout).
    socket.resume();
    // At most 123 bytes of reason fit in a close frame.
    socket.close(code, Buffer.from(reason).subarray(0, 120).toString());
  }

  function refuse(socket: WebSocket, error: unknown) {
    const e = asAppError(error);
    closeWith(socket, CLOSE_OF[e.key] ?? SCREEN_CLOSE.refused, `${HW[e.key].code} ${HW[e.key].en}`);
  }

  function screenHere(socket: WebSocket, visitId: string, ticket: string) {
    (async () => {
      const { session } = await visits.claim(visitId, ticket, true);
      const stream = await visits.openStream(session, session.target);
      if (socket.readyState !== socket.OPEN) return stream.destroy();
      pipe(socket, session, stream);
    })().catch((error) => refuse(socket, error));
  }

  function pipe(socket: WebSocket, session: VisitSession, stream: TunnelStream) {
    const record = visits.activity.screenOpen({
      visitId: session.id,
      deviceId: session.deviceId,
      viewOnly: session.viewOnly,
    });
    // The visit ending (revoked, expired, ended by the owner) closes the viewer at once.
    visits.hold(session, {
      destroy: () =>
        closeWith(socket, SCREEN_CLOSE.ended, `${HW.VISIT_ENDED.code} ${HW.VISIT_ENDED.en}`),
      once: (_event: "close", f: () => void) => socket.once("close", f),
    });

    let queued = 0;
    const filter = new RfbFilter(() => session.viewOnly, {
      toServer: (bytes) => {
        if (!stream.write(bytes)) socket.pause();
      },
      toClient: (bytes) => {
        queued += bytes.byteLength;
        if (queued > HIGH_WATER) stream.pause();
        socket.send(bytes, { binary: true }, () => {
          queued -= bytes.byteLength;
          if (queued <= HIGH_WATER / 2 && stream.isPaused()) stream.resume();
        });
      },
      fail: (reason) => {
        closeWith(socket, SCREEN_CLOSE.rfb, `rfb: ${reason}`);
        stream.destroy();
      },
    });
    stream.on("drain", () => socket.resume());
    stream.on("data", (chunk: Buffer) => filter.fromServer(chunk));
    limitMessages(socket, SCREEN_MESSAGE_MAX.claimed);
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      // RFB is bytes: a text message is not something noVNC sends.
      if (!isBinary) {
        closeWith(socket, SCREEN_CLOSE.rfb, "rfb: a text message (RFB goes in binary ones)");
        stream.destroy();
        return;
      }
      visits.touch(session);
      filter.fromClient(data);
    });
    stream.on("end", () => closeWith(socket, 1000, "the VNC server closed the session"));
    stream.on("close", () => {
      const error = stream.closeError;
      if (!error) return closeWith(socket, 1000, "the VNC server closed the session");
      refuse(socket, cutStreamError(error));
    });
    socket.once("close", () => {
      stream.destroy();
      record.close({
        bytesIn: stream.bytesIn,
        bytesOut: stream.bytesOut,
        inputEvents: filter.inputEvents,
        droppedEvents: filter.droppedEvents,
      });
    });
    socket.resume();
  }

  return { screen };
}
