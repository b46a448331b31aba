/** Business constants and limits of SPEC §9 — the only place these numbers live. */
export const REQUEST_TIMEOUT_MS = 15_000;
export const PUSH_HEARTBEAT_MS = 15_000;
export const PUSH_RECONNECT_MS = 5_000;
export const LOGOUT_DELAY_MS = 1_000;
export const LOGOUT_DELAY_SMS_ALARM_MS = 1_200;
export const NOTIFICATION_DURATION_S = 3;
export const RECLICK_GUARD_MS = 2_000;
export const DEBOUNCE_MS = 250;
export const INDICATOR_CLEAR_MS = 1_000;
export const TITLE_SET_DELAY_MS = 1_000;

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Lifetime of the login token cookie (and of a keep-login token). */
export const TOKEN_COOKIE_DAYS = 30;
/** Remembered account cookies (remember-me). */
export const REMEMBER_ACCOUNT_DAYS = 3;
export const COOKIE_DEFAULT_DAYS = 60;

export const PAGE_SIZE = {
  tokenList: 15,
  alarms: 6,
  whiteList: 6,
  admins: 500,
  validVisitors: 300,
  smsLogs: 10,
  deviceLists: 5000,
} as const;

export const LIMITS = {
  groupName: { min: 1, max: 10 },
  personName: { min: 2, max: 10 },
  projectName: { min: 1, max: 20 },
  projectDescription: { max: 50 },
  remark: { max: 50 },
  password: { min: 6, max: 20 },
  visitMessage: { max: 15 },
  mailReceiverName: { min: 1, max: 20 },
  mailReceiverEmail: { min: 1, max: 30 },
  phoneMinDigits: 6,
} as const;

export const BIND_RETRY_MINUTES = 5;
export const LOCATION_REFRESH_PER_DAY = 5;
/**
 * Camera cloud accounts (our policy; SPEC §5 only says "non-empty"): field lengths and how
 * many accounts one user keeps. Re-checks count against LOCATION_REFRESH_PER_DAY.
 */
export const CAMERA_ACCOUNT = { nameMax: 30, appKeyMax: 64, secretMax: 128, perUser: 20 } as const;
export const CUSTOM_VISIT_MIN_MINUTES = 10;
/** Visit activity (requests, screen sessions) is kept this long (issue 20). */
export const VISIT_ACTIVITY_DAYS = 90;
/**
 * Enterprises one user may create from the web (our policy): enough for a company and a few
 * subsidiaries; more goes through the operator, who has no limit.
 */
export const ENTERPRISES_PER_USER = 3;
export const ALARM_POPUP_JUMP_MINUTES = 3;
export const SMS_SINGLE_CHARS = 70;
export const SMS_SEGMENT_CHARS = 67;
export const UNREAD_BADGE_CAP = 99;
export const DEFAULT_COUNTRY_CODE = "86";
export const DATE_FORMAT = "YYYY-MM-DD HH:mm:ss";
export const PROJECT_REPORT_COUNT_WEIGHT = 100_000;
export const DEVICE_MACHINE_PORT = 8000;
export const CLIENT_VERSIONS = {
  web: "3.1.8",
  mobile: "1.4.2",
  mobileLowest: "1.1.0",
  tv: "1.3.0",
} as const;
/**
 * SPEC §9: the lowest supported mobile version "varies by brand" — brands not named here use
 * CLIENT_VERSIONS.mobileLowest.
 */
export const CLIENT_LOWEST_BY_BRAND: Readonly<Record<string, string>> = {
  ironbridge: "1.2.0",
  northgate: "1.3.0",
};
export const DROPDOWN_MAX_HEIGHT_PX = 360;
export const STORAGE_VERSION = "v1.0";

/** Verification codes — SPEC says 4 or 6 digits; the rest is our policy (docs/architecture/accounts.md#codes-and-the-outbox). */
export const VERIFICATION = {
  digits: 6,
  ttlMinutes: 10,
  resendSeconds: 60,
  maxWrongTries: 5,
  smsDailyLimitPerPhone: 10,
} as const;

/**
 * Login hardening (docs/architecture/accounts.md#login): `maxFailures` wrong passwords from one source
 * within `windowMinutes` lock that source out of the account for `lockMinutes`; past
 * `accountMaxFailures` from all sources within `accountWindowMinutes`, only sources the owner
 * logged in from during the last `knownSourceDays` may try a password until the window ends.
 */
export const LOGIN_LOCK = {
  maxFailures: 5,
  windowMinutes: 15,
  lockMinutes: 15,
  accountMaxFailures: 50,
  accountWindowMinutes: 60,
  knownSourceDays: 90,
} as const;
/** A token without keep-login lives one day; with keep-login, TOKEN_COOKIE_DAYS. */
export const SESSION_TOKEN_HOURS = 24;

/**
 * QR-code login (docs/architecture/accounts.md#login): a QR lives `ttlSeconds`; the desktop polls
 * qrLoginCheck every `pollMs` and fetches a new QR `refreshBeforeSeconds` before expiry.
 */
export const QR_LOGIN = {
  ttlSeconds: 120,
  pollMs: 1_500,
  refreshBeforeSeconds: 5,
  /** A QR confirmed near its end waits at least this long for the desktop to collect it. */
  pickUpSeconds: 30,
} as const;
/**
 * Two-factor login: TOTP per RFC 6238 (SHA-1, 6 digits, 30 s steps, one step of clock drift
 * either way); the password step's challenge and its tries; per-account lock after wrong codes.
 */
export const TWO_FACTOR = {
  digits: 6,
  periodSeconds: 30,
  driftSteps: 1,
  recoveryCodes: 10,
  setupMinutes: 10,
  challengeMinutes: 5,
  triesPerChallenge: 5,
  maxFailures: 10,
  windowMinutes: 15,
  lockMinutes: 15,
} as const;

export function formatUnreadBadge(count: number): string {
  return count > UNREAD_BADGE_CAP ? `${UNREAD_BADGE_CAP}+` : String(count);
}

/**
 * Alarm SMS / e-mail pushes: our defaults where the SPEC gives none (docs/architecture/alarms.md#sms-e-mail-and-webhooks).
 * Caps are per day (UTC day of the server clock); 0 means no SMS.
 */
export const SMS_PUSH_DEFAULTS = {
  /** userSmsDailyAmount / smsDailyAmount: SMS per phone per day. */
  perPhoneDaily: 20,
  /** machineSmsDailyAmount / smsMachineDailyAmount: SMS per device per day. */
  perDeviceDaily: 50,
  maxDailyAmount: 10_000,
  /** Largest single sale / allocation / transfer. */
  maxStockMove: 1_000_000,
  /** Alarm contacts per owner (a user, or an enterprise). */
  maxContacts: 20,
} as const;

/** SPEC §5: up to 70 characters is one SMS; longer messages are billed per 67 characters. */
export function smsSegments(text: string): number {
  const length = [...text].length;
  if (length <= SMS_SINGLE_CHARS) return 1;
  return Math.ceil(length / SMS_SEGMENT_CHARS);
}

/** SPEC §9 "IoT card info lag": carriers' card figures trail reality by 6-12 hours. */
export const IOT_CARD_INFO_LAG_HOURS = { min: 6, max: 12 } as const;
/**
 * IoT card reads (docs/architecture/devices.md#4g-cards): every card is read again after `everyHours` (the lag's
 * low end: reading more often shows nothing new); a user may ask for a read of one card at
 * most once per `onDemandMinutes`.
 */
export const IOT_CARD_REFRESH = { everyHours: 6, onDemandMinutes: 60 } as const;
/** IoT card warnings: traffic left at or under this share of the plan, plan ending within these days. */
export const IOT_CARD_WARNING = { lowTrafficPercent: 10, expiryDays: 7 } as const;
