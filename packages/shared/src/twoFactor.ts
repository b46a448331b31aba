import { z } from "zod";

/**
 * Two-factor login (SPEC §7 enableTwoFactorAuthentication; the rest designed in
 * docs/architecture/accounts.md#login): TOTP of RFC 6238 (SHA-1, 6 digits, 30 s) plus ten
 * one-time recovery codes.
 */

/** A current authenticator code: 6 digits. */
export const totpCodeField = z
  .string({ error: "v.required" })
  .trim()
  .regex(/^\d{6}$/, { error: "v.code" });

/** A recovery code as shown: xxxxx-xxxxx (letters and digits, the dash and case optional). */
export const RECOVERY_CODE_PATTERN = /^[a-z0-9]{5}-?[a-z0-9]{5}$/i;

/** At login: an authenticator code or a recovery code. */
export const secondFactorField = z
  .string({ error: "v.required" })
  .trim()
  .min(1, { error: "v.required" })
  .refine((v) => /^\d{6}$/.test(v) || RECOVERY_CODE_PATTERN.test(v), { error: "v.code" });

/**
 * POST /api/v1/users/enableTwoFactorAuthentication: without `code` a new secret is set up
 * (not yet on); with the current `code` of that secret it is turned on.
 */
export const enableTwoFactorBody = z.object({ code: totpCodeField.optional() });

/** DELETE /api/v1/users/twoFactorAuthentication: the password, or a current / recovery code. */
export const disableTwoFactorBody = z
  .object({
    password: z.string().max(100, { error: "v.text" }).optional(),
    code: secondFactorField.optional(),
  })
  .refine((v) => Boolean(v.password) || Boolean(v.code), {
    error: "v.required",
    path: ["password"],
  });

/** POST /api/user/twoFactorLogin: the challenge of the password step and the code. */
export const twoFactorLoginBody = z.object({
  challenge: z
    .string({ error: "v.required" })
    .trim()
    .regex(/^[\w-]{20,100}$/, { error: "v.required" }),
  code: secondFactorField,
});

/** The screens' forms (same field rules). */
export const twoFactorCodeForm = z.object({ code: secondFactorField });
export const enableTwoFactorForm = z.object({ code: totpCodeField });

/** hwdata of the "code needed" answer to a password login. */
export interface TwoFactorChallenge {
  challenge: string;
  expiredTime: string;
}

/** GET /api/v1/users/twoFactorAuthentication */
export interface TwoFactorStatus {
  enabled: boolean;
  enabledTime: string | null;
  recoveryCodesLeft: number;
}

/** enableTwoFactorAuthentication without a code: what the authenticator app needs. */
export interface TwoFactorSetup {
  /** Base32, for typing into an app by hand. */
  secret: string;
  otpauthUrl: string;
  /** The QR of `otpauthUrl` as a PNG data URL. */
  qrImage: string;
  expiredTime: string;
}

/** enableTwoFactorAuthentication with the code: shown once. */
export interface TwoFactorEnabled {
  recoveryCodes: string[];
}

/** POST /api/v1/users/twoFactorRecoveryCodes: ten new codes (the old ones stop working). */
export const regenerateRecoveryCodesBody = z.object({ code: totpCodeField });
