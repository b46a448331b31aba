import { normalizePhone } from "@keyway/shared";
import { AppError } from "../../http/envelope.ts";

/** An account as the user names it: a phone (with its country code) or an e-mail. */
export type AccountRef =
  | { channel: "sms"; countryCode: string; phone: string }
  | { channel: "email"; email: string };

/** Phone/e-mail fields of a payload → an account reference (formats already validated). */
export function accountRef(input: {
  phone?: string;
  countryCode?: string;
  email?: string;
}): AccountRef {
  if (input.email) return { channel: "email", email: input.email.trim().toLowerCase() };
  const countryCode = input.countryCode ?? "86";
  const phone = normalizePhone(input.phone ?? "", countryCode);
  if (phone === null) throw AppError.invalid("phone", "v.phone");
  return { channel: "sms", countryCode, phone };
}

/** SPEC §5: an account string containing "@" is an e-mail, otherwise a phone. */
export function parseAccountString(value: string, countryCode?: string): AccountRef {
  const trimmed = value.trim();
  if (trimmed.includes("@") && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed)) {
    throw AppError.invalid("email", "v.email");
  }
  return trimmed.includes("@")
    ? accountRef({ email: trimmed })
    : accountRef({ phone: trimmed, countryCode });
}

/** An e-mail shown to someone other than its owner. */
export function maskEmail(email: string): string {
  const [local, domain] = email.split("@");
  return `${local.slice(0, 2)}***@${domain}`;
}
