import { API } from "@keyway/shared";
import type { Handler, Serve } from "../../http/routes.ts";
import type { LocationService } from "./service.ts";

/** SPEC §7 location calls of "Machines" (packages/shared/src/contract/location.ts). */
export function locationRoutes(serve: Serve, { location }: { location: LocationService }) {
  const l = API.location;
  const get: Handler<typeof l.get> = ({ caller, input }) =>
    location.get(caller.userId, input.machineId);
  const setManual: Handler<typeof l.setManual> = ({ caller, input }) =>
    location.setManual(caller.userId, {
      deviceId: input.machineId,
      lat: input.lat,
      lng: input.lng,
      address: input.address,
    });

  serve(l.get, get);
  serve(l.getByStationPath, get);
  serve(l.setAutomatic, ({ caller, input }) =>
    location.setAutomatic(caller.userId, input.machineId, input.way),
  );
  serve(l.setManual, setManual);
  serve(l.setManualLatLng, setManual);
  serve(l.setMachineLocation, setManual);
  serve(l.refresh, ({ caller, input }) => location.refresh(caller.userId, input.machineId));
}
