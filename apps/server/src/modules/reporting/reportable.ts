import { sql } from "drizzle-orm";
import { users } from "../accounts/schema.ts";
import { enterprises } from "../enterprises/schema.ts";
import { projects } from "../projects/schema.ts";

/**
 * The project feature is on for the project's context (SPEC §6: per-user or per-enterprise
 * flags): the owner's switch for a personal project, the enterprise's for the others.
 */
export const featureOn = sql<boolean>`coalesce(case when ${projects.eid} = 0
  then (select ${users.enableProject} from ${users} where ${users.id} = ${projects.ownerId})
  else (select ${enterprises.enableProject} from ${enterprises} where ${enterprises.id} = ${projects.eid})
  end, false)`;

/** A project's last error once its available data count is used up. */
export const QUOTA_ERROR = "available data count used up";
