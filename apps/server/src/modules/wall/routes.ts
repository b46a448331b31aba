import { wallBody } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { WallService } from "./service.ts";

/** The TV-box device wall: the context's devices with state and alarms in one answer. */
export function wallRoutes(
  app: FastifyInstance,
  deps: { wall: WallService; auth: preHandlerAsyncHookHandler },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    "/api/v1/devices/wall",
    {
      schema: {
        tags: ["devices"],
        summary:
          "TV-box device wall: each device of the context (eid, 0 personal) with online state, unconfirmed alarms and the newest alarm",
        body: wallBody,
      },
      preValidation: deps.auth,
    },
    async (request) => {
      const caller = callerOf(request);
      return ok(
        await deps.wall.wall({ userId: caller.userId, role: caller.role }, request.body.eid),
      );
    },
  );
}
