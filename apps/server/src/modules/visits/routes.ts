import { API, targetField, visitIdField } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type Caller, caller } from "../../http/auth.ts";
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
    visits.issue(caller, input.machineID, { target: input.target }),
  );
  serve(v.validVisitUrl, async ({ caller, input }) => {
    await deps.enterpriseDevice(caller, input.eid, input.machineId);
    return visits.issue(caller, input.machineId, { target: input.target });
  });
  // A project machine is reached through its project: only its users, only while its
  // enable_get_visit_url is on, with or without the project id (projects.checkVisit); the
  // visit itself still needs the caller's own right on the device (visits.issue).
  serve(v.getVisitUrl, async ({ caller, input }) => {
    const deviceId = (input.machineID ?? input.machineId) as number;
    await deps.projectVisit(caller, deviceId, input.id);
    return visits.issue(caller, deviceId, { target: input.target });
  });
  serve(v.list, ({ caller, input }) =>
    visits.list(caller, input.deviceId, input.page, input.pageSize),
  );
  serve(v.end, ({ caller, input }) => visits.endByOwner(caller, input.visitId));
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
