import {
  brandSettingsBody,
  eidBody,
  enterpriseCreateBody,
  enterpriseDeviceAssignBody,
  enterpriseDeviceListBody,
  enterpriseDeviceRemoveBody,
  enterpriseMachineBody,
  enterpriseProjectBody,
  groupNameField,
  idOrZeroField,
  maintenanceRemarkBody,
  memberAddBody,
  memberRemoveBody,
  registryQuery,
  userEnterpriseCreateBody,
} from "@keyway/shared";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import { parseAccountString } from "../accounts/service.ts";
import type { EnterpriseService, ListType, Viewer } from "./service.ts";

const viewerOf = (request: FastifyRequest): Viewer => {
  const caller = callerOf(request);
  return { userId: caller.userId, role: caller.role };
};

const eidQuery = z.object({ eid: eidBody.shape.eid });
const adminDevicesQuery = eidQuery.extend({
  type: z.coerce.number().int().min(1).max(2).default(1),
});

/** SPEC §7 "Enterprise", the enterprise admin centre and the operator's enterprise calls. */
export function enterpriseRoutes(
  app: FastifyInstance,
  deps: { enterprises: EnterpriseService; auth: preHandlerAsyncHookHandler },
) {
  const { enterprises, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["enterprises"];

  r.post(
    "/api/enterprises/userEnterpriseList",
    { schema: { tags, summary: "Enterprises the caller belongs to" }, preValidation: auth },
    async (request) => {
      const list = await enterprises.listForUser(callerOf(request).userId);
      return ok({ list, total: list.length });
    },
  );

  for (const path of [
    "/api/enterprises/enterpriseDeviceList",
    "/eapi/ent/c/manager/device/group/devicelist",
  ]) {
    r.post(
      path,
      {
        schema: {
          tags,
          summary: "Enterprise (type 1) or maintenance (type 2) devices",
          body: enterpriseDeviceListBody,
        },
        preValidation: auth,
      },
      async (request) => {
        const b = request.body;
        return ok(
          await enterprises.deviceList(viewerOf(request), {
            eid: b.eid,
            type: b.type as ListType,
            groupId: b.groupId,
            search: b.search,
            page: b.page,
            pageSize: b.pageSize,
          }),
        );
      },
    );
  }

  for (const path of ["/api/enterprises/getAllGroup", "/eapi/ent/c/manager/device/group/all"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "The enterprise's device groups", body: eidBody },
        preValidation: auth,
      },
      async (request) => ok(await enterprises.groups(viewerOf(request), request.body.eid)),
    );
  }

  r.post(
    "/eapi/ent/c/manager/maintain/getteammember",
    {
      schema: { tags, summary: "The enterprise's maintenance team", body: eidBody },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.maintenanceTeam(viewerOf(request), request.body.eid)),
  );

  r.post(
    "/api/enterprises/enterprisePermission",
    {
      schema: { tags, summary: "The caller's rights in an enterprise", body: eidBody },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.permission(viewerOf(request), request.body.eid)),
  );

  for (const path of ["/api/enterprises/machineInfo", "/api/enterprises/machineBaseInfo"]) {
    r.post(
      path,
      {
        schema: { tags, summary: "A device of the enterprise", body: enterpriseMachineBody },
        preValidation: auth,
      },
      async (request) =>
        ok(
          await enterprises.machineInfo(
            viewerOf(request),
            request.body.eid,
            request.body.machineId,
          ),
        ),
    );
  }

  r.post(
    "/api/enterprises/machinePersonnel",
    {
      schema: { tags, summary: "Enterprise members who see a device", body: enterpriseMachineBody },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await enterprises.machinePersonnel(
          viewerOf(request),
          request.body.eid,
          request.body.machineId,
          "member",
        ),
      ),
  );
  r.post(
    "/api/enterprises/machineMaintenancePersonnel",
    {
      schema: {
        tags,
        summary: "Maintenance members who see a device",
        body: enterpriseMachineBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await enterprises.machinePersonnel(
          viewerOf(request),
          request.body.eid,
          request.body.machineId,
          "maintenance",
        ),
      ),
  );

  r.post(
    "/api/enterprises/UpdateMaintenanceRemark",
    {
      schema: { tags, summary: "Set a maintenance device's remark", body: maintenanceRemarkBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await enterprises.updateMaintenanceRemark(viewerOf(request), b.eid, b.machineId, b.remark);
      return ok(null);
    },
  );

  r.get(
    "/api/entportal/v1/enterprise/info",
    { schema: { tags, summary: "Enterprise record", querystring: eidQuery }, preValidation: auth },
    async (request) => ok(await enterprises.info(viewerOf(request), request.query.eid)),
  );

  // The logo lookup is open: an enterprise-branded login page needs it before login.
  for (const path of ["/eapi/o/getlogo", "/api/enterprises/getLogo"]) {
    const schema = { tags, summary: "Enterprise name, platform name and logo" };
    r.get(path, { schema: { ...schema, querystring: eidQuery } }, async (request) =>
      ok(await enterprises.logo(request.query.eid)),
    );
    r.post(path, { schema: { ...schema, body: eidBody } }, async (request) =>
      ok(await enterprises.logo(request.body.eid)),
    );
  }

  // ---- Enterprises users create (unless their brand's operator turned it off) ----
  r.get(
    "/api/enterprises/v1/creation",
    {
      schema: {
        tags,
        summary: "Whether the caller may create an enterprise, and how many they created",
      },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.creation(callerOf(request).userId)),
  );
  r.post(
    "/api/enterprises/v1/create",
    {
      schema: {
        tags,
        summary: "Create an enterprise of one's own (the caller becomes its admin)",
        body: userEnterpriseCreateBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.createOwn(viewerOf(request), request.body)),
  );

  // ---- Enterprise administration (operator or enterprise admin) ----
  const adminTags = ["enterprise admin"];
  r.put(
    "/api/enterprises/v1/admin/project",
    {
      schema: {
        tags: adminTags,
        summary: "Switch projects on or off (operator; admins of a user-created enterprise)",
        body: enterpriseProjectBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await enterprises.setProject(
          viewerOf(request),
          request.body.eid,
          request.body.enableProject === 1,
        ),
      ),
  );
  r.get(
    "/api/enterprises/v1/admin/members",
    {
      schema: { tags: adminTags, summary: "Members of an enterprise", querystring: eidQuery },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.listMembers(viewerOf(request), request.query.eid)),
  );
  r.post(
    "/api/enterprises/v1/admin/members",
    {
      schema: { tags: adminTags, summary: "Add a member by account", body: memberAddBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await enterprises.addMember(viewerOf(request), {
        eid: b.eid,
        account: parseAccountString(b.account, b.countryCode),
        kind: b.kind,
        isAdmin: b.isAdmin === 1,
      });
      return ok(null);
    },
  );
  r.delete(
    "/api/enterprises/v1/admin/members",
    {
      schema: { tags: adminTags, summary: "Remove a member", body: memberRemoveBody },
      preValidation: auth,
    },
    async (request) => {
      await enterprises.removeMember(viewerOf(request), request.body);
      return ok(null);
    },
  );
  r.get(
    "/api/enterprises/v1/admin/devices",
    {
      schema: {
        tags: adminTags,
        summary: "Devices of an enterprise",
        querystring: adminDevicesQuery,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await enterprises.adminDevices(
          viewerOf(request),
          request.query.eid,
          request.query.type as ListType,
        ),
      ),
  );
  r.post(
    "/api/enterprises/v1/admin/devices",
    {
      schema: {
        tags: adminTags,
        summary: "Assign a device to an enterprise (operator)",
        body: enterpriseDeviceAssignBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await enterprises.assignDevice(viewerOf(request), {
          eid: b.eid,
          code: b.machineCode,
          type: b.type as ListType,
        }),
      );
    },
  );
  r.delete(
    "/api/enterprises/v1/admin/devices",
    {
      schema: {
        tags: adminTags,
        summary: "Take a device from an enterprise (operator)",
        body: enterpriseDeviceRemoveBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await enterprises.removeDevice(viewerOf(request), {
        eid: b.eid,
        deviceId: b.machineId,
        type: b.type as ListType,
      });
      return ok(null);
    },
  );

  const groupBody = z.object({ eid: eidBody.shape.eid, name: groupNameField });
  const groupIdBody = z.object({ eid: eidBody.shape.eid, id: eidBody.shape.eid });
  const deviceGroupBody = enterpriseDeviceRemoveBody.extend({
    groupId: idOrZeroField,
  });
  r.post(
    "/api/enterprises/v1/admin/groups",
    {
      schema: { tags: adminTags, summary: "Create an enterprise device group", body: groupBody },
      preValidation: auth,
    },
    async (request) =>
      ok(await enterprises.createGroup(viewerOf(request), request.body.eid, request.body.name)),
  );
  r.delete(
    "/api/enterprises/v1/admin/groups",
    {
      schema: { tags: adminTags, summary: "Delete an empty enterprise group", body: groupIdBody },
      preValidation: auth,
    },
    async (request) => {
      await enterprises.deleteGroup(viewerOf(request), request.body.eid, request.body.id);
      return ok(null);
    },
  );
  r.put(
    "/api/enterprises/v1/admin/devices/group",
    {
      schema: {
        tags: adminTags,
        summary: "Put an enterprise device in a group (0: none)",
        body: deviceGroupBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await enterprises.setDeviceGroup(viewerOf(request), {
        eid: b.eid,
        deviceId: b.machineId,
        type: b.type as ListType,
        groupId: b.groupId,
      });
      return ok(null);
    },
  );

  // ---- Operator back-office ----
  const operatorTags = ["operator"];
  r.get(
    "/api/operator/v1/enterprises",
    {
      schema: { tags: operatorTags, summary: "All enterprises", querystring: registryQuery },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.listAll(viewerOf(request), request.query)),
  );
  r.post(
    "/api/operator/v1/enterprises",
    {
      schema: { tags: operatorTags, summary: "Create an enterprise", body: enterpriseCreateBody },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.create(viewerOf(request), request.body)),
  );
  r.get(
    "/api/operator/v1/brandSettings",
    {
      schema: { tags: operatorTags, summary: "The operator's switches per brand" },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.brandSettingsList(viewerOf(request))),
  );
  r.put(
    "/api/operator/v1/brandSettings",
    {
      schema: {
        tags: operatorTags,
        summary: "Set a brand's switches (userEnterprises: its users may create enterprises)",
        body: brandSettingsBody,
      },
      preValidation: auth,
    },
    async (request) => {
      await enterprises.setBrandSettings(viewerOf(request), request.body);
      return ok(null);
    },
  );
  r.get(
    "/api/operator/v1/devices",
    {
      schema: { tags: operatorTags, summary: "The device registry", querystring: registryQuery },
      preValidation: auth,
    },
    async (request) => ok(await enterprises.registry(viewerOf(request), request.query)),
  );
}
