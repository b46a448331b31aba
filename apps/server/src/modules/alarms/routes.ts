import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import type { AlarmService } from "./service.ts";

/** SPEC §7 "Alarms" (packages/shared/src/contract/alarms.ts). */
export function alarmRoutes(serve: Serve, { alarms }: { alarms: AlarmService }) {
  const a = API.alarms;
  serve(a.deviceAlarms, ({ caller, input }) => alarms.list(caller, input));
  serve(a.confirm, ({ caller, input }) => alarms.confirm(caller, input.eid, input.id));
  serve(a.list, ({ caller, input }) => alarms.list(caller, input));
  serve(a.kanban, ({ caller, input }) => alarms.kanban(caller, input));
  serve(a.reset, ({ caller, input }) => alarms.reset(caller, input.eid, input.deviceCode));
}
