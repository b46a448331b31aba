import { z } from "zod";
import {
  type AccessRequestView,
  type AdminEntry,
  accessMemberRemoveBody,
  addBindBody,
  addVisitBody,
  adminPushBody,
  adminSelectBody,
  auditProcessQuery,
  type BlackListEntry,
  blackListBody,
  type ConnectRight,
  checkCloudServiceBody,
  checkMachinePwdBody,
  limitAlarmBody,
  limitReadBody,
  replyBody,
  type ScanCodeResult,
  scanCodeCheckBody,
  transferBody,
  updateLevelBody,
  updateMachineInfoBody,
  visitDetailBody,
  visitTimeClearBody,
  visitTimeSetBody,
  type WhiteListEntry,
  zeroVisitTimeBody,
} from "../access.ts";
import type { ListResult } from "../accounts.ts";
import { idField } from "../fields.ts";
import { group, route } from "./route.ts";

const machineIdBody = z.object({ machineID: idField });

/**
 * SPEC §7 "Audit and authority": visit and bind requests and their replies, the connect check,
 * and a device's authority centre (docs/architecture/permissions.md).
 */
export const access = group(
  { auth: "user", tags: ["access"] },
  {
    scanCode: route<ScanCodeResult>()({
      method: "POST",
      path: "/api/v1/cloudSet/scanCodeCheck",
      summary: "Look a device up by machine code",
      input: scanCodeCheckBody,
    }),
    requestVisit: route<AccessRequestView>()({
      method: "POST",
      path: "/api/v1/audit/addVisit",
      summary: "Ask to visit a device",
      input: addVisitBody,
    }),
    requestBind: route<AccessRequestView>()({
      method: "POST",
      path: "/api/v1/audit/addBind",
      summary: "Ask to bind a device",
      input: addBindBody,
    }),
    checkPassword: route<{ ok: boolean }>()({
      method: "POST",
      path: "/api/v1/audit/checkMachinePwd",
      summary: "Check a device password",
      input: checkMachinePwdBody,
    }),
    visitReply: route<AccessRequestView>()({
      method: "POST",
      path: "/api/v1/audit/visitReply",
      summary: "Agree, refuse or black-list a visit request",
      input: replyBody,
    }),
    // The message centre answers by message id; SPEC §8 counts /msg calls as SMS / alarm calls.
    visitVerify: route<AccessRequestView>()({
      method: "POST",
      path: "/api/msg/v1/device/visit/verify",
      summary: "Agree, refuse or black-list a visit request",
      input: replyBody,
      smsAlarm: true,
    }),
    bindReply: route<AccessRequestView>()({
      method: "POST",
      path: "/api/v1/audit/bindReply",
      summary: "Agree, refuse or black-list a bind request",
      input: replyBody,
    }),
    bindVerify: route<AccessRequestView>()({
      method: "POST",
      path: "/api/msg/v1/device/bind/verify",
      summary: "Agree, refuse or black-list a bind request",
      input: replyBody,
      smsAlarm: true,
    }),
    auditProcess: route<AccessRequestView>()({
      method: "GET",
      path: "/api/v1/devices/auditProcess",
      summary: "The audit process of a request",
      input: auditProcessQuery,
    }),
    rights: route<ConnectRight>()({
      method: "POST",
      path: "/api/v1/audit/checkCloudServiceState",
      summary: "May the caller connect to the device now",
      input: checkCloudServiceBody,
    }),

    // ---- Authority centre ----
    // Its entries follow infoType: AdminEntry (2), WhiteListEntry (3), BlackListEntry (-1).
    select: route<
      ListResult<AdminEntry> | ListResult<WhiteListEntry> | ListResult<BlackListEntry>
    >()({
      method: "POST",
      path: "/api/admin/select",
      summary: "Members (2), valid visit times (3) or the black list (-1) of a device",
      input: adminSelectBody,
    }),
    alarmMembers: route<ListResult<AdminEntry>>()({
      method: "POST",
      path: "/api/admin/alarmMsgSelect",
      summary: "Who on the device takes alarms (members with their alarm level)",
      input: machineIdBody,
    }),
    whiteList: route<ListResult<WhiteListEntry>>()({
      method: "POST",
      path: "/api/device/v1/admin/visit/detail/page",
      summary: "The white list: every visit grant, paged",
      input: visitDetailBody,
    }),
    addBkey: route<ListResult<AdminEntry>>()({
      method: "POST",
      path: "/api/admin/push",
      summary: "Add a Bkey by account",
      input: adminPushBody,
    }),
    updateLevel: route<ListResult<AdminEntry>>()({
      method: "POST",
      path: "/api/admin/updateLevel",
      summary: "Make a member a Bkey (2) or an ordinary user (1)",
      input: updateLevelBody,
    }),
    zeroVisitTime: route()({
      method: "POST",
      path: "/api/admin/zeroVisitTime",
      summary: "Clear a visit time",
      input: zeroVisitTimeBody,
    }),
    setVisitTime: route()({
      method: "PUT",
      path: "/api/device/v1/visit/time",
      summary: "Set a visit time (minutes, -1 forever)",
      input: visitTimeSetBody,
    }),
    clearVisitTime: route()({
      method: "DELETE",
      path: "/api/device/v1/visit/time",
      summary: "Clear a visit time",
      input: visitTimeClearBody,
    }),
    blacklistAdd: route()({
      method: "POST",
      path: "/api/admin/blacklist/add",
      summary: "Put a user on the device's black list",
      input: blackListBody,
    }),
    blacklistRemove: route()({
      method: "POST",
      path: "/api/admin/blacklist/remove",
      summary: "Take a user off the black list",
      input: blackListBody,
    }),
    removeMember: route()({
      method: "POST",
      path: "/api/admin/member/remove",
      summary: "Remove a Bkey, user or visitor",
      input: accessMemberRemoveBody,
    }),
    setWrite: route()({
      method: "POST",
      path: "/api/machine/limitReadSet",
      summary: "Read-only (0) or read and write (1)",
      input: limitReadBody,
    }),
    setAlarm: route()({
      method: "POST",
      path: "/api/machine/limitAlarmSet",
      summary: "Alarm (1) or no alarm (0)",
      input: limitAlarmBody,
      smsAlarm: true,
    }),
    updateDeviceInfo: route<{ machine_id: number; check_type: number }>()({
      method: "POST",
      path: "/api/cloudSet/updateMachineInfo",
      summary: "Audit mode and name (Akey only)",
      input: updateMachineInfoBody,
    }),
    transfer: route<{ machine_id: number }>()({
      method: "POST",
      path: "/api/machine/transfer",
      summary: "Hand the device to another account (Akey only)",
      input: transferBody,
    }),
    confirmAllAlarms: route<{ confirmed: number }>()({
      method: "POST",
      path: "/api/machine/confirmMacAlarm",
      summary: "Confirm all of a device's alarms",
      input: machineIdBody,
      smsAlarm: true,
    }),
  },
);
