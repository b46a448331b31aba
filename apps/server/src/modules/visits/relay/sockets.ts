import http, { type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { HW, type HwKey } from "@keyway/shared";
import { createWebSocketStream, type WebSocket } from "ws";
import { AppError } from "../../../http/envelope.ts";
import type { Actor } from "../../access/service.ts";
import { bridgeWebSocket, forwardUpgrade } from "../forward.ts";
import type { VisitService, VisitSession } from "../service.ts";
import { cutStreamError } from "../streams.ts";
import type { RelayHeaders } from "./headers.ts";
import type { Route } from "./route.ts";

/** WebSocket close codes of `/visit-tcp` (4000-4999 are the application's). */
export const TCP_CLOSE: Partial<Record<HwKey, number>> = {
  VISIT_NOT_FOUND: 4404,
  VISIT_ENDED: 4410,
  DEVICE_OFFLINE: 4502,
  TARGET_NOT_ALLOWED: 4503,
  TARGET_UNREACHABLE: 4504,
};

/**
 * Byte pipes through the tunnel: the device page's WebSocket upgrades, and `/visit-tcp`'s
 * raw TCP streams for `keyway-agent forward`.
 */
export function createSocketRelay(deps: {
  visits: VisitService;
  headers: RelayHeaders;
  sessionFor: (request: IncomingMessage, r: Route) => Promise<VisitSession>;
  elsewhere: (request: IncomingMessage, r: Route) => Promise<string | null>;
  asAppError: (error: unknown) => AppError;
}) {
  const { visits, sessionFor, elsewhere, asAppError } = deps;
  const { requestHeaders } = deps.headers;

  async function readonlyWebsocket(session: VisitSession): Promise<boolean> {
    return (await visits.settings.rules(session.deviceId)).readonlyWebsocket;
  }

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, r: Route) {
    socket.on("error", () => socket.destroy());
    try {
      const node = await elsewhere(request, r);
      if (node) return forwardUpgrade(request, socket, head, node);
      const session = await sessionFor(request, r);
      // A read-only visitor's page may not open WebSockets (they carry commands as well as
      // readings) unless the device's owner allows it.
      if (session.viewOnly && !(await readonlyWebsocket(session)))
        throw new AppError("VIEW_ONLY", null, 403);
      const stream = await visits.openStream(session, null);
      visits.hold(session, socket);
      // A visitor made read-only meanwhile loses it the same way, at the next check.
      const watcher = (viewOnly: boolean) => {
        if (!viewOnly) return;
        readonlyWebsocket(session).then(
          (allowed) => allowed || socket.destroy(),
          () => socket.destroy(),
        );
      };
      session.levelWatchers.add(watcher);
      socket.once("close", () => session.levelWatchers.delete(watcher));
      const headers = requestHeaders(request, session, r, true);
      let headText = `${request.method ?? "GET"} ${r.path} HTTP/1.1\r\n`;
      for (let i = 0; i < headers.length; i += 2)
        headText += `${headers[i]}: ${headers[i + 1]}\r\n`;
      // Header bytes are latin1 to Node's parser: they go on as they came.
      stream.write(`${headText}\r\n`, "latin1");
      if (head.length) stream.write(head);
      // From here on bytes both ways: the device's handshake answer and the frames.
      (socket as Socket).setNoDelay?.(true);
      socket.pipe(stream);
      stream.pipe(socket);
      stream.on("error", () => socket.destroy());
      stream.on("close", () => {
        if (stream.closeError) socket.destroy();
      });
      socket.on("close", () => stream.destroy());
    } catch (error) {
      const e = asAppError(error);
      const status = e.httpStatus >= 400 ? e.httpStatus : 403;
      const code = HW[e.key].code;
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? "Refused"}\r\nConnection: close\r\nX-Keyway-Hwcode: ${code}\r\nContent-Length: 0\r\n\r\n`,
      );
    }
  }

  /**
   * `/visit-tcp/<id>?target=host:port`: one raw TCP stream to the target per WebSocket, for
   * the visit's own user and terminal (cloudtoken). Refusals close with TCP_CLOSE codes and
   * the hwcode in the reason.
   */
  function tcp(
    socket: WebSocket,
    visitId: string,
    target: string | undefined,
    caller: { actor: Actor; token: string; relayed: boolean },
  ) {
    const { actor } = caller;
    // Nothing is read until it is known where the device's tunnel is.
    socket.pause();
    (caller.relayed ? Promise.resolve(null) : visits.nodeOf(visitId)).then(
      (node) => {
        if (!node) return tcpHere(socket, visitId, target, actor);
        const query = target ? `?target=${encodeURIComponent(target)}` : "";
        bridgeWebSocket(socket, node, `/visit-tcp/${visitId}${query}`, caller.token);
      },
      () => tcpHere(socket, visitId, target, actor),
    );
  }

  function tcpHere(socket: WebSocket, visitId: string, target: string | undefined, actor: Actor) {
    // Made at once: bytes the client sends while the stream opens wait here (bounded: the
    // WebSocket is paused when this buffer fills).
    const local = createWebSocketStream(socket);
    socket.resume();
    local.on("error", () => {});
    const closeWith = (error: unknown) => {
      const e = asAppError(error);
      const code = TCP_CLOSE[e.key] ?? 4403;
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
        socket.close(code, `${HW[e.key].code} ${HW[e.key].en}`.slice(0, 120));
    };
    (async () => {
      const session = await visits.byCaller(visitId, actor);
      // Raw bytes cannot be held to reading: no TCP forward for a read-only visitor.
      if (session.viewOnly) throw new AppError("VIEW_ONLY", null, 403);
      const stream = await visits.openStream(session, target ?? session.target);
      visits.hold(session, {
        destroy: () => closeWith(new AppError("VISIT_ENDED", null, 410)),
        once: (_event: "close", f: () => void) => socket.once("close", f),
      });
      // …and one made read-only meanwhile loses it at the next check.
      const watcher = (viewOnly: boolean) => {
        if (viewOnly) closeWith(new AppError("VIEW_ONLY", null, 403));
      };
      session.levelWatchers.add(watcher);
      socket.once("close", () => session.levelWatchers.delete(watcher));
      if (socket.readyState !== socket.OPEN) return stream.destroy();
      stream.pipe(local);
      local.pipe(stream);
      stream.on("close", () => {
        const error = stream.closeError;
        if (!error) return;
        closeWith(cutStreamError(error));
      });
      socket.once("close", () => stream.destroy());
    })().catch(closeWith);
  }

  return { upgrade, tcp };
}
