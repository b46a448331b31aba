import type { ClientConfig } from "@keyway/shared";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { EnterpriseService } from "../enterprises/service.ts";
import type { Notifier } from "../notify/service.ts";
import { createAppDownloads } from "./appDownload.ts";
import { createMapPoints } from "./mapPoints.ts";
import { createScadaRegistrations } from "./scada.ts";

export type PortalService = ReturnType<typeof createPortalService>;

/**
 * The portal around the device pages: map points of the caller's context (mapPoints.ts), the
 * public SCADA registration (scada.ts), the per-brand app download information
 * (appDownload.ts) and what the web client needs of the config.
 */
export function createPortalService(deps: {
  db: Db;
  clock: Clock;
  notifier: Pick<Notifier, "enqueue">;
  supportEmail: string;
  client: ClientConfig;
  enterprises: Pick<EnterpriseService, "deviceScope" | "requireList">;
}) {
  return {
    mapPoints: createMapPoints(deps),
    ...createScadaRegistrations(deps),
    appDownload: createAppDownloads(),
    clientConfig: (): ClientConfig => deps.client,
  };
}
