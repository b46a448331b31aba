import {
  enterpriseVisitUrlBody,
  projectVisitUrlBody,
  targetField,
  visitEndBody,
  visitIdField,
  visitListQuery,
  visitUrlBody,
} from "@keyway/shared";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type Caller, callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { Actor } from "../access/service.ts";
import { RELAYED_HEADER } from "./forward.ts";
import type { createRelay } from "./relay.ts";
import type { VisitService } from "./service.ts";

const actorOf = (request: FastifyRequest): Actor => {
  const caller = callerOf(request);
  return { userId: caller.userId, terminalId: caller.terminalId };
};

/**
 * Remote access calls (SPEC §7 getValidVisitUrl, enterprises/validVisitUrl,
 * eapi machine/getVisitUrl), the visit log, and the TCP forward endpoint.
 */
export function visitRoutes(
  app: FastifyInstance,
  deps: {
    visits: VisitService;
    relay: ReturnType<typeof createRelay>;
    auth: preHandlerAsyncHookHandler;
    /** Refuses a device the caller does not see in that enterprise. */
    enterpriseDevice: (caller: Caller, eid: number, deviceId: number) => Promise<unknown>;
    /** Refuses a project machine's visit when its project does not allow it. */
    projectVisit: (caller: Caller, deviceId: number, projectId?: number) => Promise<unknown>;
  },
) {
  const { visits, relay, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["visits"];

  r.post(
    "/api/v1/audit/getValidVisitUrl",
    {
      schema: {
        tags,
        summary: "A short-lived URL opening the device's web UI (personal devices)",
        body: visitUrlBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await visits.issue(actorOf(request), request.body.machineID, {
          target: request.body.target,
        }),
      ),
  );

  r.post(
    "/api/enterprises/validVisitUrl",
    {
      schema: {
        tags,
        summary: "A short-lived URL opening an enterprise device's web UI",
        body: enterpriseVisitUrlBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await deps.enterpriseDevice(callerOf(request), b.eid, b.machineId);
      return ok(await visits.issue(actorOf(request), b.machineId, { target: b.target }));
    },
  );

  // A project machine is reached through its project: only its users, only while its
  // enable_get_visit_url is on, with or without the project id (projects.checkVisit); the
  // visit itself still needs the caller's own right on the device (visits.issue).
  r.post(
    "/eapi/web/c/machine/getVisitUrl",
    {
      schema: {
        tags,
        summary: "A short-lived URL opening a project machine's web UI",
        body: projectVisitUrlBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      const deviceId = (b.machineID ?? b.machineId) as number;
      await deps.projectVisit(callerOf(request), deviceId, b.id);
      return ok(await visits.issue(actorOf(request), deviceId, { target: b.target }));
    },
  );

  r.get(
    "/api/device/v1/visits",
    {
      schema: {
        tags,
        summary: "The visit log of a device (Akey, Bkeys)",
        querystring: visitListQuery,
      },
      preValidation: auth,
    },
    async (request) => {
      const q = request.query;
      return ok(await visits.list(actorOf(request), q.deviceId, q.page, q.pageSize));
    },
  );

  r.post(
    "/api/device/v1/visits/end",
    {
      schema: { tags, summary: "End a running visit (Akey, Bkeys)", body: visitEndBody },
      preValidation: auth,
    },
    async (request) => ok(await visits.endByOwner(actorOf(request), request.body.visitId)),
  );

  r.get(
    "/visit-tcp/:visitId",
    {
      websocket: true,
      schema: {
        tags,
        summary:
          "WebSocket: one raw TCP stream to a target through the visit (keyway-agent forward)",
        params: z.object({ visitId: visitIdField }),
        querystring: z.object({ target: targetField.optional() }),
      },
      preValidation: auth,
    },
    (socket, request) => {
      const { visitId } = request.params as { visitId: string };
      const { target } = request.query as { target?: string };
      relay.tcp(socket, visitId, target, {
        actor: actorOf(request),
        token: callerOf(request).token,
        relayed: Boolean(request.headers[RELAYED_HEADER]),
      });
    },
  );
}
