import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isPossiblePhoneNumber,
} from "libphonenumber-js/min";
import { DEFAULT_COUNTRY_CODE, LIMITS } from "./constants.ts";

const CHINA_MOBILE = /^(?:\+?86|0086)?(1[3-9]\d{9})$/;

/**
 * SPEC §5: a mainland-China mobile (optionally prefixed 86 / 0086) when the country code is
 * 86; otherwise at least 6 digits that libphonenumber accepts as possible for that code.
 * Returns the national number to store, or null for "wrong format".
 */
export function normalizePhone(phone: string, countryCode = DEFAULT_COUNTRY_CODE): string | null {
  const compact = phone.replace(/[\s-]/g, "");
  if (!/^\+?\d+$/.test(compact)) return null;
  const code = normalizeCountryCode(countryCode);
  if (code === null) return null;
  if (code === "86") return CHINA_MOBILE.exec(compact)?.[1] ?? null;
  const digits = compact.replace(/^\+/, "");
  if (digits.length < LIMITS.phoneMinDigits || digits.length > 15) return null;
  const possible = isPossiblePhoneNumber(`+${code}${digits}`);
  return possible ? digits : null;
}

/** "+86", "0086" and "86" are the same country code. */
export function normalizeCountryCode(value: string | undefined | null): string | null {
  const raw = (value ?? DEFAULT_COUNTRY_CODE).trim().replace(/^\+|^00/, "");
  return /^\d{1,4}$/.test(raw) ? raw : null;
}

/** SPEC §9 "Phone masking": first digits and last digits shown. */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return `${phone.slice(0, 2)}****`;
  return `${phone.slice(0, 3)}****${phone.slice(-4)}`;
}

export interface CountryDialCode {
  iso: string;
  en: string;
  zh: string;
  dial: string;
}

/**
 * Country-code picker entries (country name, Chinese name, dial code). Several countries
 * share one dial code (+1, +7, +44 ...), as the SPEC notes; entries are keyed by ISO code.
 */
export function countryDialCodes(): CountryDialCode[] {
  const en = new Intl.DisplayNames(["en"], { type: "region" });
  const zh = new Intl.DisplayNames(["zh-CN"], { type: "region" });
  return getCountries()
    .map((iso: CountryCode) => ({
      iso,
      en: en.of(iso) ?? iso,
      zh: zh.of(iso) ?? iso,
      dial: getCountryCallingCode(iso),
    }))
    .sort((a, b) => (a.iso === "CN" ? -1 : b.iso === "CN" ? 1 : a.en.localeCompare(b.en)));
}
