import { appDownloadBody, mapPointsBody, scadaRegisterForm, tokenInfoQuery } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import { contextOf } from "../accounts/routes.ts";
import type { PortalService } from "./service.ts";

/** The public form: a handful per address and hour (plus a per-e-mail cap in the service). */
const SCADA_LIMIT = { rateLimit: { max: 5, timeWindow: "1 hour" } };

/** Cloud map points, SCADA registration, app download and the client configuration. */
export function portalRoutes(
  app: FastifyInstance,
  deps: {
    portal: PortalService;
    auth: preHandlerAsyncHookHandler;
    operator: preHandlerAsyncHookHandler;
  },
) {
  const { portal, auth, operator } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["portal"];

  r.post(
    "/api/v1/cloudmap/points",
    {
      schema: {
        tags,
        summary:
          "Every device of a context with its position and state (eid 0 personal; an enterprise's lists, or its type 1/2 list)",
        body: mapPointsBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const caller = callerOf(request);
      const { eid, type } = request.body;
      return ok(
        await portal.mapPoints(
          { userId: caller.userId, role: caller.role },
          { eid, type: type === 1 || type === 2 ? type : undefined },
        ),
      );
    },
  );

  r.post(
    "/api/common/scadaRegister",
    {
      schema: {
        tags,
        summary: "Registers a SCADA project (public); support replies by e-mail within 24 hours",
        body: scadaRegisterForm,
        security: [],
      },
      config: SCADA_LIMIT,
    },
    async (request) => {
      const context = contextOf(request, request.body.oemid);
      return ok(await portal.registerScada(request.body, context));
    },
  );

  r.post(
    "/api/common/appDownload",
    {
      schema: {
        tags,
        summary:
          "App versions, download links and QR images of a brand (oemid, else the host's brand)",
        body: appDownloadBody,
        security: [],
      },
    },
    async (request) => {
      const context = contextOf(request, request.body?.oemid);
      return ok(await portal.appDownload(context.brand, context.lang));
    },
  );

  r.get(
    "/api/common/clientConfig",
    {
      schema: {
        tags,
        summary: "Map tiles, the new-version link and the API documentation (public)",
        security: [],
      },
    },
    async () => ok(portal.clientConfig()),
  );

  r.get(
    "/api/operator/v1/scadaRegistrations",
    {
      schema: {
        tags: ["operator"],
        summary: "SCADA registrations, newest first",
        querystring: tokenInfoQuery,
      },
      preValidation: operator,
    },
    async (request) =>
      ok(await portal.scadaRegistrationList(request.query.page, request.query.pageSize)),
  );
}
