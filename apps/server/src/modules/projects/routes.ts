import {
  projectAddBody,
  projectAddUserBody,
  projectDelUserBody,
  projectEditBody,
  projectIdBody,
  projectListBody,
  projectMachineBody,
  projectTransferBody,
} from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import { parseAccountString } from "../accounts/service.ts";
import type { ProjectService } from "./service.ts";

/** SPEC §7 "Projects": the /api/project/* calls and their /eapi/web/c/* twins. */
export function projectRoutes(
  app: FastifyInstance,
  deps: { projects: ProjectService; auth: preHandlerAsyncHookHandler },
) {
  const { projects, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["projects"];
  const userOf = (request: Parameters<typeof callerOf>[0]) => callerOf(request).userId;

  for (const path of ["/api/project/get", "/eapi/web/c/project/list"]) {
    r.post(
      path,
      {
        schema: {
          tags,
          summary: "The caller's projects in a context (eid 0 personal; type 1/2), or one by id",
          body: projectListBody,
        },
        preValidation: auth,
      },
      async (request) => {
        const b = request.body;
        if (b.id) return ok(await projects.get(userOf(request), b.id));
        return ok(await projects.list(userOf(request), { eid: b.eid, type: b.type }));
      },
    );
  }

  r.post(
    "/eapi/web/c/project/info",
    { schema: { tags, summary: "One project", body: projectIdBody }, preValidation: auth },
    async (request) => ok(await projects.get(userOf(request), request.body.id)),
  );

  r.post(
    "/api/project/add",
    {
      schema: { tags, summary: "Creates a project; the caller is its owner", body: projectAddBody },
      preValidation: auth,
    },
    async (request) => ok(await projects.add(userOf(request), request.body)),
  );

  r.post(
    "/api/project/edit",
    {
      schema: {
        tags,
        summary: "Name, description and report settings (owner)",
        body: projectEditBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const { id, ...settings } = request.body;
      return ok(await projects.edit(userOf(request), id, settings));
    },
  );

  r.post(
    "/api/project/getServer",
    {
      schema: { tags, summary: "Report server settings and delivery state", body: projectIdBody },
      preValidation: auth,
    },
    async (request) => ok(await projects.server(userOf(request), request.body.id)),
  );

  r.post(
    "/api/project/resetKey",
    {
      schema: { tags, summary: "A new secret key, shown once (owner)", body: projectIdBody },
      preValidation: auth,
    },
    async (request) => ok(await projects.resetKey(userOf(request), request.body.id)),
  );

  for (const path of ["/api/project/getUser", "/eapi/web/c/managerteam/members"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "The project's users", body: projectIdBody },
        preValidation: auth,
      },
      async (request) => ok(await projects.usersOf(userOf(request), request.body.id)),
    );
  }

  r.post(
    "/api/project/addUser",
    {
      schema: {
        tags,
        summary: "Adds a user by account (owner): 08011006 no such user, 08011007 already in",
        body: projectAddUserBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await projects.addUser(userOf(request), b.id, parseAccountString(b.account, b.countryCode)),
      );
    },
  );

  r.post(
    "/api/project/delUser",
    {
      schema: {
        tags,
        summary: "Removes a user (owner), or leaves the project (a user naming themselves)",
        body: projectDelUserBody,
      },
      preValidation: auth,
    },
    async (request) => {
      await projects.removeUser(userOf(request), request.body.id, request.body.delUserId);
      return ok(null);
    },
  );

  r.post(
    "/api/project/transfer",
    {
      schema: { tags, summary: "Makes another user the owner (owner)", body: projectTransferBody },
      preValidation: auth,
    },
    async (request) =>
      ok(await projects.transfer(userOf(request), request.body.id, request.body.transferUser)),
  );

  r.post(
    "/api/project/del",
    {
      schema: {
        tags,
        summary: "Deletes the project and its machines (owner)",
        body: projectIdBody,
      },
      preValidation: auth,
    },
    async (request) => {
      await projects.remove(userOf(request), request.body.id);
      return ok(null);
    },
  );

  for (const path of ["/api/project/getMachine", "/eapi/web/c/project/machine/list"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "The project's machines", body: projectIdBody },
        preValidation: auth,
      },
      async (request) => ok(await projects.machinesOf(userOf(request), request.body.id)),
    );
  }

  r.post(
    "/api/project/addMachine",
    {
      schema: {
        tags,
        summary: "Adds a machine the owner manages (machine_length + 1, report_count + 100000)",
        body: projectMachineBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(await projects.addMachine(userOf(request), request.body.id, request.body.machineId)),
  );

  r.post(
    "/api/project/delMachine",
    {
      schema: { tags, summary: "Removes a machine (owner)", body: projectMachineBody },
      preValidation: auth,
    },
    async (request) => {
      await projects.removeMachine(userOf(request), request.body.id, request.body.machineId);
      return ok(null);
    },
  );
}
