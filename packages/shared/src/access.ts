import { z } from "zod";
import { CUSTOM_VISIT_MIN_MINUTES, LIMITS } from "./constants.ts";
import {
  countryCodeField,
  idField,
  idOrZeroField,
  int16Field,
  int32Field,
  optionalText,
  pageField,
} from "./fields.ts";
import { type Bilingual, type Lang, pick } from "./lang.ts";

/**
 * The access workflow (SPEC §3 identities, Admin / White-list entries, Message; §4 audit,
 * visit request outcomes, visit time, authority changes; §7 "Audit and authority" and
 * "Messages"). Wire names as the SPEC has them.
 */

// ---- States ----

/** SPEC §4 "Bind and visit audit". The numbers are ours (docs/architecture/permissions.md#requests-and-audits). */
export const AUDIT_STATE = {
  pending: 0,
  akeyPassedWaitingBkey: 1,
  bkeyPassedWaitingAkey: 2,
  refusedByAkey: 3,
  refusedByBkey: 4,
  allPassed: 5,
} as const;
export type AuditState = (typeof AUDIT_STATE)[keyof typeof AUDIT_STATE];
export const isFinalAuditState = (s: number) =>
  s === AUDIT_STATE.refusedByAkey || s === AUDIT_STATE.refusedByBkey || s === AUDIT_STATE.allPassed;

/** SPEC §3 Message types. The numbers are ours (docs/architecture/permissions.md#requests-and-audits). */
export const MESSAGE_TYPE = {
  alarm: 1,
  voice: 2,
  bindApplication: 3,
  visitApplication: 4,
  projectAlarm: 5,
  logout: 6,
  applyIssue: 7,
  akeyReply: 8,
  bkeyReply: 9,
  accessRequest: 10,
  bindSuccess: 11,
  visitSuccess: 12,
  massTexting: 13,
} as const;
export type MessageType = (typeof MESSAGE_TYPE)[keyof typeof MESSAGE_TYPE];

/** Device identities (SPEC §3): the link roles plus the two lists. */
export type AccessKind = "visit" | "bind";

/** 203 sub-reasons of a visit / bind request (SPEC §8), carried in hwdata.reason. */
export type RequestRefusal = "BLACKLIST" | "ADMINISTRATOR" | "GENERAL_USER";

/** `/api/admin/select` infoType (SPEC §7): 2 members (Akey, Bkeys, ordinary users), 3 valid visit times, -1 black list. */
export const INFO_TYPE = { admins: 2, validVisit: 3, blackList: -1 } as const;

/** updateLevel `limit`: 2 makes a member a Bkey, 1 makes a Bkey or visitor an ordinary user. */
export const LEVEL = { bkey: 2, ordinary: 1 } as const;

export const VISIT_TIME_UNITS = ["minute", "hour", "day", "forever"] as const;
export type VisitTimeUnit = (typeof VISIT_TIME_UNITS)[number];
const UNIT_MINUTES: Record<Exclude<VisitTimeUnit, "forever">, number> = {
  minute: 1,
  hour: 60,
  day: 24 * 60,
};
/** -1 forever; otherwise minutes. */
export function visitTimeMinutes(amount: number, unit: VisitTimeUnit): number {
  return unit === "forever" ? -1 : amount * UNIT_MINUTES[unit];
}

// ---- Fields ----

export const leaveMessageField = z.coerce
  .string()
  .trim()
  .max(LIMITS.visitMessage.max, { error: "v.leaveMessage" })
  .default("");

/** -1 forever or at least CUSTOM_VISIT_MIN_MINUTES (SPEC §4 Visit time). */
export const visitTimeField = z.coerce
  .number({ error: "v.visitTime" })
  .int({ error: "v.visitTime" })
  .refine((v) => v === -1 || v >= CUSTOM_VISIT_MIN_MINUTES, { error: "v.visitTime" })
  .refine((v) => v <= 60 * 24 * 3650, { error: "v.visitTime" });

const optionalPassword = z.coerce.string().max(64, { error: "v.text" }).optional();

// ---- Requests ----

export const addVisitBody = z.object({
  machineID: idField,
  terminalID: optionalText(64),
  terminalName: optionalText(64),
  message: leaveMessageField,
  /** Akey+password mode: the device password grants the request at once. */
  password: optionalPassword,
});

export const addBindBody = z.object({
  machineID: idField,
  remarks: optionalText(LIMITS.remark.max),
  message: leaveMessageField,
  password: optionalPassword,
});

export const checkMachinePwdBody = z.object({
  machineID: idField,
  machinePwd: z.coerce.string({ error: "v.required" }).min(1, { error: "v.required" }).max(64),
});

export const REPLY_RESULTS = ["agree", "refuse", "blacklist"] as const;
export type ReplyResult = (typeof REPLY_RESULTS)[number];

/** visitReply / bindReply (by request id) and /api/msg/v1/device/*\/verify (by message id). */
export const replyBody = z
  .object({
    requestId: idField.optional(),
    msgId: idField.optional(),
    result: z.enum(REPLY_RESULTS, { error: "v.replyResult" }),
    message: leaveMessageField,
    /** Visit replies: the visit time granted (-1 forever, minutes otherwise). */
    visitTime: visitTimeField.optional(),
  })
  .refine((v) => v.requestId !== undefined || v.msgId !== undefined, {
    error: "v.required",
    path: ["requestId"],
  });

export const auditProcessQuery = z.object({
  requestId: idField.optional(),
  msgId: idField.optional(),
});

export const checkCloudServiceBody = z.object({
  machineID: idField,
  visitAlidTimeID: idOrZeroField.optional(),
  limitAuthority: z.coerce.number().int().optional(),
  terminalID: optionalText(64),
});

// ---- Authority ----

export const adminPushBody = z.object({
  machineID: idField,
  account: z.coerce
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(100, { error: "v.account" }),
  countryCode: countryCodeField.optional(),
});

export const adminSelectBody = z.object({
  machineID: idField,
  infoType: z.coerce
    .number({ error: "v.infoType" })
    .int()
    .refine((v) => v === 2 || v === 3 || v === -1, { error: "v.infoType" }),
  start: z.coerce.number().int().min(0).default(0),
});

export const updateLevelBody = z.object({
  /** Admins entries: the member entry id; valid-visit entries: the visitTimeId. */
  id: idField,
  machineID: idField,
  limit: z.coerce
    .number({ error: "v.level" })
    .int()
    .refine((v) => v === LEVEL.bkey || v === LEVEL.ordinary, { error: "v.level" }),
  terminalID: optionalText(64),
});

export const zeroVisitTimeBody = z.object({ visitAlidTimeID: idField, machineID: idField });

export const visitTimeSetBody = z.object({
  visitTimeId: idField,
  machineID: idField,
  visitTime: visitTimeField,
});
export const visitTimeClearBody = z.object({ visitTimeId: idField, machineID: idField });

export const visitDetailBody = z.object({
  deviceId: idField,
  page: pageField.default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(6),
});

/** Black list add (by member entry id or user id) and remove (by user id). */
export const blackListBody = z.object({ machineID: idField, userId: idField });
/** Removes a member (Bkey or ordinary user) or a visitor from the device. */
export const accessMemberRemoveBody = z.object({ machineID: idField, id: idField });

/** Per-device member levels (SPEC §6): read-only vs read and write; alarm vs no-alarm. */
export const limitReadBody = z.object({
  machineID: idField,
  userId: idField,
  /** 1 read and write, 0 read-only. */
  write: z.coerce.number().int().min(0).max(1),
});
export const limitAlarmBody = z.object({
  machineID: idField,
  userId: idField,
  /** 1 receives alarms, 0 no alarms. */
  alarm: z.coerce.number().int().min(0).max(1),
});

/** SPEC cloudSet/updateMachineInfo: audit mode (checkType) and name; password for mode 1. */
export const updateMachineInfoBody = z.object({
  machineCode: z.coerce.string().trim().min(1, { error: "v.machineCode" }).max(32),
  machineName: optionalText(20),
  checkType: z.coerce
    .number({ error: "v.checkType" })
    .int()
    .refine((v) => v === 0 || v === 1, { error: "v.checkType" }),
  password: optionalPassword,
});

/** The Akey hands the device to another account; the old Akey stays as a Bkey. */
export const transferBody = z.object({
  machineID: idField,
  account: adminPushBody.shape.account,
  countryCode: countryCodeField.optional(),
});

export const scanCodeCheckBody = z.object({
  machineCode: z.coerce.string().trim().min(1, { error: "v.machineCode" }).max(32),
});

// ---- Messages ----

export const MESSAGE_BOXES = ["inbox", "outbox"] as const;
export type MessageBox = (typeof MESSAGE_BOXES)[number];

export const messagePageBody = z.object({
  box: z.enum(MESSAGE_BOXES).default("inbox"),
  // messages.type is a smallint.
  type: int16Field.optional(),
  unread: z.coerce.number().int().min(0).max(1).optional(),
  page: pageField.default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(10),
});
export const messageReadBody = z.object({
  /** One message; absent: every message of the box. */
  id: idField.optional(),
  box: z.enum(MESSAGE_BOXES).default("inbox"),
});
export const messageClearBody = messageReadBody;
export const totalUnreadQuery = z.object({ scene: int32Field.default(0) });
export const msgCenterBody = z.object({ msgwhat: int16Field.optional() });

// ---- Answers ----

export interface AccessRequestView {
  id: number;
  kind: AccessKind;
  machine_id: number;
  machine_code: string;
  machine_name: string;
  requester_id: number;
  requester_name: string;
  /** Masked phone or e-mail of the requester. */
  requester_account: string;
  terminal_name: string;
  message: string;
  remarks: string;
  auditState: AuditState;
  isResult: 0 | 1;
  check_type: 0 | 1;
  visit_time: number | null;
  created_at: string;
  updated_at: string;
  steps: AuditStep[];
}

export interface AuditStep {
  by: "akey" | "bkey" | "password" | "requester";
  name: string;
  result: "submitted" | "agree" | "refuse" | "blacklist";
  message: string;
  at: string;
}

export interface MessageView {
  id: number;
  type: MessageType;
  box: MessageBox;
  read: boolean;
  title: string;
  content: string;
  machine_id: number | null;
  machine_code: string;
  /** Access-request messages: the request, with its live audit state. */
  request: AccessRequestView | null;
  /** True when the reader may still agree / refuse (an approver's pending request). */
  canReply: boolean;
  alarm_id: number | null;
  isResult: 0 | 1;
  auditState: AuditState | null;
  created_at: string;
}

/** Admin (Bkey) entry of SPEC §3, extended with the member levels of §6. */
export interface AdminEntry {
  id: number;
  user_id: number;
  name: string;
  phone: string;
  email: string;
  limit_authority: 0 | 2 | 3;
  role: "akey" | "bkey" | "user" | "visitor";
  machine_id: number;
  write: 0 | 1;
  alarm: 0 | 1;
}

/** White-list entry of SPEC §3: a visit grant bound to a user's terminal. */
export interface WhiteListEntry {
  visitTimeId: number;
  user_id: number;
  name: string;
  phone: string;
  email: string;
  terminal_name: string;
  /** -1 forever, 0 invalid (cleared or expired), otherwise minutes left. */
  visitTime: number;
  expires_at: string | null;
  created_at: string;
}

export interface BlackListEntry {
  id: number;
  user_id: number;
  name: string;
  phone: string;
  email: string;
  created_at: string;
}

/** The connect check (SPEC checkCloudServiceState): why a user may reach a device now. */
export interface ConnectRight {
  machine_id: number;
  role: "akey" | "bkey" | "user" | "visitor" | "maintainer" | "enterprise";
  visitAlidTimeID: number | null;
  /** ISO time the right ends (a visit time), null when it does not end. */
  expires_at: string | null;
  write: boolean;
}

export interface ScanCodeResult {
  machine_id: number;
  machine_code: string;
  /** The caller's identity on it. */
  role: "akey" | "bkey" | "user" | "visitor" | "none";
  blacklisted: boolean;
  has_akey: boolean;
  check_type: 0 | 1;
  cloud_service: 0 | 1;
}

// ---- Message texts (rendered in the reader's language) ----

type Params = Record<string, string | number>;
const fill = (template: string, params: Params) =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ""));

const KIND_TEXT = { visit: { zh: "访问", en: "visit" }, bind: { zh: "绑定", en: "bind" } };
const RESULT_TEXT = {
  agree: { zh: "同意了", en: "approved" },
  refuse: { zh: "拒绝了", en: "refused" },
  blacklist: { zh: "拒绝并拉黑了", en: "refused and black-listed" },
};

/** Terminal kinds (the login's terminal type) as a logout message names them. */
const TERMINAL_TEXT: Record<string, Bilingual> = {
  web: { zh: "网页", en: "Web" },
  mobile: { zh: "手机浏览器", en: "Phone browser" },
  android: { zh: "Android", en: "Android" },
  ios: { zh: "iOS", en: "iOS" },
  tv: { zh: "电视盒子", en: "TV box" },
  pc: { zh: "电脑客户端", en: "PC client" },
};

/** A logout message's "where": the kind of terminal (when known) and the address. */
function loginWhere(params: Params, lang: Lang): string {
  const type = typeof params.terminal === "string" ? params.terminal : "";
  const known = Object.hasOwn(TERMINAL_TEXT, type.toLowerCase())
    ? TERMINAL_TEXT[type.toLowerCase()]
    : undefined;
  const terminal = known ? pick(known, lang) : type;
  return [terminal, String(params.ip ?? "")].filter(Boolean).join(lang === "en" ? ", " : "，");
}

const TITLES: Record<MessageType, Bilingual> = {
  1: { zh: "{device} 发生报警", en: "Alarm on {device}" },
  2: { zh: "{device} 语音消息", en: "Voice message from {device}" },
  3: { zh: "{requester} 申请绑定 {device}", en: "{requester} asks to bind {device}" },
  4: { zh: "{requester} 申请访问 {device}", en: "{requester} asks to visit {device}" },
  5: { zh: "项目 {project} 报警", en: "Project alarm: {project}" },
  6: {
    zh: "您的账号已在其他地方登录（{where}）",
    en: "Your account logged in elsewhere ({where})",
  },
  7: { zh: "{device} 的申请出现问题", en: "A problem with a request for {device}" },
  8: {
    zh: "Akey {result}您{kind} {device} 的申请",
    en: "The Akey {result} your request to {kind} {device}",
  },
  9: {
    zh: "Bkey {result}您{kind} {device} 的申请",
    en: "A Bkey {result} your request to {kind} {device}",
  },
  10: { zh: "您申请{kind} {device}", en: "You asked to {kind} {device}" },
  11: { zh: "您已绑定 {device}", en: "You are now bound to {device}" },
  12: { zh: "您现在可以访问 {device}", en: "You may now visit {device}" },
  13: { zh: "系统通知", en: "Notice" },
};

/** A message's title in one language, from its type and the names it refers to. */
export function messageTitle(type: number, params: Params, lang: Lang): string {
  const template = TITLES[type as MessageType] ?? TITLES[13];
  const kind = KIND_TEXT[params.kind as AccessKind];
  const result = RESULT_TEXT[params.result as ReplyResult];
  return fill(pick(template, lang), {
    ...params,
    kind: kind ? pick(kind, lang) : "",
    result: result ? pick(result, lang) : "",
    where: type === MESSAGE_TYPE.logout ? loginWhere(params, lang) : "",
  });
}
