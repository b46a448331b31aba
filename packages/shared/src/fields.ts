import { z } from "zod";
import { DEFAULT_COUNTRY_CODE, LIMITS } from "./constants.ts";
import { normalizeCountryCode, normalizePhone } from "./phone.ts";

/**
 * Field rules of SPEC §5 as zod schemas. Messages are keys of VALIDATION_MESSAGES so both
 * sides show the same localized text. Wire values of form posts are strings, hence the
 * coercions for numbers and flags.
 */
const NO_SPECIAL = /^[\p{L}\p{N} _.·-]+$/u;

export const emailField = z
  .string({ error: "v.required" })
  .trim()
  .min(1, { error: "v.required" })
  .max(100, { error: "v.email" })
  .pipe(z.email({ error: "v.email" }));

export const passwordField = z
  .string({ error: "v.required" })
  .min(LIMITS.password.min, { error: "v.password" })
  .max(LIMITS.password.max, { error: "v.password" });

export const personNameField = z
  .string({ error: "v.required" })
  .trim()
  .min(LIMITS.personName.min, { error: "v.personName" })
  .max(LIMITS.personName.max, { error: "v.personName" })
  .regex(NO_SPECIAL, { error: "v.personName" });

export const codeField = z
  .string({ error: "v.required" })
  .trim()
  .regex(/^(\d{4}|\d{6})$/, { error: "v.code" });

export const countryCodeField = z.coerce
  .string()
  .trim()
  .refine((v) => normalizeCountryCode(v) !== null, { error: "v.countryCode" })
  .transform((v) => normalizeCountryCode(v) ?? DEFAULT_COUNTRY_CODE);

export const phoneField = z
  .string({ error: "v.required" })
  .trim()
  .min(1, { error: "v.required" })
  .max(20, { error: "v.phone" });

/** 0/1, "0"/"1", true/false — form posts and JSON both. */
export const flagField = z
  .union([z.boolean(), z.number(), z.string()])
  .refine((v) => ["0", "1", "true", "false"].includes(String(v)), { error: "v.flag" })
  .transform((v) => String(v) === "1" || String(v) === "true");

/** The largest value of an `integer` column: a bigger id is refused here, not by PostgreSQL. */
export const ID_MAX = 2_147_483_647;

/**
 * A page number (or size, with its own max). Capped at ID_MAX so that a page's offset,
 * (page − 1) × size, stays a safe integer: the fuzzer's page 4,503,599,627,370,480 made an
 * offset PostgreSQL could not read (a 500).
 */
export const pageField = z.coerce
  .number({ error: "v.page" })
  .int({ error: "v.page" })
  .min(1, { error: "v.page" })
  .max(ID_MAX, { error: "v.page" });

export const idField = z.coerce
  .number({ error: "v.id" })
  .int({ error: "v.id" })
  .min(1, { error: "v.id" })
  .max(ID_MAX, { error: "v.id" });

/** Any value of an `integer` column (a type, a scene): out of range is a format error. */
export const int32Field = z.coerce
  .number({ error: "v.number" })
  .int({ error: "v.number" })
  .min(-ID_MAX - 1, { error: "v.number" })
  .max(ID_MAX, { error: "v.number" });

/** The bounds of a `smallint` column (message types): beyond them PostgreSQL errors. */
export const INT16_MAX = 32_767;

/** Any value of a `smallint` column: out of range is a format error (was a 500). */
export const int16Field = z.coerce
  .number({ error: "v.number" })
  .int({ error: "v.number" })
  .min(-INT16_MAX - 1, { error: "v.number" })
  .max(INT16_MAX, { error: "v.number" });

/** An id where 0 means none: the personal context, no group. */
export const idOrZeroField = z.coerce
  .number({ error: "v.id" })
  .int({ error: "v.id" })
  .min(0, { error: "v.id" })
  .max(ID_MAX, { error: "v.id" });

export const optionalText = (max: number) =>
  z.coerce.string().trim().max(max, { error: "v.text" }).optional();

/** Adds the phone rule (which depends on the country code) to an object with phone/countryCode. */
export function checkPhone(
  value: { phone?: string; countryCode?: string },
  ctx: z.RefinementCtx,
  path: string = "phone",
) {
  if (value.phone === undefined) return;
  if (normalizePhone(value.phone, value.countryCode) === null) {
    ctx.addIssue({ code: "custom", message: "v.phone", path: [path] });
  }
}

/** Exactly one of phone / email must be present. */
export function checkPhoneOrEmail(
  value: { phone?: string; email?: string; countryCode?: string },
  ctx: z.RefinementCtx,
) {
  const hasPhone = value.phone !== undefined && value.phone !== "";
  const hasEmail = value.email !== undefined && value.email !== "";
  if (hasPhone === hasEmail) {
    ctx.addIssue({ code: "custom", message: "v.account", path: [hasPhone ? "email" : "phone"] });
    return;
  }
  checkPhone(value, ctx);
}

export function checkPasswordsMatch(
  value: { password: string; confirmPassword: string },
  ctx: z.RefinementCtx,
) {
  if (value.password !== value.confirmPassword) {
    ctx.addIssue({ code: "custom", message: "v.passwordMismatch", path: ["confirmPassword"] });
  }
}
