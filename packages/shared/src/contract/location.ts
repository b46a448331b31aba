import {
  autoLocationWayBody,
  type MachineLocation,
  machineIdBody,
  manualLocationBody,
} from "../devices.ts";
import { group, route } from "./route.ts";

/** Every location call answers the device's location as it now is. */
const locationRoute = route<MachineLocation>();

/** SPEC §7 location calls of "Machines"; the older paths of the same calls are kept. */
export const location = group(
  { auth: "user", tags: ["location"] },
  {
    get: locationRoute({
      method: "POST",
      path: "/api/machine/machineLocationWay",
      summary: "A device's location, its way and the fixes left today",
      input: machineIdBody,
    }),
    getByStationPath: locationRoute({
      method: "POST",
      path: "/api/machine/machineStationLocationNum",
      summary: "A device's location, its way and the fixes left today",
      input: machineIdBody,
    }),
    setAutomatic: locationRoute({
      method: "POST",
      path: "/api/machine/machineAutoLocationWay",
      summary: "Locate automatically by gps, base station or ip",
      input: autoLocationWayBody,
    }),
    setManual: locationRoute({
      method: "POST",
      path: "/api/machine/machineManualLocation",
      summary: "Place a device by hand (lat, lng, address)",
      input: manualLocationBody,
    }),
    setManualLatLng: locationRoute({
      method: "POST",
      path: "/api/machine/machineManualLocationLatLng",
      summary: "Place a device by hand (lat, lng, address)",
      input: manualLocationBody,
    }),
    setMachineLocation: locationRoute({
      method: "POST",
      path: "/api/v1/machine/setMachineLocation",
      summary: "Place a device by hand (lat, lng, address)",
      input: manualLocationBody,
    }),
    refresh: locationRoute({
      method: "POST",
      path: "/api/machine/machineAutoLocationAddress",
      summary: "Ask the device for a fresh fix (5 a day)",
      input: machineIdBody,
    }),
  },
);
