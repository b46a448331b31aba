import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { createPushAccess } from "./access.ts";
import { createPushConfig } from "./config.ts";
import { createContacts } from "./contacts.ts";
import { createStockLedger } from "./ledger.ts";
import { createPushStats } from "./stats.ts";
import { createStock, credit, debit, refund } from "./stock.ts";
import { createDeviceSwitches } from "./switches.ts";

export type AlarmPushService = ReturnType<typeof createAlarmPushService>;

/**
 * Alarm push configuration (personal and enterprise), per-device SMS switch, alarm contacts
 * and the SMS stock (sale, allocation, transfer) with its records. The sends themselves are
 * the notifier's (notifier.ts); see docs/architecture/alarms.md.
 */
export function createAlarmPushService(deps: { db: Db; clock: Clock; secretKey: string }) {
  const { db, clock } = deps;
  const access = createPushAccess(db);
  return {
    requireAdmin: access.requireAdmin,
    requireMember: access.requireMember,
    membership: access.membership,
    ...createPushConfig({ db, clock, secretKey: deps.secretKey, access }),
    ...createDeviceSwitches({ db, clock, access }),
    ...createContacts({ db, clock, access }),
    credit,
    debit,
    refund,
    ...createStock({ db, clock, access }),
    ...createStockLedger({ db, access }),
    /** The data centre's charts (stats.ts). */
    statistics: createPushStats({ db, clock, push: { requireMember: access.requireMember } }),
  };
}
