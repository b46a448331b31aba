import { API, type ReplyOf } from "@keyway/shared";
import type { Handler, Serve } from "../../http/routes.ts";
import { parseAccountString } from "../accounts/service.ts";
import type { EnterpriseService, ListType } from "./service.ts";

/** SPEC §7 "Enterprise", the enterprise admin centre and the operator's enterprise calls. */
export function enterpriseRoutes(
  serve: Serve,
  { enterprises }: { enterprises: EnterpriseService },
) {
  const e = API.enterprises;
  const deviceList: Handler<typeof e.deviceList> = ({ caller, input }) =>
    enterprises.deviceList(caller, {
      eid: input.eid,
      type: input.type as ListType,
      groupId: input.groupId,
      search: input.search,
      page: input.page,
      pageSize: input.pageSize,
    });
  const groups: Handler<typeof e.groups> = ({ caller, input }) =>
    enterprises.groups(caller, input.eid);
  const machineInfo: Handler<typeof e.machineInfo> = ({ caller, input }) =>
    enterprises.machineInfo(caller, input.eid, input.machineId);
  const logo: Handler<typeof e.logo | typeof e.logoByPost> = ({ input }) =>
    enterprises.logo(input.eid);

  serve(e.listForUser, async ({ caller }) => {
    const list = await enterprises.listForUser(caller.userId);
    return { list, total: list.length };
  });
  serve(e.deviceList, deviceList);
  serve(e.portalDeviceList, deviceList);
  serve(e.groups, groups);
  serve(e.portalGroups, groups);
  serve(e.maintenanceTeam, ({ caller, input }) => enterprises.maintenanceTeam(caller, input.eid));
  serve(
    e.permission,
    // The service answers isAdmin and enableProject as 1 or 0; its inferred type is only number.
    async ({ caller, input }) =>
      (await enterprises.permission(caller, input.eid)) as ReplyOf<typeof e.permission>,
  );
  serve(e.machineInfo, machineInfo);
  serve(e.machineBaseInfo, machineInfo);
  serve(e.machinePersonnel, ({ caller, input }) =>
    enterprises.machinePersonnel(caller, input.eid, input.machineId, "member"),
  );
  serve(e.machineMaintenancePersonnel, ({ caller, input }) =>
    enterprises.machinePersonnel(caller, input.eid, input.machineId, "maintenance"),
  );
  serve(e.updateMaintenanceRemark, ({ caller, input }) =>
    enterprises.updateMaintenanceRemark(caller, input.eid, input.machineId, input.remark),
  );
  serve(e.info, ({ caller, input }) => enterprises.info(caller, input.eid));
  serve(e.logo, logo);
  serve(e.logoByPost, logo);
  serve(e.apiLogo, logo);
  serve(e.apiLogoByPost, logo);

  // ---- Enterprises users create (unless their brand's operator turned it off) ----
  serve(e.creation, ({ caller }) => enterprises.creation(caller.userId));
  serve(e.createOwn, ({ caller, input }) => enterprises.createOwn(caller, input));

  // ---- Enterprise administration (operator or enterprise admin) ----
  serve(e.setProject, ({ caller, input }) =>
    enterprises.setProject(caller, input.eid, input.enableProject === 1),
  );
  serve(e.members, ({ caller, input }) => enterprises.listMembers(caller, input.eid));
  serve(e.addMember, ({ caller, input }) =>
    enterprises.addMember(caller, {
      eid: input.eid,
      account: parseAccountString(input.account, input.countryCode),
      kind: input.kind,
      isAdmin: input.isAdmin === 1,
    }),
  );
  serve(e.removeMember, ({ caller, input }) => enterprises.removeMember(caller, input));
  serve(e.adminDevices, ({ caller, input }) =>
    enterprises.adminDevices(caller, input.eid, input.type as ListType),
  );
  serve(e.assignDevice, ({ caller, input }) =>
    enterprises.assignDevice(caller, {
      eid: input.eid,
      code: input.machineCode,
      type: input.type as ListType,
    }),
  );
  serve(e.removeDevice, ({ caller, input }) =>
    enterprises.removeDevice(caller, {
      eid: input.eid,
      deviceId: input.machineId,
      type: input.type as ListType,
    }),
  );
  serve(e.createGroup, ({ caller, input }) =>
    enterprises.createGroup(caller, input.eid, input.name),
  );
  serve(e.deleteGroup, ({ caller, input }) => enterprises.deleteGroup(caller, input.eid, input.id));
  serve(e.setDeviceGroup, ({ caller, input }) =>
    enterprises.setDeviceGroup(caller, {
      eid: input.eid,
      deviceId: input.machineId,
      type: input.type as ListType,
      groupId: input.groupId,
    }),
  );

  // ---- Operator back-office ----
  serve(e.listAll, ({ caller, input }) => enterprises.listAll(caller, input));
  serve(e.create, ({ caller, input }) => enterprises.create(caller, input));
  serve(e.brandSettings, ({ caller }) => enterprises.brandSettingsList(caller));
  serve(e.setBrandSettings, ({ caller, input }) => enterprises.setBrandSettings(caller, input));
  serve(e.registry, ({ caller, input }) => enterprises.registry(caller, input));
}
