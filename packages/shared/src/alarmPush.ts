import { z } from "zod";
import { LIMITS, PAGE_SIZE, SMS_PUSH_DEFAULTS } from "./constants.ts";
import {
  countryCodeField,
  emailField,
  flagField,
  idField,
  idOrZeroField,
  optionalText,
  pageField,
} from "./fields.ts";

/**
 * SMS / e-mail alarm pushes: configuration, per-device SMS switch, alarm contacts, SMS stock
 * (sale, allocation, transfer) and the records (SPEC §3 "SMS / e-mail configuration",
 * "Mail receiver", §5, §7 "SMS and e-mail" and "Alarms"). Wire names as the SPEC has them.
 *
 * THE CONTRACT (path → request schema → response `hwdata` type). Every answer is the SPEC
 * envelope `{hwcode, hwdata, msg}`; lists are `{list, total}`. `eid` 0 (or absent) is the
 * personal context. Times on the wire are epoch SECONDS (startTime, endTime, createTime).
 * "admin" = an admin of that enterprise (enterprise_members.is_admin); others get 06010201.
 *
 * Personal configuration (any logged-in user; per user and context eid)
 *   GET    /api/v1/alarm/userMsgConfig                 userMsgConfigQuery      → UserMsgConfig
 *   POST   /api/v1/alarm/setUserMsgConfig              setUserMsgConfigBody    → UserMsgConfig
 * Enterprise configuration (GET: any member, PUT: admin)
 *   GET    /api/msg/v1/ent/userMessage/info            entEidQuery             → EntMsgConfig
 *   PUT    /api/msg/v1/ent/userMessage                 entMsgConfigBody        → EntMsgConfig
 * Stock (enterprise): allocate from the pool to a member, transfer between members (admin)
 *   PUT    /api/msg/v1/ent/userMessage/allocate        smsAllocateBody         → SmsStock (the member's)
 *   PUT    /api/msg/v1/ent/userMessage/transfer        smsTransferBody         → SmsTransferResult
 *   GET    /api/msg/v1/ent/sms/user/stock              smsUserStockQuery       → SmsStock
 *          (userId absent: the caller; another member's: admin only)
 *   GET    /api/msg/v1/ent/sms/user/stock/list         entEidQuery             → {list: SmsStock[], total}  (admin)
 * Stock (personal): the caller's own balance (what personal devices' SMS draw on)
 *   GET    /api/v1/sms/stock                           (none)                  → SmsStock (eid 0)
 * Operator (back office, operator role): records a sale to an enterprise pool or a user
 *   POST   /api/operator/v1/sms/sale                   smsSaleBody             → SmsStock (credited account)
 *   POST   /api/operator/v1/sms/sale-list              smsRecordPageBody       → {list: SmsStockRecord[], total} (all)
 * Per-device SMS switch and the device list of the configuration page
 *   GET    /api/v1/devices/msgConfig                   msgConfigDevicesQuery   → {list: MachineMsgConfig[], total}
 *          (eid 0: the caller's personal devices and personal switch; eid>0: the
 *           enterprise's devices and the enterprise switch; sorted by machineId descending)
 *   POST   /api/v1/alarm/setMachineSmsFlag             setMachineSmsFlagBody   → MachineMsgConfig (personal)
 *   PUT    /api/msg/v1/ent/alarm/setMachineSmsFlag     entSetMachineSmsFlagBody → MachineMsgConfig (admin)
 * Alarm contacts (extra phones and mail receivers that get the pushes)
 *   POST   /api/v1/alarm/contact/add                   alarmContactAddBody     → AlarmContact
 *   GET    /api/v1/alarm/contact/list                  alarmContactListQuery   → {list: AlarmContact[], total}
 *   DELETE /api/v1/alarm/contact/del                   alarmContactDelBody (body or query) → null
 *   POST   /api/msg/v1/ent/alarmContact                entAlarmContactAddBody  → AlarmContact (admin)
 *   GET    /api/msg/v1/ent/alarmContact                entAlarmContactListQuery → {list: AlarmContact[], total} (member)
 *   DELETE /api/msg/v1/ent/alarmContact                entAlarmContactDelBody (body or query) → null (admin)
 * Records (page size default PAGE_SIZE.smsLogs = 10; newest first)
 *   POST   /api/v1/sms/sale-list                       smsRecordPageBody       → {list: SmsStockRecord[], total}
 *          (eid>0: the enterprise's sales, admin; eid 0: sales to the caller)
 *   POST   /api/msg/v1/ent/sms/log/allocation/page     smsRecordPageBody       → {list: SmsStockRecord[], total}
 *          (allocations and transfers; eid>0 admin; eid 0: none)
 *   POST   /api/msg/v1/alarm/sms/page                  sendRecordPageBody      → {list: SmsSendRecord[], total}
 *   POST   /api/msg/v1/alarm/email/page                sendRecordPageBody      → {list: EmailSendRecord[], total}
 *          (personal: the sends billed to / addressed for the caller, eid 0)
 *   GET    /api/msg/v1/ent/alarm/smsLoggerPage         sendRecordPageQuery     → {list: SmsSendRecord[], total} (admin)
 *   GET    /api/msg/v1/ent/alarm/emailLoggerPage       sendRecordPageQuery     → {list: EmailSendRecord[], total} (admin)
 */

// ---- Fields ----

/** Daily caps: how many SMS per phone / per device a day (0 = none). */
export const smsDailyAmountField = z.coerce
  .number({ error: "v.smsDailyAmount" })
  .int({ error: "v.smsDailyAmount" })
  .min(0, { error: "v.smsDailyAmount" })
  .max(SMS_PUSH_DEFAULTS.maxDailyAmount, { error: "v.smsDailyAmount" });

/** SMS counts moved by a sale, an allocation or a transfer. */
export const smsAmountField = z.coerce
  .number({ error: "v.smsAmount" })
  .int({ error: "v.smsAmount" })
  .min(1, { error: "v.smsAmount" })
  .max(SMS_PUSH_DEFAULTS.maxStockMove, { error: "v.smsAmount" });

/** 0 / absent: personal context. */
export const eidField = idOrZeroField.default(0);
/** Enterprise calls: an enterprise id. */
export const entEidField = idField;

/** Epoch seconds (SPEC: startTime, endTime, createTime). */
export const epochSecondsField = z.coerce
  .number({ error: "v.timeRange" })
  .int({ error: "v.timeRange" })
  .min(0, { error: "v.timeRange" });

export const mailReceiverNameField = z.coerce
  .string({ error: "v.required" })
  .trim()
  .min(LIMITS.mailReceiverName.min, { error: "v.mailReceiverName" })
  .max(LIMITS.mailReceiverName.max, { error: "v.mailReceiverName" });

/** SPEC §5: mail receiver e-mail 1-30 characters, standard pattern. */
export const mailReceiverEmailField = z.coerce
  .string({ error: "v.required" })
  .trim()
  .min(LIMITS.mailReceiverEmail.min, { error: "v.mailReceiverEmail" })
  .max(LIMITS.mailReceiverEmail.max, { error: "v.mailReceiverEmail" })
  .pipe(emailField);

const pageSizeField = z.coerce.number().int().min(1).max(100).default(PAGE_SIZE.smsLogs);

// ---- Configuration ----

export const userMsgConfigQuery = z.object({ eid: eidField });

/**
 * SPEC setUserMsgConfig: {userSmsFlag}, or {userSmsDailyAmount, machineSmsDailyAmount} with
 * eid, or {userEmailFlag}. Any combination is accepted; at least one field must be there.
 */
export const setUserMsgConfigBody = z
  .object({
    eid: eidField,
    userSmsFlag: flagField.optional(),
    userEmailFlag: flagField.optional(),
    userSmsDailyAmount: smsDailyAmountField.optional(),
    machineSmsDailyAmount: smsDailyAmountField.optional(),
  })
  .refine(
    (v) =>
      v.userSmsFlag !== undefined ||
      v.userEmailFlag !== undefined ||
      v.userSmsDailyAmount !== undefined ||
      v.machineSmsDailyAmount !== undefined,
    { error: "v.required", path: ["userSmsFlag"] },
  );

export const entEidQuery = z.object({ eid: entEidField });

/** Enterprise configuration; the webhook is optional (empty url removes it). */
export const entMsgConfigBody = z.object({
  eid: entEidField,
  smsFlag: flagField.optional(),
  emailFlag: flagField.optional(),
  smsDailyAmount: smsDailyAmountField.optional(),
  smsMachineDailyAmount: smsDailyAmountField.optional(),
  webhookUrl: z.coerce
    .string()
    .trim()
    .max(500, { error: "v.webhookUrl" })
    .refine((v) => v === "" || /^https?:\/\/[^\s]+$/i.test(v), { error: "v.webhookUrl" })
    .optional(),
  /** Write-only: never returned. Empty keeps the stored one. */
  webhookSecret: z.coerce.string().max(200, { error: "v.webhookSecret" }).optional(),
});

export interface UserMsgConfig {
  eid: number;
  userSmsFlag: 0 | 1;
  userEmailFlag: 0 | 1;
  /** Per-phone daily cap. */
  userSmsDailyAmount: number;
  /** Per-device daily cap. */
  machineSmsDailyAmount: number;
  /** The stock the caller's SMS draw on in this context (personal or allocated). */
  balance: number;
  /** Where this user's alarm SMS / e-mails go (the account's phone / e-mail; "" when none). */
  phone: string;
  email: string;
}

export interface EntMsgConfig {
  eid: number;
  smsFlag: 0 | 1;
  emailFlag: 0 | 1;
  /** Per-phone daily cap within the enterprise. */
  smsDailyAmount: number;
  /** Per-device daily cap within the enterprise. */
  smsMachineDailyAmount: number;
  /** Unallocated stock of the enterprise (its pool; enterprise contacts draw on it). */
  poolBalance: number;
  /** Sum of the members' allocated balances. */
  allocatedBalance: number;
  webhookUrl: string;
  hasWebhookSecret: boolean;
  isAdmin: boolean;
}

// ---- Stock ----

export const smsAllocateBody = z.object({
  eid: entEidField,
  userId: idField,
  amount: smsAmountField,
});

export const smsTransferBody = z
  .object({
    eid: entEidField,
    fromUserId: idField,
    toUserId: idField,
    amount: smsAmountField,
  })
  .refine((v) => v.fromUserId !== v.toUserId, { error: "v.transferSame", path: ["toUserId"] });

export const smsUserStockQuery = z.object({ eid: entEidField, userId: idField.optional() });

export const smsSaleBody = z
  .object({
    /** The enterprise whose pool is credited; or 0 with userId for a personal account. */
    eid: eidField,
    userId: idField.optional(),
    amount: smsAmountField,
    remark: optionalText(LIMITS.remark.max),
  })
  .refine((v) => v.eid > 0 || v.userId !== undefined, { error: "v.required", path: ["userId"] });

export interface SmsStock {
  eid: number;
  /** 0: the enterprise pool. */
  userId: number;
  name: string;
  /** Masked phone or e-mail of the member ("" for the pool). */
  account: string;
  balance: number;
  /** Everything ever credited (sales, allocations and transfers in). */
  received: number;
  /** SMS segments billed to this account. */
  used: number;
}

export interface SmsTransferResult {
  from: SmsStock;
  to: SmsStock;
}

/** What a stock record says happened. */
export const STOCK_OPERATES = ["sale", "allocate", "transfer"] as const;
export type StockOperate = (typeof STOCK_OPERATES)[number];

export interface SmsStockRecord {
  id: number;
  operate: StockOperate;
  eid: number;
  enterpriseName: string;
  /** 0 for the enterprise pool (allocation source, sale target). */
  fromUserId: number;
  fromName: string;
  toUserId: number;
  toName: string;
  amount: number;
  remark: string;
  /** Who recorded it (operator or admin). */
  operatorName: string;
  /** Epoch seconds. */
  createTime: number;
}

// ---- Records ----

export const smsRecordPageBody = z
  .object({
    eid: eidField,
    startTime: epochSecondsField.optional(),
    endTime: epochSecondsField.optional(),
    page: pageField.default(1),
    pageSize: pageSizeField,
  })
  .refine((v) => v.startTime === undefined || v.endTime === undefined || v.startTime <= v.endTime, {
    error: "v.timeRange",
    path: ["endTime"],
  });

const sendRecordShape = {
  eid: eidField,
  startTime: epochSecondsField.optional(),
  endTime: epochSecondsField.optional(),
  machineId: idField.optional(),
  page: pageField.default(1),
  pageSize: pageSizeField,
};
const timeRangeOk = (v: { startTime?: number; endTime?: number }) =>
  v.startTime === undefined || v.endTime === undefined || v.startTime <= v.endTime;

export const sendRecordPageBody = z
  .object(sendRecordShape)
  .refine(timeRangeOk, { error: "v.timeRange", path: ["endTime"] });
export const sendRecordPageQuery = z
  .object({ ...sendRecordShape, eid: entEidField })
  .refine(timeRangeOk, { error: "v.timeRange", path: ["endTime"] });

/**
 * A send's life: pending (decided, not sent) → sending (committed before the provider call)
 * → sent; or skipped (a switch, a cap or the stock stopped it; `reason` says which) or
 * failed (the provider refused); uncertain: a worker died between the provider call and the
 * commit and the provider cannot be asked, so it is not sent again.
 */
export const SEND_STATUSES = [
  "pending",
  "sending",
  "sent",
  "skipped",
  "failed",
  "uncertain",
] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

export interface SmsSendRecord {
  id: number;
  alarmId: number;
  machineId: number;
  machineName: string;
  machineCode: string;
  /** Masked phone. */
  phone: string;
  /** Who it was for: a member's name or a contact's name. */
  name: string;
  content: string;
  /** SMS billed (SPEC §5: ≤70 chars 1; longer 67 per segment). 0 when not sent. */
  segments: number;
  status: SendStatus;
  /** hwcode of why it was skipped / failed (e.g. the "SMS daily limit exceeded" code), "" otherwise. */
  reason: string;
  /** Localized text of the reason in the caller's language, "" when none. */
  reasonText: string;
  eid: number;
  /** Epoch seconds. */
  createTime: number;
}

export interface EmailSendRecord {
  id: number;
  alarmId: number;
  machineId: number;
  machineName: string;
  machineCode: string;
  email: string;
  name: string;
  subject: string;
  status: SendStatus;
  reason: string;
  reasonText: string;
  eid: number;
  createTime: number;
}

// ---- Per-device switch ----

export const msgConfigDevicesQuery = z.object({
  eid: eidField,
  blur: optionalText(40),
  groupId: idOrZeroField.optional(),
  page: pageField.default(1),
  pageSize: pageSizeField,
});

export const setMachineSmsFlagBody = z.object({
  machineId: idField,
  smsFlag: flagField,
});
export const entSetMachineSmsFlagBody = z.object({
  eid: entEidField,
  machineId: idField,
  smsFlag: flagField,
});

export interface MachineMsgConfig {
  machineId: number;
  machineName: string;
  machineCode: string;
  /** The per-device SMS switch in this context (personal: the caller's; enterprise: the enterprise's). */
  smsFlag: 0 | 1;
  /** SMS segments sent today for this device in this context. */
  todaySmsCount: number;
}

// ---- Alarm contacts ----

export const CONTACT_KINDS = ["phone", "email"] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];

const contactShape = {
  kind: z.enum(CONTACT_KINDS, { error: "v.contactKind" }),
  name: mailReceiverNameField,
  phone: z.coerce.string().trim().max(20, { error: "v.phone" }).optional(),
  countryCode: countryCodeField.optional(),
  email: z.coerce.string().trim().optional(),
};

/** A phone contact needs a phone (checked by country on the server); a mail receiver an e-mail. */
function checkContact(
  v: { kind: ContactKind; phone?: string; email?: string },
  ctx: z.RefinementCtx,
) {
  if (v.kind === "phone") {
    if (!v.phone) ctx.addIssue({ code: "custom", message: "v.phone", path: ["phone"] });
  } else if (!mailReceiverEmailField.safeParse(v.email ?? "").success) {
    const len = (v.email ?? "").trim().length;
    const message =
      len < LIMITS.mailReceiverEmail.min || len > LIMITS.mailReceiverEmail.max
        ? "v.mailReceiverEmail"
        : "v.email";
    ctx.addIssue({ code: "custom", message, path: ["email"] });
  }
}

export const alarmContactAddBody = z.object(contactShape).superRefine(checkContact);
export const entAlarmContactAddBody = z
  .object({ ...contactShape, eid: entEidField })
  .superRefine(checkContact);
export const alarmContactListQuery = z.object({
  page: pageField.default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export const entAlarmContactListQuery = alarmContactListQuery.extend({ eid: entEidField });
export const alarmContactDelBody = z.object({ id: idField });
export const entAlarmContactDelBody = z.object({ id: idField, eid: entEidField });

export interface AlarmContact {
  id: number;
  kind: ContactKind;
  name: string;
  /** Phone contacts: the number as entered (not masked: it is the owner's own list). */
  phone: string;
  countryCode: string;
  email: string;
  eid: number;
  /** Epoch seconds. */
  createTime: number;
}
