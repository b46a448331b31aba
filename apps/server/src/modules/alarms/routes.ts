import {
  alarmConfirmBody,
  alarmKanbanBody,
  alarmListBody,
  deviceAlarmsQuery,
  imageResetBody,
} from "@keyway/shared";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { AlarmService, AlarmViewer } from "./service.ts";

const viewerOf = (request: FastifyRequest): AlarmViewer => {
  const caller = callerOf(request);
  return { userId: caller.userId, role: caller.role };
};

/**
 * SPEC §7 "Alarms": a device's alarm list (page size 6) and confirming one alarm, the alarm
 * centre's list of every device in a context (`eid`), its statistics and the device reset.
 */
export function alarmRoutes(
  app: FastifyInstance,
  deps: { alarms: AlarmService; auth: preHandlerAsyncHookHandler },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["alarms"];

  r.get(
    "/api/v1/devices/alarms",
    {
      schema: {
        tags,
        summary: "A device's alarms, newest first, with what the caller may do with them",
        querystring: deviceAlarmsQuery,
      },
      preValidation: deps.auth,
    },
    async (request) => ok(await deps.alarms.list(viewerOf(request), request.query)),
  );

  r.put(
    "/api/v1/devices/alarms",
    {
      schema: {
        tags,
        summary: "Confirm one alarm (id; eid of the context, 0 personal)",
        body: alarmConfirmBody,
      },
      preValidation: deps.auth,
    },
    async (request) =>
      ok(await deps.alarms.confirm(viewerOf(request), request.body.eid, request.body.id)),
  );

  r.post(
    "/api/v1/devices/alarmList",
    {
      schema: {
        tags,
        summary: "Alarm centre: alarms of every device the caller sees in the context",
        body: alarmListBody,
      },
      preValidation: deps.auth,
    },
    async (request) => ok(await deps.alarms.list(viewerOf(request), request.body)),
  );

  r.post(
    "/api/v1/devices/alarmKanban",
    {
      schema: {
        tags,
        summary: "Alarm statistics: counts by level, by device and by day over a range",
        body: alarmKanbanBody,
      },
      preValidation: deps.auth,
    },
    async (request) => ok(await deps.alarms.kanban(viewerOf(request), request.body)),
  );

  r.put(
    "/api/v1/devices/imageReset",
    {
      schema: {
        tags,
        summary: "Reset a device's alarms: clear those still on and confirm the unconfirmed",
        body: imageResetBody,
      },
      preValidation: deps.auth,
    },
    async (request) =>
      ok(await deps.alarms.reset(viewerOf(request), request.body.eid, request.body.deviceCode)),
  );
}
