import {
  type AccessKind,
  accessMemberRemoveBody,
  addBindBody,
  addVisitBody,
  adminPushBody,
  adminSelectBody,
  auditProcessQuery,
  blackListBody,
  checkCloudServiceBody,
  checkMachinePwdBody,
  INFO_TYPE,
  idField,
  limitAlarmBody,
  limitReadBody,
  PAGE_SIZE,
  replyBody,
  scanCodeCheckBody,
  transferBody,
  updateLevelBody,
  updateMachineInfoBody,
  visitDetailBody,
  visitTimeClearBody,
  visitTimeSetBody,
  zeroVisitTimeBody,
} from "@keyway/shared";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { callerOf } from "../../http/auth.ts";
import { fail, ok } from "../../http/envelope.ts";
import { parseAccountString } from "../accounts/service.ts";
import type { MessageService } from "../messages/service.ts";
import type { AccessService, Actor } from "./service.ts";

/** Requests and password checks guess at something: limit them per address. */
const GUESS_LIMIT = { rateLimit: { max: 20, timeWindow: "1 minute" } };
/**
 * A machine code looked up says whether the device exists, has an owner and which audit mode
 * it uses: the web app asks as a code is typed (debounced, whole codes only), a person a few
 * times a minute; a script walking codes is held per address.
 */
const LOOKUP_LIMIT = { rateLimit: { max: 60, timeWindow: "1 minute" } };

const actorOf = (request: FastifyRequest): Actor => {
  const caller = callerOf(request);
  return { userId: caller.userId, terminalId: caller.terminalId };
};

/** SPEC §7 "Audit and authority": requests, replies, the connect check and the authority centre. */
export function accessRoutes(
  app: FastifyInstance,
  deps: { access: AccessService; messages: MessageService; auth: preHandlerAsyncHookHandler },
) {
  const { access, messages, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["access"];

  r.post(
    "/api/v1/cloudSet/scanCodeCheck",
    {
      schema: { tags, summary: "Look a device up by machine code", body: scanCodeCheckBody },
      preValidation: auth,
      config: LOOKUP_LIMIT,
    },
    async (request) =>
      ok(await access.scanCode(callerOf(request).userId, request.body.machineCode)),
  );

  r.post(
    "/api/v1/audit/addVisit",
    {
      schema: { tags, summary: "Ask to visit a device", body: addVisitBody },
      preValidation: auth,
      config: GUESS_LIMIT,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await access.request("visit", actorOf(request), {
          deviceId: b.machineID,
          message: b.message,
          terminalName: b.terminalName,
          password: b.password,
        }),
      );
    },
  );

  r.post(
    "/api/v1/audit/addBind",
    {
      schema: { tags, summary: "Ask to bind a device", body: addBindBody },
      preValidation: auth,
      config: GUESS_LIMIT,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await access.request("bind", actorOf(request), {
          deviceId: b.machineID,
          message: b.message,
          remarks: b.remarks,
          password: b.password,
        }),
      );
    },
  );

  r.post(
    "/api/v1/audit/checkMachinePwd",
    {
      schema: { tags, summary: "Check a device password", body: checkMachinePwdBody },
      preValidation: auth,
      config: GUESS_LIMIT,
    },
    async (request) =>
      ok(await access.checkPassword(request.body.machineID, request.body.machinePwd)),
  );

  async function answer(request: FastifyRequest, kind: AccessKind, b: z.infer<typeof replyBody>) {
    const requestId =
      b.requestId ?? (await messages.requestOf(callerOf(request).userId, b.msgId as number));
    return ok(
      await access.reply(kind, actorOf(request), {
        requestId,
        result: b.result,
        message: b.message,
        visitTime: b.visitTime,
      }),
    );
  }

  for (const [kind, paths] of [
    ["visit", ["/api/v1/audit/visitReply", "/api/msg/v1/device/visit/verify"]],
    ["bind", ["/api/v1/audit/bindReply", "/api/msg/v1/device/bind/verify"]],
  ] as const) {
    for (const path of paths) {
      r.post(
        path,
        {
          schema: {
            tags,
            summary: `Agree, refuse or black-list a ${kind} request`,
            body: replyBody,
          },
          preValidation: auth,
        },
        async (request) => answer(request, kind, request.body),
      );
    }
  }

  r.get(
    "/api/v1/devices/auditProcess",
    {
      schema: { tags, summary: "The audit process of a request", querystring: auditProcessQuery },
      preValidation: auth,
    },
    async (request) => {
      const q = request.query;
      const userId = callerOf(request).userId;
      const requestId = q.requestId ?? (q.msgId ? await messages.requestOf(userId, q.msgId) : 0);
      if (!requestId) throw fail("REQUEST_NOT_FOUND");
      return ok(await access.auditProcess(userId, requestId));
    },
  );

  r.post(
    "/api/v1/audit/checkCloudServiceState",
    {
      schema: {
        tags,
        summary: "May the caller connect to the device now",
        body: checkCloudServiceBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await access.rights(actorOf(request), request.body.machineID)),
  );

  // ---- Authority centre ----

  r.post(
    "/api/admin/select",
    {
      schema: {
        tags,
        summary: "Members (2), valid visit times (3) or the black list (-1) of a device",
        body: adminSelectBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const { machineID, infoType, start } = request.body;
      const actor = actorOf(request);
      if (infoType === INFO_TYPE.admins) {
        const list = await access.members(actor, machineID);
        const page = list.slice(start, start + PAGE_SIZE.admins);
        return ok({ list: page, total: list.length });
      }
      if (infoType === INFO_TYPE.validVisit)
        return ok(await access.validVisits(actor, machineID, start, PAGE_SIZE.validVisitors));
      return ok(await access.blackList(actor, machineID, start, PAGE_SIZE.admins));
    },
  );

  r.post(
    "/api/admin/alarmMsgSelect",
    {
      schema: {
        tags,
        summary: "Who on the device takes alarms (members with their alarm level)",
        body: z.object({ machineID: idField }),
      },
      preValidation: auth,
    },
    async (request) => {
      const list = (await access.members(actorOf(request), request.body.machineID)).filter(
        (m) => m.role !== "visitor",
      );
      return ok({ list, total: list.length });
    },
  );

  r.post(
    "/api/device/v1/admin/visit/detail/page",
    {
      schema: { tags, summary: "The white list: every visit grant, paged", body: visitDetailBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(await access.whiteList(actorOf(request), b.deviceId, b.page, b.pageSize));
    },
  );

  r.post(
    "/api/admin/push",
    {
      schema: { tags, summary: "Add a Bkey by account", body: adminPushBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      const list = await access.addBkey(
        actorOf(request),
        b.machineID,
        parseAccountString(b.account, b.countryCode),
      );
      return ok({ list, total: list.length });
    },
  );

  r.post(
    "/api/admin/updateLevel",
    {
      schema: {
        tags,
        summary: "Make a member a Bkey (2) or an ordinary user (1)",
        body: updateLevelBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      const list = await access.updateLevel(actorOf(request), b.machineID, b.id, b.limit);
      return ok({ list, total: list.length });
    },
  );

  r.post(
    "/api/admin/zeroVisitTime",
    {
      schema: { tags, summary: "Clear a visit time", body: zeroVisitTimeBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await access.clearVisitTime(actorOf(request), b.machineID, b.visitAlidTimeID);
      return ok(null);
    },
  );

  r.put(
    "/api/device/v1/visit/time",
    {
      schema: { tags, summary: "Set a visit time (minutes, -1 forever)", body: visitTimeSetBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await access.setVisitTime(actorOf(request), b.machineID, b.visitTimeId, b.visitTime);
      return ok(null);
    },
  );

  r.delete(
    "/api/device/v1/visit/time",
    {
      schema: { tags, summary: "Clear a visit time", body: visitTimeClearBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await access.clearVisitTime(actorOf(request), b.machineID, b.visitTimeId);
      return ok(null);
    },
  );

  r.post(
    "/api/admin/blacklist/add",
    {
      schema: { tags, summary: "Put a user on the device's black list", body: blackListBody },
      preValidation: auth,
    },
    async (request) => {
      await access.blacklistAdd(actorOf(request), request.body.machineID, request.body.userId);
      return ok(null);
    },
  );

  r.post(
    "/api/admin/blacklist/remove",
    {
      schema: { tags, summary: "Take a user off the black list", body: blackListBody },
      preValidation: auth,
    },
    async (request) => {
      await access.blacklistRemove(actorOf(request), request.body.machineID, request.body.userId);
      return ok(null);
    },
  );

  r.post(
    "/api/admin/member/remove",
    {
      schema: { tags, summary: "Remove a Bkey, user or visitor", body: accessMemberRemoveBody },
      preValidation: auth,
    },
    async (request) => {
      await access.removeMember(actorOf(request), request.body.machineID, request.body.id);
      return ok(null);
    },
  );

  r.post(
    "/api/machine/limitReadSet",
    {
      schema: { tags, summary: "Read-only (0) or read and write (1)", body: limitReadBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await access.setLevel(actorOf(request), b.machineID, b.userId, { write: b.write === 1 });
      return ok(null);
    },
  );

  r.post(
    "/api/machine/limitAlarmSet",
    {
      schema: { tags, summary: "Alarm (1) or no alarm (0)", body: limitAlarmBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      await access.setLevel(actorOf(request), b.machineID, b.userId, { alarm: b.alarm === 1 });
      return ok(null);
    },
  );

  r.post(
    "/api/cloudSet/updateMachineInfo",
    {
      schema: { tags, summary: "Audit mode and name (Akey only)", body: updateMachineInfoBody },
      preValidation: auth,
      config: GUESS_LIMIT,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await access.updateDeviceInfo(actorOf(request), {
          code: b.machineCode,
          name: b.machineName,
          checkType: b.checkType,
          password: b.password,
        }),
      );
    },
  );

  r.post(
    "/api/machine/transfer",
    {
      schema: {
        tags,
        summary: "Hand the device to another account (Akey only)",
        body: transferBody,
      },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      return ok(
        await access.transfer(
          actorOf(request),
          b.machineID,
          parseAccountString(b.account, b.countryCode),
        ),
      );
    },
  );

  r.post(
    "/api/machine/confirmMacAlarm",
    {
      schema: {
        tags,
        summary: "Confirm all of a device's alarms",
        body: z.object({ machineID: idField }),
      },
      preValidation: auth,
    },
    async (request) => ok(await access.confirmAllAlarms(actorOf(request), request.body.machineID)),
  );
}
