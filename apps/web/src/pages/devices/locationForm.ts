import { manualLocationBody } from "@keyway/shared";
import { z } from "zod";

/** A filled-in field ("" and null would coerce to 0 and pass the range check). */
const filled = z.any().refine((v) => v !== undefined && v !== null && String(v).trim() !== "", {
  error: "v.required",
});

/** The manual location form: the shared manualLocationBody fields, lat and lng required. */
export const manualLocationForm = z.object({
  lat: filled.pipe(manualLocationBody.shape.lat),
  lng: filled.pipe(manualLocationBody.shape.lng),
  address: manualLocationBody.shape.address,
});
