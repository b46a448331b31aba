import type { Db } from "../../db/client.ts";
import { createChecks } from "./checks.ts";
import { createRecipients } from "./recipients.ts";
import { createScopes } from "./scopes.ts";

export type { DeviceAct, EnterpriseRole } from "./checks.ts";
export type { DeviceRecipients, EnterpriseRecipient, PersonalRecipient } from "./recipients.ts";
export type { ListType } from "./scopes.ts";

export type Permissions = ReturnType<typeof createPermissions>;

/**
 * The one owner of "who sees / receives / may act on a device" (docs/architecture/
 * permissions.md): checks of an act on many devices, the device scopes other modules
 * filter by, and the recipients of a device's alarms. The bottom layer: it reads other
 * modules' tables and imports no other service.
 */
export function createPermissions(deps: { db: Db }) {
  const scopes = createScopes(deps.db);
  return {
    ...createChecks(deps.db, scopes),
    ...scopes,
    ...createRecipients(deps.db),
  };
}
