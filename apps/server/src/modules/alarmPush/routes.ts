import { API } from "@keyway/shared";
import { requestLang } from "../../http/lang.ts";
import type { Serve } from "../../http/routes.ts";
import type { AlarmNotifier } from "./notifier.ts";
import type { AlarmPushService } from "./service.ts";

/** SPEC §7 "SMS and e-mail" and the alarm switches and contacts (contract/alarmPush.ts). */
export function alarmPushRoutes(
  serve: Serve,
  { push, notify }: { push: AlarmPushService; notify: AlarmNotifier },
) {
  const a = API.alarmPush;
  // ---- Configuration ----
  serve(a.userConfig, ({ caller, input }) => push.getUserConfig(caller.userId, input.eid));
  serve(a.setUserConfig, ({ caller, input }) => push.setUserConfig(caller.userId, input));
  serve(a.entConfig, ({ caller, input }) => push.getEntConfig(caller.userId, input.eid));
  serve(a.setEntConfig, ({ caller, input }) => push.setEntConfig(caller.userId, input));

  // ---- Stock ----
  serve(a.allocate, ({ caller, input }) => push.allocate(caller.userId, input));
  serve(a.transfer, ({ caller, input }) => push.transfer(caller.userId, input));
  serve(a.userStock, ({ caller, input }) => push.userStock(caller.userId, input.eid, input.userId));
  serve(a.stockList, ({ caller, input }) => push.stockList(caller.userId, input.eid));
  serve(a.personalStock, ({ caller }) => push.personalStock(caller.userId));
  serve(a.recordSale, ({ caller, input }) => push.recordSale(caller.userId, input));
  serve(a.allSales, ({ input }) => push.allSales(input));

  // ---- Per-device switch ----
  serve(a.devices, ({ caller, input }) => push.listDevices(caller.userId, input));
  serve(a.setDeviceSwitch, ({ caller, input }) =>
    push.setDeviceSwitch(caller.userId, { ...input, eid: 0 }),
  );
  serve(a.setEntDeviceSwitch, ({ caller, input }) => push.setDeviceSwitch(caller.userId, input));

  // ---- Contacts ----
  serve(a.addContact, ({ caller, input }) => push.addContact(caller.userId, { ...input, eid: 0 }));
  serve(a.contacts, ({ caller, input }) => push.listContacts(caller.userId, { ...input, eid: 0 }));
  serve(a.deleteContact, ({ caller, input }) =>
    push.deleteContact(caller.userId, { eid: 0, id: input.id }),
  );
  serve(a.addEntContact, ({ caller, input }) => push.addContact(caller.userId, input));
  serve(a.entContacts, ({ caller, input }) => push.listContacts(caller.userId, input));
  serve(a.deleteEntContact, ({ caller, input }) => push.deleteContact(caller.userId, input));

  // ---- Records ----
  serve(a.sales, ({ caller, input }) => push.saleList(caller.userId, input));
  serve(a.allocations, ({ caller, input }) => push.allocationList(caller.userId, input));
  serve(a.smsLog, async ({ caller, input, request }) => {
    if (input.eid > 0) await push.requireMember(caller.userId, input.eid);
    return notify.smsRecords(
      { eid: input.eid, userId: caller.userId },
      input,
      requestLang(request),
    );
  });
  serve(a.emailLog, async ({ caller, input, request }) => {
    if (input.eid > 0) await push.requireMember(caller.userId, input.eid);
    return notify.emailRecords(
      { eid: input.eid, userId: caller.userId },
      input,
      requestLang(request),
    );
  });
  serve(a.statistics, ({ caller, input }) => push.statistics(caller.userId, input));
  serve(a.entSmsLog, async ({ caller, input, request }) => {
    await push.requireAdmin(caller.userId, input.eid);
    return notify.smsRecords({ eid: input.eid }, input, requestLang(request));
  });
  serve(a.entEmailLog, async ({ caller, input, request }) => {
    await push.requireAdmin(caller.userId, input.eid);
    return notify.emailRecords({ eid: input.eid }, input, requestLang(request));
  });
}
