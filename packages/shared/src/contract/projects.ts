import type { ListResult } from "../accounts.ts";
import {
  type ProjectMachineView,
  type ProjectServerView,
  type ProjectUserView,
  type ProjectView,
  projectAddBody,
  projectAddUserBody,
  projectDelUserBody,
  projectEditBody,
  projectIdBody,
  projectListBody,
  projectMachineBody,
  projectTransferBody,
} from "../projects.ts";
import { group, route } from "./route.ts";

/** `project/get` answers the context's list, or the one project its `id` names. */
export type ProjectGetReply = ListResult<ProjectView> | ProjectView;

const get = {
  summary: "The caller's projects in a context (eid 0 personal; type 1/2), or one by id",
  input: projectListBody,
} as const;
const usersOf = { summary: "The project's users", input: projectIdBody } as const;
const machinesOf = { summary: "The project's machines", input: projectIdBody } as const;

/**
 * SPEC §7 "Projects": the /api/project/* calls and their /eapi/web/c/* twins (the same
 * handlers). Owner-only calls are refused with 08010201 for others.
 */
export const projects = group(
  { auth: "user", tags: ["projects"] },
  {
    get: route<ProjectGetReply>()({ method: "POST", path: "/api/project/get", ...get }),
    eapiList: route<ProjectGetReply>()({
      method: "POST",
      path: "/eapi/web/c/project/list",
      ...get,
    }),
    eapiInfo: route<ProjectView>()({
      method: "POST",
      path: "/eapi/web/c/project/info",
      summary: "One project",
      input: projectIdBody,
    }),
    add: route<ProjectView>()({
      method: "POST",
      path: "/api/project/add",
      summary: "Creates a project; the caller is its owner",
      input: projectAddBody,
    }),
    edit: route<ProjectView>()({
      method: "POST",
      path: "/api/project/edit",
      summary: "Name, description and report settings (owner)",
      input: projectEditBody,
    }),
    server: route<ProjectServerView>()({
      method: "POST",
      path: "/api/project/getServer",
      summary: "Report server settings and delivery state",
      input: projectIdBody,
    }),
    resetKey: route<{ secret_key: string }>()({
      method: "POST",
      path: "/api/project/resetKey",
      summary: "A new secret key, shown once (owner)",
      input: projectIdBody,
    }),
    usersOf: route<ListResult<ProjectUserView>>()({
      method: "POST",
      path: "/api/project/getUser",
      ...usersOf,
    }),
    eapiMembers: route<ListResult<ProjectUserView>>()({
      method: "POST",
      path: "/eapi/web/c/managerteam/members",
      ...usersOf,
    }),
    addUser: route<ProjectUserView>()({
      method: "POST",
      path: "/api/project/addUser",
      summary: "Adds a user by account (owner): 08011006 no such user, 08011007 already in",
      input: projectAddUserBody,
    }),
    removeUser: route()({
      method: "POST",
      path: "/api/project/delUser",
      summary: "Removes a user (owner), or leaves the project (a user naming themselves)",
      input: projectDelUserBody,
    }),
    transfer: route<ProjectView>()({
      method: "POST",
      path: "/api/project/transfer",
      summary: "Makes another user the owner (owner)",
      input: projectTransferBody,
    }),
    remove: route()({
      method: "POST",
      path: "/api/project/del",
      summary: "Deletes the project and its machines (owner)",
      input: projectIdBody,
    }),
    machinesOf: route<ListResult<ProjectMachineView>>()({
      method: "POST",
      path: "/api/project/getMachine",
      ...machinesOf,
    }),
    eapiMachines: route<ListResult<ProjectMachineView>>()({
      method: "POST",
      path: "/eapi/web/c/project/machine/list",
      ...machinesOf,
    }),
    addMachine: route<ProjectMachineView>()({
      method: "POST",
      path: "/api/project/addMachine",
      summary: "Adds a machine the owner manages (machine_length + 1, report_count + 100000)",
      input: projectMachineBody,
    }),
    removeMachine: route()({
      method: "POST",
      path: "/api/project/delMachine",
      summary: "Removes a machine (owner)",
      input: projectMachineBody,
    }),
  },
);
