import { deviceAlarmsQuery } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { AlarmService } from "./service.ts";

/** SPEC §7 "Alarms": a device's alarm list (page size 6). */
export function alarmRoutes(
  app: FastifyInstance,
  deps: { alarms: AlarmService; auth: preHandlerAsyncHookHandler },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/v1/devices/alarms",
    {
      schema: {
        tags: ["alarms"],
        summary: "A device's alarms, newest first",
        querystring: deviceAlarmsQuery,
      },
      preValidation: deps.auth,
    },
    async (request) => {
      const q = request.query;
      return ok(
        await deps.alarms.listForDevice(callerOf(request).userId, {
          code: q.deviceCode,
          page: q.page,
          pageSize: q.pageSize,
        }),
      );
    },
  );
}
