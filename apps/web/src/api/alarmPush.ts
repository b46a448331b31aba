import type {
  alarmContactAddBody,
  entMsgConfigBody,
  setUserMsgConfigBody,
  smsAllocateBody,
  smsSaleBody,
  smsTransferBody,
} from "@keyway/shared";
import { API, PAGE_SIZE } from "@keyway/shared";
import type { z } from "zod";
import { request } from "./client.ts";

const a = API.alarmPush;

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
  userConfig: (eid: number) => request(a.userConfig, { eid }),
  setUserConfig: (body: z.output<typeof setUserMsgConfigBody>) => request(a.setUserConfig, body),
  entConfig: (eid: number) => request(a.entConfig, { eid }),
  setEntConfig: (body: z.output<typeof entMsgConfigBody>) => request(a.setEntConfig, body),

  // ---- Stock ----
  /** The caller's own balance in the personal context. */
  personalStock: () => request(a.personalStock),
  /** A member's balance in an enterprise (absent userId: the caller's). */
  userStock: (eid: number, userId?: number) => request(a.userStock, { eid, userId }),
  /** Every member's balance (admin). */
  stockList: (eid: number) => request(a.stockList, { eid }),
  allocate: (body: z.output<typeof smsAllocateBody>) => request(a.allocate, body),
  transfer: (body: z.output<typeof smsTransferBody>) => request(a.transfer, body),

  // ---- Per-device SMS switch ----
  devices: (query: DeviceMsgQuery) => request(a.devices, { ...query }),
  setMachineSmsFlag: (eid: number, machineId: number, smsFlag: boolean) =>
    eid === 0
      ? request(a.setDeviceSwitch, { machineId, smsFlag })
      : request(a.setEntDeviceSwitch, { eid, machineId, smsFlag }),

  // ---- Alarm contacts ----
  contacts: (eid: number) =>
    eid === 0
      ? request(a.contacts, { page: 1, pageSize: 100 })
      : request(a.entContacts, { eid, page: 1, pageSize: 100 }),
  addContact: (eid: number, body: z.output<typeof alarmContactAddBody>) =>
    eid === 0 ? request(a.addContact, body) : request(a.addEntContact, { ...body, eid }),
  removeContact: (eid: number, id: number) =>
    eid === 0 ? request(a.deleteContact, { id }) : request(a.deleteEntContact, { id, eid }),

  // ---- Records (newest first; SPEC §9 SMS logs 10 a page) ----
  sales: (query: RecordQuery) => request(a.sales, withPageSize(query)),
  allocations: (query: RecordQuery) => request(a.allocations, withPageSize(query)),
  /** Sends billed to or addressed for the caller (in the context `eid`). */
  smsLog: (query: RecordQuery) => request(a.smsLog, withPageSize(query)),
  emailLog: (query: RecordQuery) => request(a.emailLog, withPageSize(query)),
  /** Every send of the enterprise (admin). */
  entSmsLog: (query: RecordQuery) => request(a.entSmsLog, withPageSize(query)),
  entEmailLog: (query: RecordQuery) => request(a.entEmailLog, withPageSize(query)),

  /** Sends per day of the last 30 days, counted in the viewer's time zone (UTC+8 is 480). */
  statistics: (eid: number) =>
    request(a.statistics, { eid, utcOffset: -new Date().getTimezoneOffset() }),

  // ---- Operator ----
  recordSale: (body: z.output<typeof smsSaleBody>) => request(a.recordSale, body),
  operatorSales: (query: RecordQuery) => request(a.allSales, withPageSize(query)),
};

function withPageSize(query: RecordQuery) {
  return { ...query, pageSize: query.pageSize ?? PAGE_SIZE.smsLogs };
}
