import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import type { IotCardService } from "./service.ts";

/** SPEC §7 "IoT card" (packages/shared/src/contract/iotCards.ts); the caller is the viewer. */
export function iotCardRoutes(serve: Serve, { iotCards }: { iotCards: IotCardService }) {
  const c = API.iotCards;
  serve(c.list, ({ caller, input }) =>
    iotCards.list(caller, { ...input, state: input.state || undefined }),
  );
  serve(c.info, ({ caller, input }) => iotCards.info(caller, input));
  serve(c.qrCode, ({ caller, input }) => iotCards.qrCode(caller, input));
  serve(c.scan, ({ caller, input }) => iotCards.scan(caller, input));
  serve(c.warningLog, ({ caller, input }) => iotCards.warningLog(caller, input));
  serve(c.refresh, ({ caller, input }) => iotCards.refresh(caller, input));
  serve(c.traffic, ({ caller, input }) => iotCards.traffic(caller, input));
}
