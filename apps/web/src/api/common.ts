import {
  API,
  type CodePurpose,
  type checkEmailCodeBody,
  type checkSmsCodeBody,
  type sendEmailCodeBody,
  type sendSmsCodeBody,
} from "@keyway/shared";
import type { z } from "zod";
import { request } from "./client.ts";
import type { AccountRef } from "./user.ts";

/** Verification codes (SPEC §7 /common/*). Purposes: register | reset | change. */
const a = API.accounts;

export const commonApi = {
  sendSmsCode: (body: z.output<typeof sendSmsCodeBody>) => request(a.sendSmsCode, body),
  sendEmailCode: (body: z.output<typeof sendEmailCodeBody>) => request(a.sendEmailCode, body),
  checkSmsCode: (body: z.output<typeof checkSmsCodeBody>) => request(a.checkSmsCode, body),
  checkEmailCode: (body: z.output<typeof checkEmailCodeBody>) => request(a.checkEmailCode, body),
};

/** Sends a code to a phone or an e-mail, whichever `account` is. */
export function sendCode(account: AccountRef, purpose: CodePurpose): Promise<unknown> {
  return "email" in account
    ? commonApi.sendEmailCode({ email: account.email, purpose })
    : commonApi.sendSmsCode({ phone: account.phone, countryCode: account.countryCode, purpose });
}

/** Checks a code sent to a phone or an e-mail. */
export function checkCode(
  account: AccountRef,
  purpose: CodePurpose,
  code: string,
): Promise<unknown> {
  return "email" in account
    ? commonApi.checkEmailCode({ email: account.email, purpose, code })
    : commonApi.checkSmsCode({
        phone: account.phone,
        countryCode: account.countryCode,
        purpose,
        code,
      });
}
