import type { ProjectDeliveryView } from "@keyway/shared";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { AccountRef } from "../accounts/accountRef.ts";
import { createProjectMachines } from "./machines.ts";
import { createProjectMembers } from "./members.ts";
import { createProjectMembership } from "./membership.ts";
import { createProjectSettings } from "./settings.ts";
import { createProjectViews } from "./views.ts";

export type ProjectService = ReturnType<typeof createProjectService>;

/**
 * Projects (SPEC §3, §4 "Project", §6, §7 "Projects"): the owner (level 3) manages people,
 * machines, report settings and the key; other users (level 2) see the project and may
 * quit. A non-member is told the project does not exist. Enterprise projects need the
 * enterprise's enableProject and a member who sees that list (membership.ts). The jobs:
 * the projects and their settings (settings.ts), people (members.ts), machines (machines.ts).
 */
export function createProjectService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  findUser: (ref: AccountRef) => Promise<{ id: number } | undefined>;
  /** Refuses a caller who does not see the enterprise's list of `type`. */
  requireEnterpriseList: (userId: number, eid: number, type: 1 | 2) => Promise<unknown>;
  /** Delivery figures of a project (the reporting module); zeros until it reports. */
  delivery?: (projectId: number) => Promise<ProjectDeliveryView>;
  /**
   * The project's server, key, switch or data count changed: a delivery waiting out a
   * backoff is tried again now (the owner just fixed what failed).
   */
  reportSettingsChanged?: (projectId: number) => Promise<void>;
  /** A machine left a project: its points still queued for that project are dropped. */
  machineReleased?: (projectId: number, deviceId: number) => Promise<unknown>;
}) {
  const { db, clock } = deps;
  const access = createProjectMembership(deps);
  const views = createProjectViews({ db });
  const settings = createProjectSettings({ ...deps, access, views });
  const members = createProjectMembers({ db, clock, access, views, findUser: deps.findUser });
  const machines = createProjectMachines({ ...deps, access });
  return {
    ...settings,
    ...members,
    ...machines,
  };
}
