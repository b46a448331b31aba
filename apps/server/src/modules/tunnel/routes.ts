import { TUNNEL_PATH } from "@keyway/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../http/envelope.ts";
import type { TunnelDevice, TunnelHub } from "./service.ts";

/**
 * `GET /tunnel` (WebSocket): an agent's remote-access link. The device authenticates like on
 * MQTT, machine code + device secret, as `Authorization: Basic base64(code:secret)`; a wrong
 * pair is refused before the upgrade (HTTP 401).
 */
export function tunnelRoutes(
  app: FastifyInstance,
  deps: {
    hub: TunnelHub;
    authenticate: (code: string, secret: string) => Promise<TunnelDevice | null>;
  },
) {
  const devices = new WeakMap<FastifyRequest, TunnelDevice>();
  app.get(
    TUNNEL_PATH,
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (request) => {
        const [code, secret] = basicCredentials(request.headers.authorization);
        const device = code && secret ? await deps.authenticate(code, secret) : null;
        if (!device) throw new AppError("DEVICE_AUTH_FAILED", null, 401);
        devices.set(request, device);
      },
    },
    (socket, request) => {
      const device = devices.get(request);
      if (!device) return socket.close(1008, "unauthenticated");
      deps.hub.accept(socket, device);
    },
  );
}

function basicCredentials(header: string | undefined): [string?, string?] {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? "");
  if (!match) return [];
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return [];
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
