import {
  API,
  DEFAULT_MACHINE_ICON,
  deviceDetailPageBody,
  MACHINE_TYPE_ICONS,
  machineIconSvg,
  machineIconUrl,
  type ReplyOf,
} from "@keyway/shared";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Serve } from "../../http/routes.ts";
import type { DeviceService } from "./service.ts";

/** Adding a device checks its password: limit guesses per address. */
const ADD_LIMIT = { config: { rateLimit: { max: 20, timeWindow: "1 minute" } } };

/** SPEC §7 "Machines" (personal context), groups and the icon map (contract/devices.ts). */
export function deviceRoutes(serve: Serve, { devices }: { devices: DeviceService }) {
  const d = API.devices;

  serve(d.select, ({ caller, input }) => devices.list(caller.userId, input ?? {}));
  serve(
    d.add,
    ({ caller, input }) =>
      devices.add(caller.userId, {
        name: input.machineName,
        code: input.machineCode,
        password: input.machinePwd,
        groupId: input.machineGroupID,
      }),
    ADD_LIMIT,
  );
  serve(d.remove, ({ caller, input }) => devices.remove(caller.userId, input.delMachineID));
  serve(d.update, ({ caller, input }) =>
    devices.update(caller.userId, {
      deviceId: input.updateMachineID,
      name: input.updateMachineName,
      remark: input.updateMachineRemark,
      alias: input.updateMachineAlias,
      groupId: input.updateMachineGroupID,
      code: input.updateMachineCode,
    }),
  );
  serve(d.state, ({ caller, input }) => devices.state(caller.userId, input.machineCode));
  serve(d.detail, ({ caller, input }) => devices.detail(caller.userId, input.deviceId));
  serve(d.detailPage, ({ caller, input }) =>
    devices.list(caller.userId, input ?? deviceDetailPageBody.parse({})),
  );
  serve(d.roleInfo, ({ caller, input }) => devices.roleInfo(caller.userId, input.deviceId));
  serve(d.provision, async ({ input }) => ({
    list: await devices.provision(input.count, input.model),
  }));
  serve(d.states, async ({ caller, input }) => {
    const list = await devices.states(caller.userId, { ids: input?.machineIds });
    return { list, total: list.length };
  });
  serve(d.statesByCode, async ({ caller, input }) => {
    const list = await devices.states(caller.userId, { codes: input.machineCodes });
    return { list, total: list.length };
  });
  serve(d.testState, ({ caller, input }) => devices.testState(caller.userId, input.testUrl));
  serve(
    d.cloudSwitch,
    async ({ caller, input }) =>
      // The service answers cloud_service as 1 or 0; its inferred type is only number.
      (await devices.cloudSwitch(
        caller.userId,
        input.machineId,
        input.state === undefined ? undefined : input.state === 1,
      )) as ReplyOf<typeof d.cloudSwitch>,
  );

  // ---- Groups ----
  serve(d.groups, ({ caller }) => devices.listGroups(caller.userId));
  serve(d.createGroup, ({ caller, input }) => devices.createGroup(caller.userId, input.name));
  serve(d.renameGroup, ({ caller, input }) =>
    devices.renameGroup(caller.userId, input.id, input.name),
  );
  serve(d.deleteGroup, ({ caller, input }) => devices.deleteGroup(caller.userId, input.id));
  serve(d.moveToGroup, ({ caller, input }) =>
    devices.moveToGroup(caller.userId, input.groupId, input.deviceIds),
  );

  serve(d.icons, () => ({
    list: MACHINE_TYPE_ICONS.map((icon) => ({
      pattern: icon.pattern.source,
      image: machineIconUrl(icon),
      name: icon.name.en,
      nameZh: icon.name.zh,
    })),
    default: {
      image: machineIconUrl(DEFAULT_MACHINE_ICON),
      name: DEFAULT_MACHINE_ICON.name.en,
      nameZh: DEFAULT_MACHINE_ICON.name.zh,
    },
  }));
}

/** The machine type icons' images (SVG files, outside the JSON contract). */
export function machineIconRoutes(app: FastifyInstance) {
  const icons = new Map(
    [...MACHINE_TYPE_ICONS, DEFAULT_MACHINE_ICON].map((i) => [i.id, machineIconSvg(i)]),
  );
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/icons/:file",
      { schema: { hide: true, params: z.object({ file: z.string().max(40) }) } },
      async (request, reply) => {
        const svg = icons.get(request.params.file.replace(/\.svg$/, ""));
        if (!svg) return reply.status(404).send({ hwcode: 404, hwdata: null, msg: "Not found" });
        return reply
          .header("content-type", "image/svg+xml")
          .header("cache-control", "public, max-age=86400")
          .send(svg);
      },
    );
}
