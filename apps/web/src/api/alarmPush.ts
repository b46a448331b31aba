import type {
  AlarmContact,
  alarmContactAddBody,
  EmailSendRecord,
  EntMsgConfig,
  entMsgConfigBody,
  ListResult,
  MachineMsgConfig,
  SmsSendRecord,
  SmsStock,
  SmsStockRecord,
  SmsTransferResult,
  setUserMsgConfigBody,
  smsAllocateBody,
  smsSaleBody,
  smsTransferBody,
  UserMsgConfig,
} from "@keyway/shared";
import { PAGE_SIZE } from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";

/**
 * SMS / e-mail alarm pushes (SPEC §7 "SMS and e-mail" and the switch / contact calls of
 * "Alarms"); the contract is packages/shared/src/alarmPush.ts. `eid` 0 is the personal
 * context.
 */

/** A date range of the records, in epoch seconds (SPEC: startTime, endTime). */
export interface TimeRange {
  startTime?: number;
  endTime?: number;
}

export interface RecordQuery extends TimeRange {
  eid: number;
  page: number;
  pageSize?: number;
}

export interface DeviceMsgQuery {
  eid: number;
  blur?: string;
  groupId?: number;
  page: number;
  pageSize: number;
}

export type ContactInput = z.input<typeof alarmContactAddBody>;

export const alarmPushApi = {
  // ---- Configuration ----
  userConfig: (eid: number) => api.get<UserMsgConfig>("/v1/alarm/userMsgConfig", { eid }),
  setUserConfig: (body: z.output<typeof setUserMsgConfigBody>) =>
    api.post<UserMsgConfig>("/v1/alarm/setUserMsgConfig", body),
  entConfig: (eid: number) => api.get<EntMsgConfig>("/msg/v1/ent/userMessage/info", { eid }),
  setEntConfig: (body: z.output<typeof entMsgConfigBody>) =>
    api.put<EntMsgConfig>("/msg/v1/ent/userMessage", body),

  // ---- Stock ----
  /** The caller's own balance in the personal context. */
  personalStock: () => api.get<SmsStock>("/v1/sms/stock"),
  /** A member's balance in an enterprise (absent userId: the caller's). */
  userStock: (eid: number, userId?: number) =>
    api.get<SmsStock>("/msg/v1/ent/sms/user/stock", { eid, userId }),
  /** Every member's balance (admin). */
  stockList: (eid: number) =>
    api.get<ListResult<SmsStock>>("/msg/v1/ent/sms/user/stock/list", { eid }),
  allocate: (body: z.output<typeof smsAllocateBody>) =>
    api.put<SmsStock>("/msg/v1/ent/userMessage/allocate", body),
  transfer: (body: z.output<typeof smsTransferBody>) =>
    api.put<SmsTransferResult>("/msg/v1/ent/userMessage/transfer", body),

  // ---- Per-device SMS switch ----
  devices: (query: DeviceMsgQuery) =>
    api.get<ListResult<MachineMsgConfig>>("/v1/devices/msgConfig", { ...query }),
  setMachineSmsFlag: (eid: number, machineId: number, smsFlag: boolean) =>
    eid === 0
      ? api.post<MachineMsgConfig>("/v1/alarm/setMachineSmsFlag", { machineId, smsFlag })
      : api.put<MachineMsgConfig>("/msg/v1/ent/alarm/setMachineSmsFlag", {
          eid,
          machineId,
          smsFlag,
        }),

  // ---- Alarm contacts ----
  contacts: (eid: number) =>
    eid === 0
      ? api.get<ListResult<AlarmContact>>("/v1/alarm/contact/list", { page: 1, pageSize: 100 })
      : api.get<ListResult<AlarmContact>>("/msg/v1/ent/alarmContact", {
          eid,
          page: 1,
          pageSize: 100,
        }),
  addContact: (eid: number, body: z.output<typeof alarmContactAddBody>) =>
    eid === 0
      ? api.post<AlarmContact>("/v1/alarm/contact/add", body)
      : api.post<AlarmContact>("/msg/v1/ent/alarmContact", { ...body, eid }),
  removeContact: (eid: number, id: number) =>
    eid === 0
      ? api.delete<null>("/v1/alarm/contact/del", { id })
      : api.delete<null>("/msg/v1/ent/alarmContact", { id, eid }),

  // ---- Records (newest first; SPEC §9 SMS logs 10 a page) ----
  sales: (query: RecordQuery) =>
    api.post<ListResult<SmsStockRecord>>("/v1/sms/sale-list", withPageSize(query)),
  allocations: (query: RecordQuery) =>
    api.post<ListResult<SmsStockRecord>>(
      "/msg/v1/ent/sms/log/allocation/page",
      withPageSize(query),
    ),
  /** Sends billed to or addressed for the caller (in the context `eid`). */
  smsLog: (query: RecordQuery) =>
    api.post<ListResult<SmsSendRecord>>("/msg/v1/alarm/sms/page", withPageSize(query)),
  emailLog: (query: RecordQuery) =>
    api.post<ListResult<EmailSendRecord>>("/msg/v1/alarm/email/page", withPageSize(query)),
  /** Every send of the enterprise (admin). */
  entSmsLog: (query: RecordQuery) =>
    api.get<ListResult<SmsSendRecord>>("/msg/v1/ent/alarm/smsLoggerPage", withPageSize(query)),
  entEmailLog: (query: RecordQuery) =>
    api.get<ListResult<EmailSendRecord>>("/msg/v1/ent/alarm/emailLoggerPage", withPageSize(query)),

  // ---- Operator ----
  recordSale: (body: z.output<typeof smsSaleBody>) =>
    api.post<SmsStock>("/operator/v1/sms/sale", body),
  operatorSales: (query: RecordQuery) =>
    api.post<ListResult<SmsStockRecord>>("/operator/v1/sms/sale-list", withPageSize(query)),
};

function withPageSize(query: RecordQuery) {
  return { ...query, pageSize: query.pageSize ?? PAGE_SIZE.smsLogs };
}
