import type { FastifyInstance } from "fastify";
import { createWebSocketStream } from "ws";
import type { Gateway } from "./service.ts";

/** MQTT over WebSocket on the HTTP port, for devices behind proxies that only pass HTTPS. */
export function gatewayRoutes(app: FastifyInstance, deps: { gateway: Gateway }) {
  app.get("/mqtt", { websocket: true, schema: { hide: true } }, (socket) => {
    deps.gateway.handleStream(createWebSocketStream(socket));
  });
}
