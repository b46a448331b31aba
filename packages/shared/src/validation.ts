import type { Bilingual, Lang } from "./lang.ts";

/**
 * Validation messages, referenced by key from the zod schemas so that the server (envelope
 * `msg`) and the web forms show the same localized text.
 */
export const VALIDATION_MESSAGES = {
  "v.required": { zh: "此项为必填项", en: "This field is required" },
  "v.phone": { zh: "手机号格式错误", en: "Wrong phone format" },
  "v.email": { zh: "邮箱格式错误", en: "Wrong e-mail format" },
  "v.account": { zh: "请输入手机号或邮箱", en: "Enter a phone number or an e-mail" },
  "v.countryCode": { zh: "国家区号格式错误", en: "Wrong country code" },
  "v.password": { zh: "密码长度为 6-20 位", en: "Password must be 6-20 characters" },
  "v.passwordMismatch": { zh: "两次输入的密码不一致", en: "The two passwords do not match" },
  "v.personName": {
    zh: "姓名为 2-10 个字符，不能包含特殊字符",
    en: "Name must be 2-10 characters without special characters",
  },
  "v.code": { zh: "验证码为 4 或 6 位数字", en: "The code is 4 or 6 digits" },
  "v.flag": { zh: "取值只能为 0 或 1", en: "The value must be 0 or 1" },
  "v.page": { zh: "页码格式错误", en: "Wrong page number" },
  "v.id": { zh: "编号格式错误", en: "Wrong id" },
  "v.number": { zh: "数值格式错误", en: "Wrong number" },
  "v.purpose": { zh: "验证码用途错误", en: "Unknown code purpose" },
  "v.text": { zh: "内容过长", en: "Text too long" },
  // A NUL or a lone surrogate (apps/server/src/http/storableText.ts): nothing can store it.
  "v.characters": {
    zh: "含有不支持的字符（如空字符）",
    en: "Contains a character that is not supported (such as NUL)",
  },
  "v.machineName": {
    zh: "设备名称不能为空，不能包含特殊字符，且不超过 20 个字符",
    en: "The device name cannot be empty, contain special characters or exceed 20 characters",
  },
  "v.machineCode": { zh: "机器码格式错误", en: "Wrong machine code format" },
  "v.remark": { zh: "备注不能超过 50 个字符", en: "The remark cannot exceed 50 characters" },
  "v.groupName": {
    zh: "分组名称为 1-10 个字符，不能包含特殊字符",
    en: "Group names are 1-10 characters without special characters",
  },
  "v.count": { zh: "数量为 1-1000", en: "The count must be 1-1000" },
  "v.enterpriseName": { zh: "企业名称为 2-40 个字符", en: "Enterprise names are 2-40 characters" },
  "v.memberKind": { zh: "成员类型错误", en: "Unknown member kind" },
  "v.locationWay": { zh: "定位方式错误", en: "Unknown positioning method" },
  "v.latLng": { zh: "经纬度超出范围", en: "Latitude or longitude out of range" },
  "v.projectName": { zh: "项目名称为 1-20 个字符", en: "Project names are 1-20 characters" },
  "v.projectDescription": {
    zh: "项目描述不能超过 50 个字符",
    en: "The project description can be at most 50 characters",
  },
  "v.reportServer": {
    zh: "上报服务器须为 mqtts:// 或 https:// 地址（mqtt:// 与 http:// 仅限本机）",
    en: "The report server must be an mqtts:// or https:// address (mqtt:// and http:// only on this machine)",
  },
  "v.reportInterval": {
    zh: "上报间隔为 0-24 小时",
    en: "The report interval is 0-24 hours",
  },
  "v.leaveMessage": { zh: "留言不能超过15个字符", en: "The message can be at most 15 characters" },
  "v.visitTime": {
    zh: "访问时间至少为10分钟，或选择永久",
    en: "The visit time must be at least 10 minutes, or forever",
  },
  "v.replyResult": { zh: "请选择同意、拒绝或加入黑名单", en: "Choose agree, refuse or black list" },
  "v.infoType": { zh: "信息类型错误", en: "Unknown information type" },
  "v.level": { zh: "权限级别错误", en: "Unknown authority level" },
  "v.checkType": { zh: "审核方式错误", en: "Unknown audit mode" },
  "v.target": {
    zh: "目标地址格式为 主机:端口，例如 192.168.1.10:502",
    en: "A target is host:port, e.g. 192.168.1.10:502",
  },
  "v.visitId": { zh: "访问编号格式错误", en: "Wrong visit id" },
  "v.visitKind": { zh: "访问类型应为 web 或 screen", en: "The visit kind is web or screen" },
  "v.alarmTime": {
    zh: "时间格式错误（应为带时区的 ISO 8601 时间）",
    en: "Wrong date-time (ISO 8601 with a time zone expected)",
  },
  "v.alarmRange": {
    zh: "时间范围错误：开始时间不能晚于结束时间，统计范围最长 92 天",
    en: "Wrong time range: the start cannot be after the end, and statistics cover at most 92 days",
  },
  "v.alarmLevel": {
    zh: "告警级别错误（提示、次要、重要、紧急）",
    en: "Unknown alarm level (info, minor, major, critical)",
  },
  "v.alarmState": {
    zh: "告警状态错误（未确认、已确认、已清除、未清除）",
    en: "Unknown alarm state (unconfirmed, confirmed, cleared, active)",
  },
  "v.utcOffset": { zh: "时区偏移错误", en: "Wrong time zone offset" },
  "v.smsDailyAmount": {
    zh: "每日短信上限为 0-10000 条",
    en: "The daily SMS cap must be 0-10000",
  },
  "v.smsAmount": { zh: "短信条数为 1-1000000", en: "The SMS count must be 1-1000000" },
  "v.transferSame": {
    zh: "转出和转入不能是同一成员",
    en: "The transfer must go to another member",
  },
  "v.timeRange": {
    zh: "时间范围错误（开始时间不能晚于结束时间）",
    en: "Wrong time range (the start cannot be after the end)",
  },
  "v.mailReceiverName": { zh: "名称为 1-20 个字符", en: "Names are 1-20 characters" },
  "v.mailReceiverEmail": {
    zh: "邮箱为 1-30 个字符",
    en: "The e-mail must be 1-30 characters",
  },
  "v.contactKind": { zh: "联系人类型错误", en: "Unknown contact kind" },
  "v.webhookUrl": {
    zh: "Webhook 地址须为 http(s):// 开头的网址",
    en: "The webhook must be an http(s):// URL",
  },
  "v.webhookSecret": { zh: "Webhook 密钥过长", en: "The webhook secret is too long" },
  "v.iccid": { zh: "ICCID 为 19-20 位数字或字母", en: "An ICCID is 19-20 digits or letters" },
  "v.iotCardState": { zh: "物联网卡状态错误", en: "Unknown IoT card state" },
} as const satisfies Record<string, Bilingual>;

export type ValidationKey = keyof typeof VALIDATION_MESSAGES;

export function isValidationKey(value: string): value is ValidationKey {
  return value in VALIDATION_MESSAGES;
}

export function validationMessage(key: string, lang: Lang): string {
  const text = isValidationKey(key) ? VALIDATION_MESSAGES[key] : VALIDATION_MESSAGES["v.required"];
  return lang === "en" ? text.en : text.zh;
}
