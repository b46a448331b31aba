import { z } from "zod";
import { LIMITS } from "./constants.ts";
import { countryCodeField, flagField, idField, idOrZeroField } from "./fields.ts";

/**
 * Projects (SPEC §3 Project, Project machine, Project user; §4 Project; §7 "Projects").
 * Paths → request body → answer (hwdata):
 *   POST /api/project/get            projectListBody        { list: ProjectView[], total }
 *                                    with `id`: one project  ProjectView
 *   POST /api/project/add            projectAddBody         ProjectView (secret_key shown once)
 *   POST /api/project/edit           projectEditBody        ProjectView
 *   POST /api/project/getServer      projectIdBody          ProjectServerView
 *   POST /api/project/getUser        projectIdBody          { list: ProjectUserView[], total }
 *   POST /api/project/addUser        projectAddUserBody     ProjectUserView
 *   POST /api/project/delUser        projectDelUserBody     null (a level-2 user naming themselves quits)
 *   POST /api/project/transfer       projectTransferBody    ProjectView
 *   POST /api/project/del            projectIdBody          null
 *   POST /api/project/getMachine     projectIdBody          { list: ProjectMachineView[], total }
 *   POST /api/project/addMachine     projectMachineBody     ProjectMachineView
 *   POST /api/project/delMachine     projectMachineBody     null
 *   POST /api/project/resetKey       projectIdBody          { secret_key } (shown once)
 *   POST /eapi/web/c/project/list           projectListBody    as /api/project/get
 *   POST /eapi/web/c/project/info           projectIdBody      ProjectView
 *   POST /eapi/web/c/project/machine/list   projectIdBody      as getMachine
 *   POST /eapi/web/c/managerteam/members    projectIdBody      as getUser
 *   POST /eapi/web/c/machine/getVisitUrl    projectMachineBody a visit URL (only with enable_get_visit_url)
 */

export const PROJECT_LEVEL = { owner: 3, user: 2 } as const;
/** The report server: an MQTT broker or an HTTPS endpoint, over TLS. */
export const REPORT_SERVER_PROTOCOLS = ["mqtts:", "https:"] as const;
/** Without TLS only on this machine (development, a local bridge): plant data stays private. */
export const REPORT_SERVER_LOOPBACK_PROTOCOLS = ["mqtt:", "http:"] as const;

/** 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

export const projectNameField = z.coerce
  .string({ error: "v.required" })
  .trim()
  .min(LIMITS.projectName.min, { error: "v.projectName" })
  .max(LIMITS.projectName.max, { error: "v.projectName" });

export const projectDescriptionField = z.coerce
  .string()
  .trim()
  .max(LIMITS.projectDescription.max, { error: "v.projectDescription" });

export const reportServerField = z.coerce
  .string()
  .trim()
  .max(300, { error: "v.reportServer" })
  .refine(
    (v) => {
      if (v === "") return true;
      try {
        const url = new URL(v);
        if (!url.host) return false;
        if ((REPORT_SERVER_PROTOCOLS as readonly string[]).includes(url.protocol)) return true;
        return (
          (REPORT_SERVER_LOOPBACK_PROTOCOLS as readonly string[]).includes(url.protocol) &&
          isLoopbackHost(url.hostname)
        );
      } catch {
        return false;
      }
    },
    { error: "v.reportServer" },
  );

/** Interval reporting in hours (SPEC §9); 0 sends each point as it comes. */
export const reportIntervalField = z.coerce
  .number({ error: "v.reportInterval" })
  .int({ error: "v.reportInterval" })
  .min(0, { error: "v.reportInterval" })
  .max(24, { error: "v.reportInterval" });

/** The context a list is asked for: personal (eid 0) or an enterprise's type 1 / 2 list. */
export const projectListBody = z.object({
  eid: idOrZeroField.default(0),
  type: z.coerce.number().int().min(1).max(2).default(1),
  id: idField.optional(),
});

export const projectAddBody = z.object({
  name: projectNameField,
  description: projectDescriptionField.default(""),
  eid: idOrZeroField.default(0),
  type: z.coerce.number().int().min(1).max(2).default(1),
  report_state: flagField.default(false),
  server: reportServerField.default(""),
  enable_get_visit_url: flagField.default(false),
  interval: reportIntervalField.default(0),
});

export const projectEditBody = z.object({
  id: idField,
  name: projectNameField.optional(),
  description: projectDescriptionField.optional(),
  report_state: flagField.optional(),
  server: reportServerField.optional(),
  enable_get_visit_url: flagField.optional(),
  interval: reportIntervalField.optional(),
});

export const projectIdBody = z.object({ id: idField });

export const projectAddUserBody = z.object({
  id: idField,
  account: z.coerce
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(100, { error: "v.account" }),
  countryCode: countryCodeField.optional(),
});

export const projectDelUserBody = z.object({ id: idField, delUserId: idField });
export const projectTransferBody = z.object({ id: idField, transferUser: idField });
export const projectMachineBody = z.object({ id: idField, machineId: idField });

export type ProjectAddInput = z.input<typeof projectAddBody>;
export type ProjectEditInput = z.input<typeof projectEditBody>;

export interface ProjectView {
  id: number;
  name: string;
  description: string;
  eid: number;
  type: number;
  /** 1 on, 0 off. */
  report_state: number;
  /** Data points the project may deliver: 100,000 per machine (SPEC §9). */
  report_count: number;
  /** Data points left: report_count minus those delivered. */
  available_count: number;
  enable_get_visit_url: number;
  /** The owner's user id (SPEC's spelling). */
  ownner: number;
  server: string;
  /** Only in the answer that created or reset it; otherwise masked. */
  secret_key: string;
  interval: number;
  /** The caller's level: 3 owner, 2 user. */
  limit_authority: number;
  user_length: number;
  machine_length: number;
  created_at: string;
}

export interface ProjectServerView {
  id: number;
  server: string;
  report_state: number;
  interval: number;
  /** Delivery state (issue: the project page shows it). */
  delivery: ProjectDeliveryView;
}

export interface ProjectDeliveryView {
  /** Points queued and not yet delivered. */
  backlog: number;
  delivered: number;
  /** Points refused because the available data count was used up. */
  dropped: number;
  /** When a failed delivery is tried again (null: not waiting). */
  next_attempt_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_error: string;
}

export interface ProjectUserView {
  user_id: number;
  name: string;
  email: string;
  phone: string;
  country_code: string;
  limit_authority: number;
}

export interface ProjectMachineView {
  machine_id: number;
  machine_code: string;
  machine_name: string;
  emq_project_id: number;
  /** The project's name, copied (SPEC §3 Project machine). */
  name: string;
  online: boolean;
}
