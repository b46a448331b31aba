import { z } from "zod";
import { flagField, optionalText } from "./fields.ts";

/**
 * QR-code login (SPEC §1, §7 getQrToken / qrLoginCheck; payloads not shown, designed in
 * docs/architecture/accounts.md#login). The desktop asks for a QR token and polls with a separate
 * check token only it knows; a logged-in phone opens the QR's URL, sees who asks and confirms.
 */

/** The QR token as it travels in the URL: 43 base64url characters (256 random bits). */
const qrTokenField = z
  .string({ error: "v.required" })
  .trim()
  .regex(/^[\w-]{20,100}$/, { error: "v.required" });

/** POST /api/user/getQrToken: the desktop's terminal, as for a password login. */
export const getQrTokenBody = z.object({
  terminalUUID: optionalText(64),
  terminalType: optionalText(32),
  terminalName: optionalText(64),
  terminalOS: optionalText(64),
  loginOemId: optionalText(32),
  keepLogin: flagField.optional(),
});

/** POST /api/user/qrLoginCheck: the desktop polls with its check token (never shown in the QR). */
export const qrLoginCheckBody = z.object({ checkToken: qrTokenField });

/** POST /api/user/qrLoginScan: the phone tells it opened the QR and learns who asks. */
export const qrLoginScanBody = z.object({ qrToken: qrTokenField });

/** POST /api/user/qrLoginConfirm: the phone confirms (1) or cancels (0). */
export const qrLoginConfirmBody = z.object({ qrToken: qrTokenField, confirm: flagField });

export interface QrTokenResult {
  /** Goes into the QR (inside `url`). */
  qrToken: string;
  /** Kept by the desktop for qrLoginCheck; whoever only sees the QR cannot log in with it. */
  checkToken: string;
  /** The phone's confirm page: <origin>/mobile/qrLogin?token=<qrToken>. */
  url: string;
  /** The QR of `url` as a PNG data URL. */
  qrImage: string;
  expiredTime: string;
  ttlSeconds: number;
}

export const QR_LOGIN_STATES = ["waiting", "scanned", "confirmed"] as const;
export type QrLoginState = (typeof QR_LOGIN_STATES)[number];

/** qrLoginCheck: still waiting, scanned on a phone, or logged in (the session in `result`). */
export interface QrLoginCheckResult {
  state: QrLoginState;
  result?: {
    token: string;
    userid: number;
    phone: string | null;
    email: string | null;
    name: string;
    expiredTime: string;
  };
  /** Whether the session lives TOKEN_COOKIE_DAYS (keep-login asked on the desktop). */
  keepLogin?: boolean;
}

/** qrLoginScan: what the phone's user is asked to let in. */
export interface QrLoginRequestInfo {
  terminalType: string;
  terminalName: string;
  terminalOS: string;
  ip: string;
  requestTime: string;
  expiredTime: string;
}
