import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../http/envelope.ts";
import type { Gateway } from "./service.ts";

/** The broker hooks are hit for every device connection: generous, but bounded. */
const HOOK_LIMIT = { rateLimit: { max: 600, timeWindow: "1 minute" } };

const authBody = z.object({
  username: z.string().max(64).optional(),
  password: z.string().max(200).optional(),
  clientid: z.string().max(128).optional(),
});
const aclBody = z.object({
  username: z.string().max(64),
  topic: z.string().max(256),
  action: z.enum(["publish", "subscribe"]),
});

/**
 * MQTT over WebSocket on the HTTP port (embedded broker), and the HTTP hooks an external
 * broker (EMQX "HTTP authentication / authorization") calls to check devices. The hooks
 * answer EMQX's format: `{ "result": "allow" | "deny" }`, and only to the broker: it sends
 * the server's own broker login (MQTT_URL's user:password) as HTTP Basic; anyone else gets
 * 401 (EMQX then ignores the answer, i.e. denies).
 */
export function gatewayRoutes(app: FastifyInstance, deps: { gateway: Gateway }) {
  const { gateway } = deps;
  app.get("/mqtt", { websocket: true, schema: { hide: true } }, (socket) =>
    gateway.handleWebSocket(socket),
  );

  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["broker hooks"];
  const onlyTheBroker = async (request: { headers: { authorization?: string } }) => {
    if (!gateway.isHookCaller(request.headers.authorization))
      throw new AppError("NO_PERMISSION", null, 401);
  };
  r.post(
    "/api/internal/v1/mqtt/auth",
    {
      schema: { tags, summary: "Broker hook: may this device connect?", body: authBody },
      config: HOOK_LIMIT,
      onRequest: onlyTheBroker,
    },
    async (request) => {
      const b = request.body;
      // The server itself logs in to the broker and uses every device's topics.
      if (gateway.isServerLogin(b.username, b.password))
        return { result: "allow", is_superuser: true };
      const device = await gateway.ingest.authenticate(b.username, b.password);
      const allowed = device !== null && gateway.ingest.mayUseClientId(device, b.clientid);
      return { result: allowed ? "allow" : "deny", is_superuser: false };
    },
  );
  r.post(
    "/api/internal/v1/mqtt/acl",
    {
      schema: { tags, summary: "Broker hook: may this device use this topic?", body: aclBody },
      config: HOOK_LIMIT,
      onRequest: onlyTheBroker,
    },
    async (request) => {
      const b = request.body;
      if (b.username === gateway.serverUsername) return { result: "allow" };
      const device = await gateway.ingest.identify(b.username);
      const allowed =
        device !== null &&
        (b.action === "publish"
          ? gateway.ingest.mayPublish(device, b.topic) !== null
          : gateway.ingest.maySubscribe(device, b.topic));
      return { result: allowed ? "allow" : "deny" };
    },
  );
}
