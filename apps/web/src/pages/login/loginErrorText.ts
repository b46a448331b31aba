import { HW } from "@keyway/shared";
import { ApiError } from "../../api/errors.ts";

/** Login codes shown with their own text; every other business code is a format error. */
const LOGIN_OWN_TEXT: ReadonlySet<string> = new Set(
  [HW.PASSWORD_ERROR, HW.ACCOUNT_NOT_FOUND, HW.ACCOUNT_LOCKED].map((e) => String(e.code)),
);

/**
 * SPEC §8 Login: 07010110 / 07010109 say what is wrong, "any other error is shown as a format
 * error". Codes with their own step (two-factor, activation) never get here; the account lock
 * (a later code) keeps its text, because "format" would send the user hunting for a typo;
 * transport failures (network, rate limit, 5xx) keep theirs, being no answer about the input.
 * null: nothing to show (an expired session is already notified).
 */
export function loginErrorText(error: unknown, formatError: string): string | null {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.kind === "session") return null;
  if (error.kind === "transport") return error.message;
  return LOGIN_OWN_TEXT.has(String(error.hwcode)) ? error.message : formatError;
}
