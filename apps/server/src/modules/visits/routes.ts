import { API, targetField, visitActivityCsvQuery, visitIdField } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type Caller, caller } from "../../http/auth.ts";
import { requestLang } from "../../http/lang.ts";
import type { Serve } from "../../http/routes.ts";
import { RELAYED_HEADER } from "./forward.ts";
import type { createRelay } from "./relay.ts";
import type { VisitService } from "./service.ts";

/**
 * Remote access calls (SPEC §7 getValidVisitUrl, enterprises/validVisitUrl, eapi
 * machine/getVisitUrl) and the visit log (packages/shared/src/contract/visits.ts).
 */
export function visitRoutes(
  serve: Serve,
  deps: {
    visits: VisitService;
    /** Refuses a device the caller does not see in that enterprise. */
    enterpriseDevice: (caller: Caller, eid: number, deviceId: number) => Promise<unknown>;
    /** Refuses a project machine's visit when its project does not allow it. */
    projectVisit: (caller: Caller, deviceId: number, projectId?: number) => Promise<unknown>;
  },
) {
  const { visits } = deps;
  const v = API.visits;
  serve(v.getValidVisitUrl, ({ caller, input }) =>
    visits.issue(caller, input.machineID, { target: input.target, kind: input.kind }),
  );
  serve(v.validVisitUrl, async ({ caller, input }) => {
    await deps.enterpriseDevice(caller, input.eid, input.machineId);
    return visits.issue(caller, input.machineId, { target: input.target, kind: input.kind });
  });
  // A project machine is reached through its project: only its users, only while its
  // enable_get_visit_url is on, with or without the project id (projects.checkVisit); the
  // visit itself still needs the caller's own right on the device (visits.issue).
  serve(v.getVisitUrl, async ({ caller, input }) => {
    const deviceId = (input.machineID ?? input.machineId) as number;
    await deps.projectVisit(caller, deviceId, input.id);
    return visits.issue(caller, deviceId, { target: input.target, kind: input.kind });
  });
  serve(v.list, ({ caller, input }) =>
    visits.list(caller, input.deviceId, input.page, input.pageSize),
  );
  serve(v.end, ({ caller, input }) => visits.endByOwner(caller, input.visitId));
  serve(v.activity, ({ caller, input }) => visits.activityList(caller, input));
  serve(v.remoteSettings, ({ caller, input }) => visits.settings.get(caller, input.deviceId));
  serve(v.setRemoteSettings, ({ caller, input }) => visits.settings.set(caller, input));
}

/** The TCP forward endpoint (keyway-agent forward): a WebSocket, so outside the contract. */
export function visitTcpRoutes(
  app: FastifyInstance,
  deps: { relay: ReturnType<typeof createRelay>; auth: preHandlerAsyncHookHandler },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/visit-tcp/:visitId",
    {
      websocket: true,
      schema: {
        tags: ["visits"],
        summary:
          "WebSocket: one raw TCP stream to a target through the visit (keyway-agent forward)",
        params: z.object({ visitId: visitIdField }),
        querystring: z.object({ target: targetField.optional() }),
      },
      preValidation: deps.auth,
    },
    (socket, request) => {
      const { visitId } = request.params as { visitId: string };
      const { target } = request.query as { target?: string };
      const { userId, terminalId, token } = caller(request);
      deps.relay.tcp(socket, visitId, target, {
        actor: { userId, terminalId },
        token,
        relayed: Boolean(request.headers[RELAYED_HEADER]),
      });
    },
  );
}

/**
 * The screen viewer's WebSocket (`/visit-screen/<id>?kw_ticket=T`): opened by Keyway's own
 * page (the origin check applies), where no cloudtoken header can go; the visit's one-time
 * ticket is the credential. RFB bytes both ways (noVNC), view only enforced by the relay.
 */
export function visitScreenRoutes(
  app: FastifyInstance,
  deps: { relay: ReturnType<typeof createRelay> },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/visit-screen/:visitId",
    {
      websocket: true,
      schema: {
        tags: ["visits"],
        summary: "WebSocket: the device's screen (RFB, VNC) for a screen visit's viewer",
        params: z.object({ visitId: visitIdField }),
        querystring: z.object({ kw_ticket: z.string().trim().max(100).default("") }),
      },
    },
    (socket, request) => {
      const { visitId } = request.params as { visitId: string };
      const { kw_ticket: ticket } = request.query as { kw_ticket: string };
      deps.relay.screen(socket, visitId, ticket, Boolean(request.headers[RELAYED_HEADER]));
    },
  );
}

/**
 * The activity CSV (GET /api/device/v1/visits/activity.csv): a file, not an envelope, fetched
 * by the web app with its cloudtoken header. Refusals are the envelope with HTTP 403.
 */
export function visitActivityCsvRoute(
  app: FastifyInstance,
  deps: { visits: VisitService; auth: preHandlerAsyncHookHandler },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/device/v1/visits/activity.csv",
    {
      schema: {
        tags: ["visits"],
        summary: "A device's visit activity as CSV (UTF-8 with BOM; Akey, Bkeys)",
        querystring: visitActivityCsvQuery,
      },
      preValidation: deps.auth,
    },
    async (request, reply) => {
      const { deviceId, visitId } = request.query;
      const file = await deps.visits.activityCsv(
        caller(request),
        { deviceId, visitId },
        requestLang(request),
      );
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${file.filename}"`)
        .header("cache-control", "no-store")
        .send(file.body);
    },
  );
}
