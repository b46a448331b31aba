import type { Bilingual, Lang } from "./lang.ts";

/**
 * The hwcode catalogue (SPEC §8, ARCHITECTURE "The API contract"): every code the server can
 * answer with and its zh/en text. Generic codes are numbers, business codes strings with
 * their leading zeros. New business codes follow the shape module(2) 01 call(2) error(2+).
 */
export interface HwcodeEntry extends Bilingual {
  code: number | string;
  /** Codes the SPEC shares between outcomes (203) carry the outcome in hwdata.reason. */
  reason?: string;
}

const entry = (code: number | string, zh: string, en: string, reason?: string): HwcodeEntry =>
  reason ? { code, zh, en, reason } : { code, zh, en };

export const HW = {
  OK: entry(0, "成功", "Success"),
  // Generic codes
  TOKEN_INVALID: entry(
    113,
    "登录已失效，请重新登录",
    "Invalid token (Token expired). Please log in again",
  ),
  WRONG_ROLE: entry(203, "角色不符", "Wrong role"),
  BAD_REQUEST: entry(400, "请求参数错误", "Invalid request"),
  NO_PERMISSION: entry(403, "用户没有权限", "User has no permission"),
  NOT_FOUND: entry(404, "资源不存在", "Not found"),
  CLOUD_EXPIRED: entry(416, "云服务已过期", "Cloud service expired"),
  OPERATION_FAILED: entry(420, "操作失败", "Operation failed"),
  RATE_LIMITED: entry(429, "请求过于频繁，请稍后再试", "Too many requests, please try again later"),
  SERVER_ERROR: entry(500, "服务器接口错误", "Server-api Error"),
  CROSS_SITE_REFUSED: entry(
    "00010101",
    "拒绝来自其他网站的请求",
    "A request from another site was refused",
  ),
  VISIT_TIMEOUT: entry(504, "云访问超时", "Cloud visit timeout"),
  VISIT_PASSWORD_ERROR: entry(505, "密码错误", "Password error"),
  TOO_FREQUENT: entry(507, "请求过于频繁", "Requests too frequent"),

  // Accounts (module 07)
  ACCOUNT_NOT_FOUND: entry("07010109", "用户不存在", "User not found"),
  PASSWORD_ERROR: entry("07010110", "密码错误", "Password error"),
  ACCOUNT_NOT_ACTIVATED: entry(
    "07010111",
    "账号尚未激活，请先完成验证",
    "The account is not activated yet; please verify it first",
  ),
  ACCOUNT_LOCKED: entry(
    "07010112",
    "密码错误次数过多，账号已暂时锁定，请稍后再试",
    "Too many wrong passwords; the account is locked for a while",
  ),
  ACCOUNT_EXISTS: entry("07010201", "手机号或邮箱已存在", "Phone or e-mail already exists"),
  CODE_ERROR: entry("07010301", "验证码错误", "Code error"),
  CODE_EXPIRED: entry("07010302", "验证码已失效，请重新获取", "Validation code expired"),
  CODE_TOO_FREQUENT: entry(
    "07010401",
    "发送验证码过于频繁",
    "Send verification code too frequently",
  ),
  SMS_DAILY_LIMIT: entry("07010402", "今日短信发送次数已达上限", "SMS daily limit exceeded"),
  SAME_AS_CURRENT: entry(
    "07010501",
    "新的手机号或邮箱不能与当前相同",
    "The new phone or e-mail must differ from the current one",
  ),
  TERMINAL_NOT_FOUND: entry("07010701", "终端不存在", "Terminal not found"),
  // Two-factor login (docs/architecture/accounts.md#login)
  TWO_FACTOR_REQUIRED: entry(
    "07010113",
    "请输入身份验证器中的 6 位验证码",
    "Enter the 6-digit code from your authenticator app",
  ),
  TWO_FACTOR_CODE_ERROR: entry("07010801", "动态验证码错误", "Wrong authenticator code"),
  TWO_FACTOR_CHALLENGE_EXPIRED: entry(
    "07010802",
    "登录验证已失效，请重新输入密码登录",
    "This login step has expired; log in with your password again",
  ),
  TWO_FACTOR_LOCKED: entry(
    "07010803",
    "动态验证码错误次数过多，请稍后再试",
    "Too many wrong codes; try again later",
  ),
  TWO_FACTOR_ALREADY_ON: entry("07010804", "两步验证已开启", "Two-factor login is already on"),
  TWO_FACTOR_NOT_ON: entry("07010805", "两步验证未开启", "Two-factor login is not on"),
  TWO_FACTOR_SETUP_EXPIRED: entry(
    "07010806",
    "设置已过期，请重新开始",
    "The set-up has expired; please start again",
  ),
  // QR-code login
  QR_EXPIRED: entry("07010901", "二维码已过期，请刷新", "The QR code has expired; refresh it"),
  QR_USED: entry("07010902", "二维码已被使用", "The QR code has already been used"),
  QR_CANCELLED: entry("07010903", "登录已在手机上取消", "The login was cancelled on the phone"),
  QR_INVALID: entry("07010904", "二维码无效", "Invalid QR code"),

  // Codes SPEC §8 gives for later modules, kept here so the table stays the one place.
  DEVICE_ALREADY_ADDED: entry("04010112", "设备已被添加", "Device already added"),
  MACHINE_CODE_NOT_FOUND: entry(
    "04010102",
    "机器码不存在或设备缺少 Akey",
    "Akey missing or machine code does not exist",
  ),
  DELETE_MACHINE_GONE: entry("040103010", "设备已删除", "Device already deleted"),
  DELETE_MACHINE_NOT_BOUND: entry("04010307", "设备已解绑", "Device already unbound"),
  // SPEC §8 edit codes: the machine code sent with the edit names none of the caller's
  // devices / another of them (docs/architecture/devices.md#personal-lists).
  EDIT_MACHINE_FAILED: entry(
    "040104011",
    "修改失败：机器码与该设备不符",
    "Edit failed: the machine code does not match this device",
  ),
  EDIT_MACHINE_CODE_EXISTS: entry(
    "04010406",
    "修改失败：该机器码属于您的另一台设备",
    "Edit failed: this machine code belongs to another of your devices",
  ),
  EDIT_MACHINE_NOT_FOUND: entry("04010412", "设备不存在", "Device does not exist"),
  DEVICE_PASSWORD_ERROR: entry("04010103", "设备密码错误", "Wrong device password"),

  LOCATION_DAILY_LIMIT: entry(
    "04012101",
    "今日定位次数已用完",
    "You have run out of location fixes for the day",
  ),
  DEVICE_NO_PERMISSION: entry("04012201", "无权操作", "No permission to operate"),
  // Alarm centre (module 04, call 25)
  ALARM_NOT_FOUND: entry("04012501", "告警不存在", "The alarm does not exist"),

  // Groups (module 04, calls 10-13)
  GROUP_EXISTS: entry("04011001", "该分组已存在", "The group already exists"),
  GROUP_LIMIT: entry("04011002", "分组数量已达上限", "You have reached the upper limit of groups"),
  GROUP_NOT_FOUND: entry("04011101", "分组不存在", "The group does not exist"),
  GROUP_NOT_EMPTY: entry("04011201", "请先删除分组内的所有设备", "Please delete all devices first"),

  // Enterprises and the back-office (module 06)
  ENTERPRISE_NOT_FOUND: entry("06010101", "企业不存在", "The enterprise does not exist"),
  NO_MANAGEMENT_ACCESS: entry(
    "06010201",
    "无权访问管理界面",
    "No access to the management interface",
  ),
  MEMBER_EXISTS: entry("06010301", "该用户已是成员", "The user is already a member"),
  MEMBER_NOT_FOUND: entry("06010302", "成员不存在", "The member does not exist"),
  DEVICE_IN_OTHER_ENTERPRISE: entry(
    "06010401",
    "设备已属于其他企业",
    "The device already belongs to another enterprise",
  ),
  // Enterprises users create themselves (docs/architecture/enterprises.md#who-sees-what).
  ENTERPRISE_CREATE_DISABLED: entry(
    "06010501",
    "平台运营方未开放自行创建企业，请联系运营方开通企业",
    "Creating enterprises is turned off by the platform operator; please contact the operator",
  ),
  ENTERPRISE_CREATE_LIMIT: entry(
    "06010502",
    "您创建的企业数量已达上限",
    "You have reached the upper limit of enterprises you can create",
  ),
  ENTERPRISE_NAME_TAKEN: entry(
    "06010503",
    "您已创建过同名的企业",
    "You already created an enterprise with this name",
  ),

  VISIT_TIME_GONE: entry(
    "01010408",
    "访问时间已过期或终端已删除",
    "Visit time already expired or terminal deleted",
  ),
  BKEY_ACCOUNT_NOT_FOUND: entry("01010304", "账号不存在", "Account not found"),
  BKEY_EXISTS: entry("01010305", "Bkey 已存在", "Bkey already exists"),
  // Access workflow (module 01): SPEC §8 visit / bind / connect outcomes.
  REQUEST_BLACKLISTED: entry(
    203,
    "您已被列入该设备的黑名单，不能申请",
    "You are on this device's black list and cannot apply",
    "BLACKLIST",
  ),
  REQUEST_ADMINISTRATOR: entry(
    203,
    "您已是该设备的管理员",
    "You are already an administrator of this device",
    "ADMINISTRATOR",
  ),
  REQUEST_GENERAL_USER: entry(
    203,
    "您已是该设备的用户，无需申请",
    "You are already a user of this device",
    "GENERAL_USER",
  ),
  ALREADY_BOUND: entry(203, "您已绑定该设备", "You are already bound to this device", "BOUND"),
  NOT_BOUND: entry(
    203,
    "未绑定该设备或没有访问权限",
    "Not bound to this device, or no right to visit it",
    "WRONG_ROLE",
  ),
  CLOUD_CLOSED: entry("04012301", "设备已关闭云服务", "The cloud service is closed on the device"),
  REQUEST_NOT_FOUND: entry("01010201", "申请不存在", "The request does not exist"),
  REQUEST_DECIDED: entry("01010202", "该申请已处理", "The request has already been handled"),
  AKEY_UNCHANGEABLE: entry(
    "01010409",
    "不能修改 Akey 的身份",
    "The Akey's identity cannot be changed here",
  ),
  TRANSFER_TARGET_INVALID: entry(
    "04012401",
    "不能转让给自己或黑名单中的用户",
    "The device cannot be transferred to yourself or to a black-listed user",
  ),
  MESSAGE_NOT_FOUND: entry("09010101", "消息不存在", "The message does not exist"),
  PROJECT_USER_EXISTS: entry("08011007", "用户已在项目中", "User already in project"),
  PROJECT_USER_NOT_FOUND: entry("08011006", "用户不存在", "User does not exist"),
  PROJECT_NOT_FOUND: entry("08010101", "项目不存在", "Project does not exist"),
  PROJECT_NOT_OWNER: entry(
    "08010201",
    "只有项目所有者可以执行此操作",
    "Only the project owner can do this",
  ),
  PROJECT_DISABLED: entry(
    "08010301",
    "该企业未开通项目功能",
    "Projects are not enabled for this enterprise",
  ),
  PROJECT_DISABLED_PERSONAL: entry(
    "08010302",
    "您的账号未开通项目功能",
    "Projects are not enabled for your account",
  ),
  PROJECT_OWNER_CANNOT_QUIT: entry(
    "08011101",
    "项目所有者不能退出项目，请先转让或删除项目",
    "The owner cannot leave the project; transfer or delete it first",
  ),
  PROJECT_MEMBER_NOT_FOUND: entry(
    "08011102",
    "该用户不在项目中",
    "This user is not in the project",
  ),
  PROJECT_TRANSFER_TARGET_DISABLED: entry(
    "08011401",
    "对方账号未开通项目功能，不能接收个人项目",
    "The new owner's account does not have projects enabled",
  ),
  PROJECT_MACHINE_TAKEN: entry(
    "08011201",
    "该设备已属于一个项目",
    "This device already belongs to a project",
  ),
  PROJECT_MACHINE_NOT_FOUND: entry(
    "08011202",
    "设备不存在或不在项目中",
    "The device does not exist or is not in the project",
  ),
  PROJECT_VISIT_DISABLED: entry(
    "08011301",
    "该项目未开启获取访问地址",
    "Getting visit URLs is turned off for this project",
  ),
  // Remote access (module 10): visits through the tunnel.
  DEVICE_OFFLINE: entry("10010101", "设备离线", "The device is offline"),
  TARGET_NOT_ALLOWED: entry(
    "10010102",
    "该地址不在设备允许访问的列表中",
    "The target is not on the device's allow-list",
  ),
  TARGET_UNREACHABLE: entry(
    "10010103",
    "设备无法连接到该地址",
    "The device could not connect to the target",
  ),
  SCREEN_NOT_OFFERED: entry(
    "10010104",
    "该设备未提供屏幕访问（VNC）",
    "The device offers no screen access (VNC)",
  ),
  VISIT_NOT_FOUND: entry("10010201", "访问记录不存在", "The visit does not exist"),
  DEVICE_AUTH_FAILED: entry(
    "10010301",
    "设备认证失败（机器码或设备密钥错误）",
    "Device authentication failed (machine code or device secret)",
  ),
  VISIT_LINK_INVALID: entry(
    "10010401",
    "访问链接无效、已过期或已被使用，请重新连接",
    "The visit link is invalid, expired or already used; please connect again",
  ),
  VISIT_ENDED: entry(
    "10010402",
    "本次访问已结束，请重新连接",
    "This visit has ended; please connect again",
  ),
  CONSENT_REFUSED: entry(
    "10010501",
    "设备现场人员拒绝了本次访问",
    "The person at the machine refused the visit",
  ),
  CONSENT_TIMEOUT: entry(
    "10010502",
    "设备现场 30 秒内无人确认，访问未开始",
    "Nobody at the machine answered within 30 s; the visit did not start",
  ),
  CONSENT_UNSUPPORTED: entry(
    "10010503",
    "该设备的代理程序无法请现场人员确认，请升级或配置代理程序",
    "The device's agent cannot ask anyone at the machine; update or configure the agent",
  ),
  VIEW_ONLY: entry(
    "10010601",
    "只读访问：不能修改设备",
    "View only: this visit cannot change the device",
  ),
  // Alarm pushes: SMS / e-mail configuration, stock and sending (module 12).
  SMS_STOCK_NOT_ENOUGH: entry("12010101", "短信余量不足", "Not enough SMS stock"),
  ALARM_SMS_DAILY_LIMIT: entry("12010201", "今日短信发送次数已达上限", "SMS daily limit exceeded"),
  ALARM_SMS_DEVICE_DAILY_LIMIT: entry(
    "12010202",
    "该设备今日短信发送次数已达上限",
    "SMS daily limit exceeded for this device",
  ),
  ALARM_SEND_UNCERTAIN: entry(
    "12010203",
    "发送中断，无法确认是否送达，未重复发送",
    "Sending was interrupted and could not be confirmed; it was not sent again",
  ),
  ALARM_SEND_FAILED: entry("12010204", "发送失败", "Sending failed"),
  ALARM_CONTACT_EXISTS: entry("12010301", "该联系人已存在", "This contact already exists"),
  ALARM_CONTACT_NOT_FOUND: entry("12010302", "联系人不存在", "The contact does not exist"),
  ALARM_CONTACT_LIMIT: entry(
    "12010303",
    "联系人数量已达上限",
    "You have reached the upper limit of contacts",
  ),
  // Camera cloud accounts (module 13): EZVIZ open platform checks and bindings.
  CAMERA_ACCOUNT_NOT_FOUND: entry(
    "13010101",
    "摄像头云账号不存在",
    "The camera account does not exist",
  ),
  CAMERA_ACCOUNT_EXISTS: entry(
    "13010102",
    "该 AppKey 已添加为摄像头云账号",
    "This AppKey is already one of your camera accounts",
  ),
  CAMERA_ACCOUNT_LIMIT: entry(
    "13010103",
    "摄像头云账号数量已达上限",
    "You have reached the upper limit of camera accounts",
  ),
  EZVIZ_APPKEY_NOT_FOUND: entry("13010201", "AppKey 不存在", "The AppKey does not exist"),
  EZVIZ_SECRET_MISMATCH: entry(
    "13010202",
    "AppKey 与 Secret 不匹配",
    "The AppKey and the Secret do not match",
  ),
  EZVIZ_APPKEY_FROZEN: entry("13010203", "AppKey 已被冻结", "The AppKey is frozen"),
  EZVIZ_UNREACHABLE: entry(
    "13010204",
    "暂时无法连接萤石开放平台，请稍后再试",
    "The EZVIZ open platform cannot be reached; please try again later",
  ),
  CAMERA_CHECK_DAILY_LIMIT: entry(
    "13010301",
    "该账号今日刷新次数已用完",
    "This account has run out of refreshes for the day",
  ),
  // 4G IoT cards (module 15).
  IOT_CARD_NOT_FOUND: entry("15010101", "物联网卡不存在", "The IoT card does not exist"),
  IOT_CARD_REFRESH_TOO_SOON: entry(
    "15010201",
    "该卡刚刚刷新过，请稍后再试（运营商数据有 6-12 小时延迟）",
    "This card was refreshed recently; try again later (carrier figures lag 6-12 hours)",
  ),
  IOT_CARD_CARRIER_FAILED: entry(
    "15010202",
    "运营商接口暂时无法查询，已保留上次的数据",
    "The carrier could not be queried; the last figures are kept",
  ),
} as const satisfies Record<string, HwcodeEntry>;

export type HwKey = keyof typeof HW;

export function hwMessage(key: HwKey, lang: Lang): string {
  return lang === "en" ? HW[key].en : HW[key].zh;
}

const codeKey = (code: number | string, reason?: string) => `${code}:${reason ?? ""}`;
const byCode = new Map<string, HwKey>();
for (const [key, value] of Object.entries(HW) as [HwKey, HwcodeEntry][]) {
  byCode.set(codeKey(value.code, value.reason), key);
  // A shared code without its reason reads as the plain entry (WRONG_ROLE for 203).
  if (!byCode.has(codeKey(value.code))) byCode.set(codeKey(value.code), key);
}

/** The catalogue entry for a code (and 203's reason) received on the wire. */
export function hwKeyOf(code: number | string, reason?: string): HwKey | undefined {
  return byCode.get(codeKey(code, reason)) ?? byCode.get(codeKey(code));
}
