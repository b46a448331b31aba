import type {
  AccessKind,
  AccessRequestView,
  AdminEntry,
  AuditStep,
  BlackListEntry,
  ConnectRight,
  ListResult,
  ParsedInputOf,
  ReplyResult,
  ScanCodeResult,
  WhiteListEntry,
} from "@keyway/shared";
import { API, INFO_TYPE, PAGE_SIZE } from "@keyway/shared";
import { request } from "./client.ts";

export type {
  AccessKind,
  AccessRequestView,
  AdminEntry,
  AuditStep,
  BlackListEntry,
  ConnectRight,
  ReplyResult,
  ScanCodeResult,
  WhiteListEntry,
};

export interface AccessRequestPayload {
  machineID: number;
  message: string;
  /** Akey+password mode (check_type 1): the device password grants the request at once. */
  password?: string;
  /** Visits: the requesting terminal (the grant is bound to it). */
  terminalID?: string;
  terminalName?: string;
  /** Binds: the remark the requester gives the device. */
  remarks?: string;
}

export interface ReplyPayload {
  result: ReplyResult;
  message: string;
  /** Visits that are agreed: minutes, -1 forever. */
  visitTime?: number;
}

const a = API.access;

/** Visit and bind requests and their audit (SPEC §7 "Audit and authority"). */
export const accessApi = {
  /** The device behind a machine code and the caller's identity on it. */
  scanCodeCheck: (machineCode: string) => request(a.scanCode, { machineCode }),
  request: (kind: AccessKind, body: AccessRequestPayload) =>
    kind === "visit"
      ? request(a.requestVisit, {
          machineID: body.machineID,
          terminalID: body.terminalID,
          terminalName: body.terminalName,
          message: body.message,
          password: body.password || undefined,
        })
      : request(a.requestBind, {
          machineID: body.machineID,
          remarks: body.remarks ?? "",
          message: body.message,
          password: body.password || undefined,
        }),
  checkMachinePwd: (machineID: number, machinePwd: string) =>
    request(a.checkPassword, { machineID, machinePwd }),
  /** An approver's answer by request id. */
  reply: (kind: AccessKind, requestId: number, body: ReplyPayload) =>
    request(kind === "visit" ? a.visitReply : a.bindReply, { requestId, ...body }),
  /** An approver's answer from the message centre (by message id). */
  verify: (kind: AccessKind, msgId: number, body: ReplyPayload) =>
    request(kind === "visit" ? a.visitVerify : a.bindVerify, { msgId, ...body }),
  /** A request with its steps, by request id or by one of its messages. */
  auditProcess: (query: { requestId?: number; msgId?: number }) => request(a.auditProcess, query),
  checkCloudServiceState: (machineID: number, terminalID: string) =>
    request(a.rights, { machineID, terminalID }),
};

export type AddBkeyPayload = ParsedInputOf<typeof a.addBkey>;
export type TransferPayload = ParsedInputOf<typeof a.transfer>;
export type MachineInfoPayload = ParsedInputOf<typeof a.updateDeviceInfo>;

/** One of the lists of /admin/select: its entries follow `infoType`. */
const select = <T>(machineID: number, infoType: number) =>
  request(a.select, { machineID, infoType, start: 0 }) as Promise<ListResult<T>>;

/** The authority centre of a device (Akey and Bkeys; SPEC §6). */
export const authorityApi = {
  /** Akey, Bkeys, ordinary users and visitors (SPEC §9: page size 500). */
  members: (machineID: number) => select<AdminEntry>(machineID, INFO_TYPE.admins),
  /** Visit grants still valid (SPEC §9: page size 300). */
  validVisits: (machineID: number) => select<WhiteListEntry>(machineID, INFO_TYPE.validVisit),
  blackList: (machineID: number) => select<BlackListEntry>(machineID, INFO_TYPE.blackList),
  /** The white list: every visit grant, newest first (SPEC §9: page size 6). */
  whiteList: (deviceId: number, page: number) =>
    request(a.whiteList, { deviceId, page, pageSize: PAGE_SIZE.whiteList }),
  addBkey: (body: AddBkeyPayload) => request(a.addBkey, body),
  /** limit 2 makes a Bkey, 1 an ordinary user. */
  updateLevel: (body: { id: number; machineID: number; limit: 1 | 2 }) =>
    request(a.updateLevel, body),
  zeroVisitTime: (body: { visitAlidTimeID: number; machineID: number }) =>
    request(a.zeroVisitTime, body),
  /** Minutes (at least 10) or -1 forever. */
  setVisitTime: (body: { visitTimeId: number; machineID: number; visitTime: number }) =>
    request(a.setVisitTime, body),
  deleteVisitTime: (body: { visitTimeId: number; machineID: number }) =>
    request(a.clearVisitTime, body),
  blackListAdd: (body: { machineID: number; userId: number }) => request(a.blacklistAdd, body),
  blackListRemove: (body: { machineID: number; userId: number }) =>
    request(a.blacklistRemove, body),
  removeMember: (body: { machineID: number; id: number }) => request(a.removeMember, body),
  /** 1 read and write, 0 read-only. */
  setWrite: (body: { machineID: number; userId: number; write: 0 | 1 }) =>
    request(a.setWrite, body),
  /** 1 receives alarms, 0 none. */
  setAlarm: (body: { machineID: number; userId: number; alarm: 0 | 1 }) =>
    request(a.setAlarm, body),
  /** Akey only: the audit mode (password needed to switch to 1). */
  updateMachineInfo: (body: MachineInfoPayload) => request(a.updateDeviceInfo, body),
  /** Akey only: hands the device over; the old Akey stays as a Bkey. */
  transfer: (body: TransferPayload) => request(a.transfer, body),
  /** Akey (personal) or enterprise maintainer: confirms every alarm of the device. */
  confirmAlarms: (machineID: number) => request(a.confirmAllAlarms, { machineID }),
};
