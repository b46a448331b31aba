import {
  API,
  type ListResult,
  type ProjectAddInput,
  type ProjectEditInput,
  type ProjectMachineView,
  type ProjectServerView,
  type ProjectUserView,
  type ProjectView,
} from "@keyway/shared";
import { request } from "./client.ts";

export type { ProjectMachineView, ProjectServerView, ProjectUserView, ProjectView };

/** An enterprise's project list: type 1 enterprise projects, 2 maintenance projects. */
export interface ProjectListQuery {
  eid: number;
  type: 1 | 2;
}

/**
 * Projects (SPEC §7 "Projects"; packages/shared/src/contract/projects.ts). Owner-only calls
 * are refused with 08010201 for others.
 */
export const projectsApi = {
  // Without an `id` project/get answers the context's list, never one project.
  list: (query: ProjectListQuery) =>
    request(API.projects.get, { eid: query.eid, type: query.type }) as Promise<
      ListResult<ProjectView>
    >,
  /** The answer carries the secret key, shown once. */
  add: (body: ProjectAddInput) => request(API.projects.add, body),
  edit: (body: ProjectEditInput) => request(API.projects.edit, body),
  server: (id: number) => request(API.projects.server, { id }),
  /** A new key, shown once. */
  resetKey: (id: number) => request(API.projects.resetKey, { id }),
  users: (id: number) => request(API.projects.usersOf, { id }),
  /** 08011006 no such user, 08011007 already in the project. */
  addUser: (body: { id: number; account: string; countryCode?: string }) =>
    request(API.projects.addUser, body),
  /** The owner removes a user; a level-2 user naming themselves leaves. */
  delUser: (body: { id: number; delUserId: number }) => request(API.projects.removeUser, body),
  transfer: (body: { id: number; transferUser: number }) => request(API.projects.transfer, body),
  remove: (id: number) => request(API.projects.remove, { id }),
  machines: (id: number) => request(API.projects.machinesOf, { id }),
  addMachine: (body: { id: number; machineId: number }) => request(API.projects.addMachine, body),
  removeMachine: (body: { id: number; machineId: number }) =>
    request(API.projects.removeMachine, body),
};
