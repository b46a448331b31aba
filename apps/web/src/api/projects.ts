import type {
  ListResult,
  ProjectMachineView,
  ProjectServerView,
  ProjectUserView,
  ProjectView,
  projectAddBody,
  projectEditBody,
} from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";

export type { ProjectMachineView, ProjectServerView, ProjectUserView, ProjectView };

/** An enterprise's project list: type 1 enterprise projects, 2 maintenance projects. */
export interface ProjectListQuery {
  eid: number;
  type: 1 | 2;
}

/**
 * Projects (SPEC §7 "Projects"; the contract is the header of
 * packages/shared/src/projects.ts). Owner-only calls are refused with 08010201 for others.
 */
export const projectsApi = {
  list: (query: ProjectListQuery) =>
    api.post<ListResult<ProjectView>>("/project/get", { eid: query.eid, type: query.type }),
  get: (id: number) => api.post<ProjectView>("/project/get", { id }),
  /** The answer carries the secret key, shown once. */
  add: (body: z.output<typeof projectAddBody>) => api.post<ProjectView>("/project/add", body),
  edit: (body: z.output<typeof projectEditBody>) => api.post<ProjectView>("/project/edit", body),
  server: (id: number) => api.post<ProjectServerView>("/project/getServer", { id }),
  /** A new key, shown once. */
  resetKey: (id: number) => api.post<{ secret_key: string }>("/project/resetKey", { id }),
  users: (id: number) => api.post<ListResult<ProjectUserView>>("/project/getUser", { id }),
  /** 08011006 no such user, 08011007 already in the project. */
  addUser: (body: { id: number; account: string; countryCode?: string }) =>
    api.post<ProjectUserView>("/project/addUser", body),
  /** The owner removes a user; a level-2 user naming themselves leaves. */
  delUser: (body: { id: number; delUserId: number }) => api.post<null>("/project/delUser", body),
  transfer: (body: { id: number; transferUser: number }) =>
    api.post<ProjectView>("/project/transfer", body),
  remove: (id: number) => api.post<null>("/project/del", { id }),
  machines: (id: number) => api.post<ListResult<ProjectMachineView>>("/project/getMachine", { id }),
  addMachine: (body: { id: number; machineId: number }) =>
    api.post<ProjectMachineView>("/project/addMachine", body),
  removeMachine: (body: { id: number; machineId: number }) =>
    api.post<null>("/project/delMachine", body),
};
