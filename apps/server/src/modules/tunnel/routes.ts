import { TUNNEL_PATH, TUNNEL_PROTOCOL, TUNNEL_PROTOCOL_NAME } from "@keyway/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../http/envelope.ts";
import { upgradeHead } from "../../http/upgradeHead.ts";
import type { TunnelDevice, TunnelHub } from "./service.ts";

/**
 * `GET /tunnel` (WebSocket): an agent's remote-access link. The device authenticates like on
 * MQTT, machine code + device secret, as `Authorization: Basic base64(code:secret)`; a wrong
 * pair is refused before the upgrade (HTTP 401). Current agents ask for
 * `Upgrade: keyway-tunnel/2` (TUNNEL_PROTOCOL: frames on the raw socket, no WebSocket);
 * another `keyway-tunnel/N` is refused with 426 naming the version spoken here, and a
 * WebSocket upgrade is an agent of version 1, still served.
 */
export function tunnelRoutes(
  app: FastifyInstance,
  deps: {
    hub: TunnelHub;
    authenticate: (code: string, secret: string) => Promise<TunnelDevice | null>;
  },
) {
  const devices = new WeakMap<FastifyRequest, TunnelDevice>();
  // As @fastify/websocket closes its sockets: the server's close would wait for these.
  app.addHook("preClose", (done) => {
    deps.hub.closeLinks();
    done();
  });
  app.get(
    TUNNEL_PATH,
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (request, reply) => {
        const upgrade = (request.headers.upgrade ?? "").trim().toLowerCase();
        const raw = upgrade.startsWith(`${TUNNEL_PROTOCOL_NAME}/`);
        const socket = request.raw.socket;
        if (raw && upgrade !== TUNNEL_PROTOCOL) {
          reply.hijack();
          const text = `This server speaks ${TUNNEL_PROTOCOL}, the agent ${upgrade.slice(0, 40)}: upgrade keyway-agent.\n`;
          socket.end(
            `HTTP/1.1 426 Upgrade Required\r\nUpgrade: ${TUNNEL_PROTOCOL}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
          );
          return;
        }
        const [code, secret] = basicCredentials(request.headers.authorization);
        const device = code && secret ? await deps.authenticate(code, secret) : null;
        if (!device) throw new AppError("DEVICE_AUTH_FAILED", null, 401);
        if (raw) {
          // From here the socket is the link's: no WebSocket, no Fastify reply.
          reply.hijack();
          if (socket.destroyed) return;
          socket.write(
            `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${TUNNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
          );
          deps.hub.acceptSocket(socket, device, upgradeHead(request.raw));
          return;
        }
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
