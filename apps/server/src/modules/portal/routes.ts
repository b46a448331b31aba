import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import { contextOf } from "../accounts/requestContext.ts";
import type { PortalService } from "./service.ts";

/** The public form: a handful per address and hour (plus a per-e-mail cap in the service). */
const SCADA_LIMIT = { rateLimit: { max: 5, timeWindow: "1 hour" } };

/** Cloud map points, SCADA registration, app download and the client configuration (packages/shared/src/contract/portal.ts). */
export function portalRoutes(serve: Serve, { portal }: { portal: PortalService }) {
  const p = API.portal;
  serve(p.mapPoints, ({ caller, input: { eid, type } }) =>
    portal.mapPoints(caller, { eid, type: type === 1 || type === 2 ? type : undefined }),
  );
  serve(
    p.scadaRegister,
    ({ input, request }) => portal.registerScada(input, contextOf(request, input.oemid)),
    { config: SCADA_LIMIT },
  );
  serve(p.appDownload, ({ input, request }) => {
    const context = contextOf(request, input?.oemid);
    return portal.appDownload(context.brand, context.lang);
  });
  serve(p.clientConfig, () => portal.clientConfig());
  serve(p.scadaRegistrations, ({ input }) =>
    portal.scadaRegistrationList(input.page, input.pageSize),
  );
}
