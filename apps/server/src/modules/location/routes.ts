import { autoLocationWayBody, machineIdBody, manualLocationBody } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import type { LocationService } from "./service.ts";

/** SPEC §7 location calls of "Machines". */
export function locationRoutes(
  app: FastifyInstance,
  deps: { location: LocationService; auth: preHandlerAsyncHookHandler },
) {
  const { location, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["location"];

  for (const path of [
    "/api/machine/machineLocationWay",
    "/api/machine/machineStationLocationNum",
  ]) {
    r.post(
      path,
      {
        schema: {
          tags,
          summary: "A device's location, its way and the fixes left today",
          body: machineIdBody,
        },
        preValidation: auth,
      },
      async (request) => ok(await location.get(callerOf(request).userId, request.body.machineId)),
    );
  }
  r.post(
    "/api/machine/machineAutoLocationWay",
    {
      schema: {
        tags,
        summary: "Locate automatically by gps, base station or ip",
        body: autoLocationWayBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await location.setAutomatic(
          callerOf(request).userId,
          request.body.machineId,
          request.body.way,
        ),
      ),
  );
  for (const path of [
    "/api/machine/machineManualLocation",
    "/api/machine/machineManualLocationLatLng",
    "/api/v1/machine/setMachineLocation",
  ]) {
    r.post(
      path,
      {
        schema: {
          tags,
          summary: "Place a device by hand (lat, lng, address)",
          body: manualLocationBody,
        },
        preValidation: auth,
      },
      async (request) => {
        const b = request.body;
        return ok(
          await location.setManual(callerOf(request).userId, {
            deviceId: b.machineId,
            lat: b.lat,
            lng: b.lng,
            address: b.address,
          }),
        );
      },
    );
  }
  r.post(
    "/api/machine/machineAutoLocationAddress",
    {
      schema: { tags, summary: "Ask the device for a fresh fix (5 a day)", body: machineIdBody },
      preValidation: auth,
    },
    async (request) => ok(await location.refresh(callerOf(request).userId, request.body.machineId)),
  );
}
