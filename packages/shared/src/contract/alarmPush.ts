import type { ListResult } from "../accounts.ts";
import {
  type AlarmContact,
  alarmContactAddBody,
  alarmContactDelBody,
  alarmContactListQuery,
  type EmailSendRecord,
  type EntMsgConfig,
  entAlarmContactAddBody,
  entAlarmContactDelBody,
  entAlarmContactListQuery,
  entEidQuery,
  entMsgConfigBody,
  entSetMachineSmsFlagBody,
  type MachineMsgConfig,
  msgConfigDevicesQuery,
  type SmsSendRecord,
  type SmsStock,
  type SmsStockRecord,
  type SmsTransferResult,
  sendRecordPageBody,
  sendRecordPageQuery,
  setMachineSmsFlagBody,
  setUserMsgConfigBody,
  smsAllocateBody,
  smsRecordPageBody,
  smsSaleBody,
  smsTransferBody,
  smsUserStockQuery,
  type UserMsgConfig,
  userMsgConfigQuery,
} from "../alarmPush.ts";
import { type PushStats, pushStatsBody } from "../pushStats.ts";
import { group, route } from "./route.ts";

/**
 * SPEC §7 "SMS and e-mail" and the alarm switch / contact calls of "Alarms". `eid` 0 is the
 * personal context; "admin" is an admin of that enterprise (others get 06010201). All are
 * SMS / alarm calls in SPEC §8's sense.
 */
export const alarmPush = group(
  { auth: "user", tags: ["alarm pushes"], smsAlarm: true },
  {
    // ---- Configuration ----
    userConfig: route<UserMsgConfig>()({
      method: "GET",
      path: "/api/v1/alarm/userMsgConfig",
      summary: "The caller's SMS / e-mail configuration",
      input: userMsgConfigQuery,
    }),
    setUserConfig: route<UserMsgConfig>()({
      method: "POST",
      path: "/api/v1/alarm/setUserMsgConfig",
      summary: "Set the caller's switches and daily caps",
      input: setUserMsgConfigBody,
    }),
    entConfig: route<EntMsgConfig>()({
      method: "GET",
      path: "/api/msg/v1/ent/userMessage/info",
      summary: "An enterprise's SMS / e-mail configuration (any member)",
      input: entEidQuery,
    }),
    setEntConfig: route<EntMsgConfig>()({
      method: "PUT",
      path: "/api/msg/v1/ent/userMessage",
      summary: "Set an enterprise's configuration (admin)",
      input: entMsgConfigBody,
    }),

    // ---- Stock ----
    allocate: route<SmsStock>()({
      method: "PUT",
      path: "/api/msg/v1/ent/userMessage/allocate",
      summary: "Allocate SMS from the enterprise pool to a member (admin)",
      input: smsAllocateBody,
    }),
    transfer: route<SmsTransferResult>()({
      method: "PUT",
      path: "/api/msg/v1/ent/userMessage/transfer",
      summary: "Transfer SMS between members (admin)",
      input: smsTransferBody,
    }),
    userStock: route<SmsStock>()({
      method: "GET",
      path: "/api/msg/v1/ent/sms/user/stock",
      summary: "A member's SMS stock (no userId: the caller's; another member's: admin)",
      input: smsUserStockQuery,
    }),
    stockList: route<ListResult<SmsStock>>()({
      method: "GET",
      path: "/api/msg/v1/ent/sms/user/stock/list",
      summary: "Every member's SMS stock (admin)",
      input: entEidQuery,
    }),
    personalStock: route<SmsStock>()({
      method: "GET",
      path: "/api/v1/sms/stock",
      summary: "The caller's personal SMS stock",
    }),
    recordSale: route<SmsStock>()({
      method: "POST",
      path: "/api/operator/v1/sms/sale",
      summary: "Record an SMS sale to an enterprise pool or a user (operator)",
      input: smsSaleBody,
      auth: "operator",
    }),
    allSales: route<ListResult<SmsStockRecord>>()({
      method: "POST",
      path: "/api/operator/v1/sms/sale-list",
      summary: "Every SMS sale (operator)",
      input: smsRecordPageBody,
      auth: "operator",
    }),

    // ---- Per-device SMS switch ----
    devices: route<ListResult<MachineMsgConfig>>()({
      method: "GET",
      path: "/api/v1/devices/msgConfig",
      summary: "Devices with their SMS switch (eid 0: personal, else the enterprise's)",
      input: msgConfigDevicesQuery,
    }),
    setDeviceSwitch: route<MachineMsgConfig>()({
      method: "POST",
      path: "/api/v1/alarm/setMachineSmsFlag",
      summary: "Personal per-device SMS switch",
      input: setMachineSmsFlagBody,
    }),
    setEntDeviceSwitch: route<MachineMsgConfig>()({
      method: "PUT",
      path: "/api/msg/v1/ent/alarm/setMachineSmsFlag",
      summary: "Enterprise per-device SMS switch (admin)",
      input: entSetMachineSmsFlagBody,
    }),

    // ---- Alarm contacts: extra phones and mail receivers ----
    addContact: route<AlarmContact>()({
      method: "POST",
      path: "/api/v1/alarm/contact/add",
      summary: "Add an alarm phone or mail receiver",
      input: alarmContactAddBody,
    }),
    contacts: route<ListResult<AlarmContact>>()({
      method: "GET",
      path: "/api/v1/alarm/contact/list",
      summary: "The caller's alarm contacts",
      input: alarmContactListQuery,
    }),
    deleteContact: route()({
      method: "DELETE",
      path: "/api/v1/alarm/contact/del",
      summary: "Delete an alarm contact (id in the body or the query)",
      input: alarmContactDelBody,
      bodyOrQuery: true,
    }),
    addEntContact: route<AlarmContact>()({
      method: "POST",
      path: "/api/msg/v1/ent/alarmContact",
      summary: "Add an enterprise alarm contact (admin)",
      input: entAlarmContactAddBody,
    }),
    entContacts: route<ListResult<AlarmContact>>()({
      method: "GET",
      path: "/api/msg/v1/ent/alarmContact",
      summary: "An enterprise's alarm contacts (member)",
      input: entAlarmContactListQuery,
    }),
    deleteEntContact: route()({
      method: "DELETE",
      path: "/api/msg/v1/ent/alarmContact",
      summary: "Delete an enterprise alarm contact (admin; fields in the body or the query)",
      input: entAlarmContactDelBody,
      bodyOrQuery: true,
    }),

    // ---- Records (newest first; SPEC §9 SMS logs 10 a page) ----
    sales: route<ListResult<SmsStockRecord>>()({
      method: "POST",
      path: "/api/v1/sms/sale-list",
      summary: "SMS sales (eid > 0: the enterprise's, admin; eid 0: sales to the caller)",
      input: smsRecordPageBody,
    }),
    allocations: route<ListResult<SmsStockRecord>>()({
      method: "POST",
      path: "/api/msg/v1/ent/sms/log/allocation/page",
      summary: "Allocations and transfers (eid > 0, admin)",
      input: smsRecordPageBody,
    }),
    smsLog: route<ListResult<SmsSendRecord>>()({
      method: "POST",
      path: "/api/msg/v1/alarm/sms/page",
      summary: "Alarm SMS sent for the caller",
      input: sendRecordPageBody,
    }),
    emailLog: route<ListResult<EmailSendRecord>>()({
      method: "POST",
      path: "/api/msg/v1/alarm/email/page",
      summary: "Alarm e-mails sent for the caller",
      input: sendRecordPageBody,
    }),
    statistics: route<PushStats>()({
      method: "POST",
      path: "/api/v1/alarm/push/statistics",
      summary: "Sends per day (SMS / e-mail, sent / not sent) and SMS stock used, last 30 days",
      input: pushStatsBody,
    }),
    entSmsLog: route<ListResult<SmsSendRecord>>()({
      method: "GET",
      path: "/api/msg/v1/ent/alarm/smsLoggerPage",
      summary: "An enterprise's alarm SMS (admin)",
      input: sendRecordPageQuery,
    }),
    entEmailLog: route<ListResult<EmailSendRecord>>()({
      method: "GET",
      path: "/api/msg/v1/ent/alarm/emailLoggerPage",
      summary: "An enterprise's alarm e-mails (admin)",
      input: sendRecordPageQuery,
    }),
  },
);
