import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import { parseAccountString } from "../accounts/accountRef.ts";
import type { ProjectService } from "./service.ts";

/** SPEC §7 "Projects" and their /eapi/web/c/* twins (packages/shared/src/contract/projects.ts). */
export function projectRoutes(serve: Serve, { projects }: { projects: ProjectService }) {
  const p = API.projects;
  for (const route of [p.get, p.eapiList]) {
    serve(route, ({ caller, input }) =>
      input.id
        ? projects.get(caller.userId, input.id)
        : projects.list(caller.userId, { eid: input.eid, type: input.type }),
    );
  }
  serve(p.eapiInfo, ({ caller, input }) => projects.get(caller.userId, input.id));
  serve(p.add, ({ caller, input }) => projects.add(caller.userId, input));
  serve(p.edit, ({ caller, input: { id, ...settings } }) =>
    projects.edit(caller.userId, id, settings),
  );
  serve(p.server, ({ caller, input }) => projects.server(caller.userId, input.id));
  serve(p.resetKey, ({ caller, input }) => projects.resetKey(caller.userId, input.id));
  for (const route of [p.usersOf, p.eapiMembers]) {
    serve(route, ({ caller, input }) => projects.usersOf(caller.userId, input.id));
  }
  serve(p.addUser, ({ caller, input }) =>
    projects.addUser(caller.userId, input.id, parseAccountString(input.account, input.countryCode)),
  );
  serve(p.removeUser, ({ caller, input }) =>
    projects.removeUser(caller.userId, input.id, input.delUserId),
  );
  serve(p.transfer, ({ caller, input }) =>
    projects.transfer(caller.userId, input.id, input.transferUser),
  );
  serve(p.remove, ({ caller, input }) => projects.remove(caller.userId, input.id));
  for (const route of [p.machinesOf, p.eapiMachines]) {
    serve(route, ({ caller, input }) => projects.machinesOf(caller.userId, input.id));
  }
  serve(p.addMachine, ({ caller, input }) =>
    projects.addMachine(caller.userId, input.id, input.machineId),
  );
  serve(p.removeMachine, ({ caller, input }) =>
    projects.removeMachine(caller.userId, input.id, input.machineId),
  );
}
