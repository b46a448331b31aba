import {
  cloudSwitchBody,
  DEFAULT_MACHINE_ICON,
  deviceDetailPageBody,
  deviceIdQuery,
  groupCreateBody,
  groupDeleteBody,
  groupMoveBody,
  groupRenameBody,
  MACHINE_TYPE_ICONS,
  type MachineIconMap,
  machineAddBody,
  machineCodesBody,
  machineDelBody,
  machineIconSvg,
  machineIconUrl,
  machineSelectBody,
  machineStateBody,
  machineStatesBody,
  machineUpdateBody,
  provisionBody,
  testMachineStateBody,
} from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { callerOf } from "../../http/auth.ts";
import { AppError, ok } from "../../http/envelope.ts";
import type { DeviceService } from "./service.ts";

/** Adding a device checks its password: limit guesses per address. */
const ADD_LIMIT = { rateLimit: { max: 20, timeWindow: "1 minute" } };

/** SPEC §7 "Machines" (personal context), groups and the icon map. */
export function deviceRoutes(
  app: FastifyInstance,
  deps: {
    devices: DeviceService;
    auth: preHandlerAsyncHookHandler;
    operator: preHandlerAsyncHookHandler;
  },
) {
  const { devices, auth, operator } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["devices"];

  r.post(
    "/api/machine/select",
    {
      schema: { tags, summary: "The caller's personal devices", body: machineSelectBody.nullish() },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await devices.list(callerOf(request).userId, {
          groupId: request.body?.groupId,
          search: request.body?.search,
        }),
      ),
  );

  r.post(
    "/api/machine/add",
    {
      schema: {
        tags,
        summary: "Add a device by machine code and device password",
        body: machineAddBody,
      },
      preValidation: auth,
      config: ADD_LIMIT,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await devices.add(callerOf(request).userId, {
          name: b.machineName,
          code: b.machineCode,
          password: b.machinePwd,
          groupId: b.machineGroupID,
        }),
      );
    },
  );

  r.post(
    "/api/machine/del",
    {
      schema: {
        tags,
        summary: "Remove a device from the caller's list (the Akey unbinds it)",
        body: machineDelBody,
      },
      preValidation: auth,
    },
    async (request) => {
      await devices.remove(callerOf(request).userId, request.body.delMachineID);
      return ok(null);
    },
  );

  r.post(
    "/api/machine/update",
    {
      schema: { tags, summary: "Edit name, remark, alias and group", body: machineUpdateBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await devices.update(callerOf(request).userId, {
          deviceId: b.updateMachineID,
          name: b.updateMachineName,
          remark: b.updateMachineRemark,
          alias: b.updateMachineAlias,
          groupId: b.updateMachineGroupID,
          code: b.updateMachineCode,
        }),
      );
    },
  );

  r.post(
    "/api/machine/getMachineState",
    {
      schema: {
        tags,
        summary: "Online state of one of the caller's devices",
        body: machineStateBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await devices.state(callerOf(request).userId, request.body.machineCode)),
  );

  r.get(
    "/api/device/v1/detail",
    { schema: { tags, summary: "Device detail", querystring: deviceIdQuery }, preValidation: auth },
    async (request) => ok(await devices.detail(callerOf(request).userId, request.query.deviceId)),
  );

  r.post(
    "/api/device/v1/detail/page",
    {
      schema: {
        tags,
        summary: "The caller's personal devices in detail, a page at a time",
        body: deviceDetailPageBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body ?? deviceDetailPageBody.parse({});
      const found = await devices.list(callerOf(request).userId, b);
      return ok({ ...found, page: b.page, pageSize: b.pageSize });
    },
  );

  r.get(
    "/api/device/v1/user/role/info",
    {
      schema: { tags, summary: "The caller's identity on a device", querystring: deviceIdQuery },
      preValidation: auth,
    },
    async (request) => ok(await devices.roleInfo(callerOf(request).userId, request.query.deviceId)),
  );

  r.post(
    "/api/operator/v1/devices/provision",
    {
      schema: {
        tags: ["operator"],
        summary: "Issue machine codes (secrets and passwords are shown once)",
        body: provisionBody,
      },
      preValidation: operator,
    },
    async (request) =>
      ok({ list: await devices.provision(request.body.count, request.body.model) }),
  );

  r.post(
    "/api/machine/machineStates",
    {
      schema: {
        tags,
        summary: "Online state of the caller's devices (all, or by machineIds)",
        body: machineStatesBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) => {
      const list = await devices.states(callerOf(request).userId, {
        ids: request.body?.machineIds,
      });
      return ok({ list, total: list.length });
    },
  );
  r.post(
    "/api/machine/getMachineStates",
    {
      schema: {
        tags,
        summary: "Online state of the caller's devices by machine code",
        body: machineCodesBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const list = await devices.states(callerOf(request).userId, {
        codes: request.body.machineCodes,
      });
      return ok({ list, total: list.length });
    },
  );
  r.post(
    "/api/tls/testMachineState",
    {
      schema: {
        tags,
        summary: "State of the device a visit URL (or machine code) points at",
        body: testMachineStateBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await devices.testState(callerOf(request).userId, request.body.testUrl)),
  );
  r.post(
    "/api/machine/machineCloudSwitchState",
    {
      schema: { tags, summary: "Read or turn the cloud switch (Akey)", body: cloudSwitchBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await devices.cloudSwitch(
          callerOf(request).userId,
          b.machineId,
          b.state === undefined ? undefined : b.state === 1,
        ),
      );
    },
  );

  // Groups
  const groupTags = ["groups"];
  r.get(
    "/api/device/v1/userGroup",
    { schema: { tags: groupTags, summary: "The caller's device groups" }, preValidation: auth },
    async (request) => ok(await devices.listGroups(callerOf(request).userId)),
  );
  r.post(
    "/api/device/v1/userGroup",
    {
      schema: { tags: groupTags, summary: "Create a group", body: groupCreateBody },
      preValidation: auth,
    },
    async (request) => ok(await devices.createGroup(callerOf(request).userId, request.body.name)),
  );
  r.put(
    "/api/device/v1/userGroup",
    {
      schema: { tags: groupTags, summary: "Rename a group", body: groupRenameBody },
      preValidation: auth,
    },
    async (request) => {
      await devices.renameGroup(callerOf(request).userId, request.body.id, request.body.name);
      return ok(null);
    },
  );
  r.delete(
    "/api/device/v1/userGroup",
    {
      schema: {
        tags: groupTags,
        summary: "Delete an empty group",
        body: groupDeleteBody.nullish(),
        querystring: groupDeleteBody.partial(),
      },
      preValidation: auth,
    },
    async (request) => {
      // The id may come in the body or, for clients that send no DELETE body, the query.
      const id = request.body?.id ?? request.query.id;
      if (!id) throw AppError.invalid("id", "v.id");
      await devices.deleteGroup(callerOf(request).userId, id);
      return ok(null);
    },
  );
  r.put(
    "/api/device/v1/userGroup/move",
    {
      schema: {
        tags: groupTags,
        summary: "Move devices into a group (0: no group)",
        body: groupMoveBody,
      },
      preValidation: auth,
    },
    async (request) => {
      await devices.moveToGroup(
        callerOf(request).userId,
        request.body.groupId,
        request.body.deviceIds,
      );
      return ok(null);
    },
  );

  // The machine type icon map and its images.
  r.get(
    "/api/internal/v1/icons",
    { schema: { tags, summary: "Machine type icon map" } },
    async () =>
      ok<MachineIconMap>({
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
      }),
  );
  const icons = new Map(
    [...MACHINE_TYPE_ICONS, DEFAULT_MACHINE_ICON].map((i) => [i.id, machineIconSvg(i)]),
  );
  r.get(
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
