import type { WebSocket } from "ws";

/**
 * Sets the largest message one WebSocket takes from now on. ws holds a whole message before
 * anyone reads it, and has a maxPayload per server only (app.ts: 2 MiB on every route); its
 * receiver checks `_maxPayload` at each frame's header, before the payload, which this sets.
 * gateway.test.ts ("cuts off a hostile party…") fails if a ws release moves it.
 */
export function limitMessages(socket: WebSocket, max: number) {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (typeof receiver?._maxPayload !== "number") throw new Error("ws: no receiver to limit");
  receiver._maxPayload = max;
}
