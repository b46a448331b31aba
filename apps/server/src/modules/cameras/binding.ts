import { sql } from "drizzle-orm";
import { devices } from "../devices/schema.ts";

/**
 * The Machine's ezviz_account_id as a column of a device query: the device's bound camera
 * account while that account's owner is still the device's Akey (decision 64), else 0.
 * Raw aliases so that it never mixes with the outer query's own device_links.
 */
export const ezvizAccountIdColumn =
  sql<number>`coalesce((select cb.account_id from camera_bindings cb join camera_accounts ca on ca.id = cb.account_id join device_links dl on dl.device_id = cb.device_id and dl.user_id = ca.user_id and dl.role = 'akey' where cb.device_id = ${devices.id} limit 1), 0)`.mapWith(
    Number,
  );
