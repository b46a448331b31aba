/** The API contract, one group per domain (docs/architecture/README.md "The API contract"). */
import { access } from "./access.ts";
import { accounts, qrLogin, twoFactor } from "./accounts.ts";
import { alarmPush } from "./alarmPush.ts";
import { alarms } from "./alarms.ts";
import { cameras } from "./cameras.ts";
import { devices } from "./devices.ts";
import { enterprises } from "./enterprises.ts";
import { iotCards } from "./iotCards.ts";
import { location } from "./location.ts";
import { messages } from "./messages.ts";
import { notify } from "./notify.ts";
import { portal } from "./portal.ts";
import { projects } from "./projects.ts";
import { visits } from "./visits.ts";
import { wall } from "./wall.ts";

export * from "./route.ts";

export const API = {
  access,
  accounts,
  alarmPush,
  alarms,
  cameras,
  devices,
  enterprises,
  iotCards,
  location,
  messages,
  notify,
  portal,
  projects,
  qrLogin,
  twoFactor,
  visits,
  wall,
} as const;
