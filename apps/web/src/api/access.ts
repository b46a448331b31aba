import type {
  AccessKind,
  AccessRequestView,
  AdminEntry,
  AuditStep,
  adminPushBody,
  BlackListEntry,
  ConnectRight,
  ListResult,
  ReplyResult,
  ScanCodeResult,
  transferBody,
  updateMachineInfoBody,
  WhiteListEntry,
} from "@keyway/shared";
import { INFO_TYPE, PAGE_SIZE } from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";

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

/** Visit and bind requests and their audit (SPEC §7 "Audit and authority"). */
export const accessApi = {
  /** The device behind a machine code and the caller's identity on it. */
  scanCodeCheck: (machineCode: string) =>
    api.post<ScanCodeResult>("/v1/cloudSet/scanCodeCheck", { machineCode }),
  request: (kind: AccessKind, body: AccessRequestPayload) =>
    kind === "visit"
      ? api.post<AccessRequestView>("/v1/audit/addVisit", {
          machineID: body.machineID,
          terminalID: body.terminalID,
          terminalName: body.terminalName,
          message: body.message,
          password: body.password || undefined,
        })
      : api.post<AccessRequestView>("/v1/audit/addBind", {
          machineID: body.machineID,
          remarks: body.remarks ?? "",
          message: body.message,
          password: body.password || undefined,
        }),
  checkMachinePwd: (machineID: number, machinePwd: string) =>
    api.post<{ ok: true }>("/v1/audit/checkMachinePwd", { machineID, machinePwd }),
  /** An approver's answer by request id. */
  reply: (kind: AccessKind, requestId: number, body: ReplyPayload) =>
    api.post<AccessRequestView>(kind === "visit" ? "/v1/audit/visitReply" : "/v1/audit/bindReply", {
      requestId,
      ...body,
    }),
  /** An approver's answer from the message centre (by message id). */
  verify: (kind: AccessKind, msgId: number, body: ReplyPayload) =>
    api.post<AccessRequestView>(`/msg/v1/device/${kind}/verify`, { msgId, ...body }),
  /** A request with its steps, by request id or by one of its messages. */
  auditProcess: (query: { requestId?: number; msgId?: number }) =>
    api.get<AccessRequestView>("/v1/devices/auditProcess", query),
  checkCloudServiceState: (machineID: number, terminalID: string) =>
    api.post<ConnectRight>("/v1/audit/checkCloudServiceState", { machineID, terminalID }),
};

export type AddBkeyPayload = z.output<typeof adminPushBody>;
export type TransferPayload = z.output<typeof transferBody>;
export type MachineInfoPayload = z.output<typeof updateMachineInfoBody>;

/** The authority centre of a device (Akey and Bkeys; SPEC §6). */
export const authorityApi = {
  /** Akey, Bkeys, ordinary users and visitors (SPEC §9: page size 500). */
  members: (machineID: number) =>
    api.post<ListResult<AdminEntry>>("/admin/select", {
      machineID,
      infoType: INFO_TYPE.admins,
      start: 0,
    }),
  /** Visit grants still valid (SPEC §9: page size 300). */
  validVisits: (machineID: number) =>
    api.post<ListResult<WhiteListEntry>>("/admin/select", {
      machineID,
      infoType: INFO_TYPE.validVisit,
      start: 0,
    }),
  blackList: (machineID: number) =>
    api.post<ListResult<BlackListEntry>>("/admin/select", {
      machineID,
      infoType: INFO_TYPE.blackList,
      start: 0,
    }),
  /** The white list: every visit grant, newest first (SPEC §9: page size 6). */
  whiteList: (deviceId: number, page: number) =>
    api.post<ListResult<WhiteListEntry>>("/device/v1/admin/visit/detail/page", {
      deviceId,
      page,
      pageSize: PAGE_SIZE.whiteList,
    }),
  addBkey: (body: AddBkeyPayload) => api.post<AdminEntry>("/admin/push", body),
  /** limit 2 makes a Bkey, 1 an ordinary user. */
  updateLevel: (body: { id: number; machineID: number; limit: 1 | 2 }) =>
    api.post<unknown>("/admin/updateLevel", body),
  zeroVisitTime: (body: { visitAlidTimeID: number; machineID: number }) =>
    api.post<unknown>("/admin/zeroVisitTime", body),
  /** Minutes (at least 10) or -1 forever. */
  setVisitTime: (body: { visitTimeId: number; machineID: number; visitTime: number }) =>
    api.put<unknown>("/device/v1/visit/time", body),
  deleteVisitTime: (body: { visitTimeId: number; machineID: number }) =>
    api.delete<unknown>("/device/v1/visit/time", body),
  blackListAdd: (body: { machineID: number; userId: number }) =>
    api.post<unknown>("/admin/blacklist/add", body),
  blackListRemove: (body: { machineID: number; userId: number }) =>
    api.post<unknown>("/admin/blacklist/remove", body),
  removeMember: (body: { machineID: number; id: number }) =>
    api.post<unknown>("/admin/member/remove", body),
  /** 1 read and write, 0 read-only. */
  setWrite: (body: { machineID: number; userId: number; write: 0 | 1 }) =>
    api.post<unknown>("/machine/limitReadSet", body),
  /** 1 receives alarms, 0 none. */
  setAlarm: (body: { machineID: number; userId: number; alarm: 0 | 1 }) =>
    api.post<unknown>("/machine/limitAlarmSet", body),
  /** Akey only: the audit mode (password needed to switch to 1). */
  updateMachineInfo: (body: MachineInfoPayload) =>
    api.post<unknown>("/cloudSet/updateMachineInfo", body),
  /** Akey only: hands the device over; the old Akey stays as a Bkey. */
  transfer: (body: TransferPayload) => api.post<unknown>("/machine/transfer", body),
  /** Akey (personal) or enterprise maintainer: confirms every alarm of the device. */
  confirmAlarms: (machineID: number) =>
    api.post<unknown>("/machine/confirmMacAlarm", { machineID }),
};
