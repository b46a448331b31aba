import {
  iotCardInfoQuery,
  iotCardListBody,
  iotCardLogBody,
  iotCardQuery,
  iotCardScanBody,
  iotCardTrafficBody,
} from "@keyway/shared";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { IotCardService, IotCardViewer } from "./service.ts";

const viewerOf = (request: FastifyRequest): IotCardViewer => {
  const caller = callerOf(request);
  return { userId: caller.userId, role: caller.role };
};

/**
 * SPEC §7 "IoT card" (payloads not shown there; ours are in packages/shared/src/iotCards.ts),
 * plus the on-demand refresh and the data centre's traffic figures.
 */
export function iotCardRoutes(
  app: FastifyInstance,
  deps: { iotCards: IotCardService; auth: preHandlerAsyncHookHandler },
) {
  const { iotCards, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["iotCards"];

  r.post(
    "/api/iotcard/iotCard/getIotCard",
    {
      schema: {
        tags,
        summary: "The 4G cards of the devices the caller sees in a context (eid 0 personal)",
        body: iotCardListBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(await iotCards.list(viewerOf(request), { ...b, state: b.state || undefined }));
    },
  );

  r.get(
    "/api/v1/iotcard/info",
    {
      schema: {
        tags,
        summary: "One card (by iccid, or by the device machineId): figures, history, warnings",
        querystring: iotCardInfoQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.info(viewerOf(request), request.query)),
  );

  r.get(
    "/api/iotcard/iotCard/qrCode",
    {
      schema: {
        tags,
        summary: "A QR code (PNG data URL) of the card's page, for the phone app to scan",
        querystring: iotCardQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.qrCode(viewerOf(request), request.query)),
  );

  r.post(
    "/api/v1/iotcard/qrCode",
    {
      schema: {
        tags,
        summary: "The card a scanned QR (or ICCID bar code) names, if the caller sees it",
        body: iotCardScanBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.scan(viewerOf(request), request.body)),
  );

  r.post(
    "/api/v1/iotcard/alarm/device/log",
    {
      schema: {
        tags,
        summary: "Low-traffic and plan-expiry warnings (alarms) of a device, a card or the context",
        body: iotCardLogBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.warningLog(viewerOf(request), request.body)),
  );

  r.post(
    "/api/v1/iotcard/refresh",
    {
      schema: {
        tags,
        summary: "Reads one card from the carrier now (once an hour per card: 15010201)",
        body: iotCardQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.refresh(viewerOf(request), request.body)),
  );

  r.post(
    "/api/v1/iotcard/traffic",
    {
      schema: {
        tags,
        summary: "Data centre: card traffic of the context (totals, per day, per card, by state)",
        body: iotCardTrafficBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await iotCards.traffic(viewerOf(request), request.body)),
  );
}
