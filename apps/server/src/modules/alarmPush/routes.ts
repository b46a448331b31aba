import {
  alarmContactAddBody,
  alarmContactDelBody,
  alarmContactListQuery,
  entAlarmContactAddBody,
  entAlarmContactDelBody,
  entAlarmContactListQuery,
  entEidQuery,
  entMsgConfigBody,
  entSetMachineSmsFlagBody,
  msgConfigDevicesQuery,
  pushStatsBody,
  sendRecordPageBody,
  sendRecordPageQuery,
  setMachineSmsFlagBody,
  setUserMsgConfigBody,
  smsAllocateBody,
  smsRecordPageBody,
  smsSaleBody,
  smsTransferBody,
  smsUserStockQuery,
  userMsgConfigQuery,
} from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { AppError, ok } from "../../http/envelope.ts";
import { requestLang } from "../../http/lang.ts";
import type { AlarmNotifier } from "../alarmNotify/service.ts";
import type { AlarmPushService } from "./service.ts";

/**
 * SPEC §7 "SMS and e-mail" and the alarm switch / contact calls of "Alarms"; the contract
 * (paths → schemas → answers) is listed at the top of packages/shared/src/alarmPush.ts.
 */
export function alarmPushRoutes(
  app: FastifyInstance,
  deps: {
    push: AlarmPushService;
    notify: AlarmNotifier;
    auth: preHandlerAsyncHookHandler;
    operator: preHandlerAsyncHookHandler;
  },
) {
  const { push, notify, auth, operator } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["alarm pushes"];
  const me = (request: Parameters<typeof callerOf>[0]) => callerOf(request).userId;

  // ---- Configuration ----
  r.get(
    "/api/v1/alarm/userMsgConfig",
    {
      schema: {
        tags,
        summary: "The caller's SMS / e-mail configuration",
        querystring: userMsgConfigQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.getUserConfig(me(request), request.query.eid)),
  );
  r.post(
    "/api/v1/alarm/setUserMsgConfig",
    {
      schema: {
        tags,
        summary: "Set the caller's switches and daily caps",
        body: setUserMsgConfigBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.setUserConfig(me(request), request.body)),
  );
  r.get(
    "/api/msg/v1/ent/userMessage/info",
    {
      schema: {
        tags,
        summary: "An enterprise's SMS / e-mail configuration",
        querystring: entEidQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.getEntConfig(me(request), request.query.eid)),
  );
  r.put(
    "/api/msg/v1/ent/userMessage",
    {
      schema: {
        tags,
        summary: "Set an enterprise's configuration (admin)",
        body: entMsgConfigBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.setEntConfig(me(request), request.body)),
  );

  // ---- Stock ----
  r.put(
    "/api/msg/v1/ent/userMessage/allocate",
    {
      schema: {
        tags,
        summary: "Allocate SMS from the enterprise pool to a member (admin)",
        body: smsAllocateBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.allocate(me(request), request.body)),
  );
  r.put(
    "/api/msg/v1/ent/userMessage/transfer",
    {
      schema: { tags, summary: "Transfer SMS between members (admin)", body: smsTransferBody },
      preValidation: auth,
    },
    async (request) => ok(await push.transfer(me(request), request.body)),
  );
  r.get(
    "/api/msg/v1/ent/sms/user/stock",
    {
      schema: { tags, summary: "A member's SMS stock", querystring: smsUserStockQuery },
      preValidation: auth,
    },
    async (request) =>
      ok(await push.userStock(me(request), request.query.eid, request.query.userId)),
  );
  r.get(
    "/api/msg/v1/ent/sms/user/stock/list",
    {
      schema: { tags, summary: "Every member's SMS stock (admin)", querystring: entEidQuery },
      preValidation: auth,
    },
    async (request) => ok(await push.stockList(me(request), request.query.eid)),
  );
  r.get(
    "/api/v1/sms/stock",
    { schema: { tags, summary: "The caller's personal SMS stock" }, preValidation: auth },
    async (request) => ok(await push.personalStock(me(request))),
  );
  r.post(
    "/api/operator/v1/sms/sale",
    {
      schema: { tags: ["operator"], summary: "Record an SMS sale", body: smsSaleBody },
      preValidation: operator,
    },
    async (request) => ok(await push.recordSale(me(request), request.body)),
  );
  r.post(
    "/api/operator/v1/sms/sale-list",
    {
      schema: { tags: ["operator"], summary: "Every SMS sale", body: smsRecordPageBody },
      preValidation: operator,
    },
    async (request) => ok(await push.allSales(request.body)),
  );

  // ---- Per-device switch ----
  r.get(
    "/api/v1/devices/msgConfig",
    {
      schema: {
        tags,
        summary: "Devices with their SMS switch",
        querystring: msgConfigDevicesQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.listDevices(me(request), request.query)),
  );
  r.post(
    "/api/v1/alarm/setMachineSmsFlag",
    {
      schema: { tags, summary: "Personal per-device SMS switch", body: setMachineSmsFlagBody },
      preValidation: auth,
    },
    async (request) => ok(await push.setDeviceSwitch(me(request), { ...request.body, eid: 0 })),
  );
  r.put(
    "/api/msg/v1/ent/alarm/setMachineSmsFlag",
    {
      schema: {
        tags,
        summary: "Enterprise per-device SMS switch (admin)",
        body: entSetMachineSmsFlagBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.setDeviceSwitch(me(request), request.body)),
  );

  // ---- Contacts ----
  r.post(
    "/api/v1/alarm/contact/add",
    {
      schema: { tags, summary: "Add an alarm phone or mail receiver", body: alarmContactAddBody },
      preValidation: auth,
    },
    async (request) => ok(await push.addContact(me(request), { ...request.body, eid: 0 })),
  );
  r.get(
    "/api/v1/alarm/contact/list",
    {
      schema: { tags, summary: "The caller's alarm contacts", querystring: alarmContactListQuery },
      preValidation: auth,
    },
    async (request) => ok(await push.listContacts(me(request), { ...request.query, eid: 0 })),
  );
  r.delete(
    "/api/v1/alarm/contact/del",
    {
      schema: {
        tags,
        summary: "Delete an alarm contact",
        body: alarmContactDelBody.nullish(),
        querystring: alarmContactDelBody.partial(),
      },
      preValidation: auth,
    },
    async (request) => {
      const parsed = alarmContactDelBody.safeParse({ id: request.body?.id ?? request.query.id });
      if (!parsed.success) throw AppError.invalid("id", "v.id");
      await push.deleteContact(me(request), { eid: 0, id: parsed.data.id });
      return ok(null);
    },
  );
  r.post(
    "/api/msg/v1/ent/alarmContact",
    {
      schema: {
        tags,
        summary: "Add an enterprise alarm contact (admin)",
        body: entAlarmContactAddBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.addContact(me(request), request.body)),
  );
  r.get(
    "/api/msg/v1/ent/alarmContact",
    {
      schema: {
        tags,
        summary: "An enterprise's alarm contacts",
        querystring: entAlarmContactListQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.listContacts(me(request), request.query)),
  );
  r.delete(
    "/api/msg/v1/ent/alarmContact",
    {
      schema: {
        tags,
        summary: "Delete an enterprise alarm contact (admin)",
        body: entAlarmContactDelBody.nullish(),
        querystring: entAlarmContactDelBody.partial(),
      },
      preValidation: auth,
    },
    async (request) => {
      const parsed = entAlarmContactDelBody.safeParse({
        id: request.body?.id ?? request.query.id,
        eid: request.body?.eid ?? request.query.eid,
      });
      if (!parsed.success)
        throw AppError.invalid(String(parsed.error.issues[0]?.path[0] ?? "id"), "v.id");
      await push.deleteContact(me(request), parsed.data);
      return ok(null);
    },
  );

  // ---- Records ----
  r.post(
    "/api/v1/sms/sale-list",
    { schema: { tags, summary: "SMS sales", body: smsRecordPageBody }, preValidation: auth },
    async (request) => ok(await push.saleList(me(request), request.body)),
  );
  r.post(
    "/api/msg/v1/ent/sms/log/allocation/page",
    {
      schema: { tags, summary: "Allocations and transfers", body: smsRecordPageBody },
      preValidation: auth,
    },
    async (request) => ok(await push.allocationList(me(request), request.body)),
  );
  r.post(
    "/api/msg/v1/alarm/sms/page",
    {
      schema: { tags, summary: "Alarm SMS sent for the caller", body: sendRecordPageBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      if (b.eid > 0) await push.requireMember(me(request), b.eid);
      return ok(
        await notify.smsRecords({ eid: b.eid, userId: me(request) }, b, requestLang(request)),
      );
    },
  );
  r.post(
    "/api/msg/v1/alarm/email/page",
    {
      schema: { tags, summary: "Alarm e-mails sent for the caller", body: sendRecordPageBody },
      preValidation: auth,
    },
    async (request) => {
      const b = request.body;
      if (b.eid > 0) await push.requireMember(me(request), b.eid);
      return ok(
        await notify.emailRecords({ eid: b.eid, userId: me(request) }, b, requestLang(request)),
      );
    },
  );
  r.post(
    "/api/v1/alarm/push/statistics",
    {
      schema: {
        tags,
        summary: "Sends per day (SMS / e-mail, sent / not sent) and SMS stock used, last 30 days",
        body: pushStatsBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await push.statistics(me(request), request.body)),
  );
  r.get(
    "/api/msg/v1/ent/alarm/smsLoggerPage",
    {
      schema: {
        tags,
        summary: "An enterprise's alarm SMS (admin)",
        querystring: sendRecordPageQuery,
      },
      preValidation: auth,
    },
    async (request) => {
      await push.requireAdmin(me(request), request.query.eid);
      return ok(
        await notify.smsRecords({ eid: request.query.eid }, request.query, requestLang(request)),
      );
    },
  );
  r.get(
    "/api/msg/v1/ent/alarm/emailLoggerPage",
    {
      schema: {
        tags,
        summary: "An enterprise's alarm e-mails (admin)",
        querystring: sendRecordPageQuery,
      },
      preValidation: auth,
    },
    async (request) => {
      await push.requireAdmin(me(request), request.query.eid);
      return ok(
        await notify.emailRecords({ eid: request.query.eid }, request.query, requestLang(request)),
      );
    },
  );
}
