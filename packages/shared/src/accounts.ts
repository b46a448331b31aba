import { z } from "zod";
import {
  checkPasswordsMatch,
  checkPhone,
  checkPhoneOrEmail,
  codeField,
  countryCodeField,
  emailField,
  flagField,
  idField,
  optionalText,
  pageField,
  passwordField,
  personNameField,
  phoneField,
} from "./fields.ts";

/**
 * Account payloads with the SPEC §7 wire names, used by the server routes and the web API
 * layer; the form schemas below reuse the same field rules for the screens.
 */

const phoneOrEmail = {
  phone: phoneField.optional(),
  countryCode: countryCodeField.optional(),
  email: emailField.optional(),
};

export const loginBody = z.object({
  loginName: z.string({ error: "v.required" }).trim().min(1, { error: "v.required" }).max(100),
  loginPwd: z.string({ error: "v.required" }).min(1, { error: "v.required" }).max(100),
  countryCode: countryCodeField.optional(),
  terminalUUID: optionalText(64),
  terminalType: optionalText(32),
  terminalName: optionalText(64),
  terminalOS: optionalText(64),
  loginOemId: optionalText(32),
  /** Keep-login: the token lives TOKEN_COOKIE_DAYS instead of SESSION_TOKEN_HOURS. */
  keepLogin: flagField.optional(),
});

export const registerBody = z
  .object({
    ...phoneOrEmail,
    password: passwordField,
    name: personNameField,
    oemid: optionalText(32),
    hideMap: flagField.optional(),
  })
  .superRefine(checkPhoneOrEmail);

export const activeAccountBody = z.object({
  activeAccount: z.string({ error: "v.required" }).trim().min(1, { error: "v.account" }).max(100),
  SMSVerificationCode: codeField,
  countryCode: countryCodeField.optional(),
});

export const CODE_PURPOSES = ["register", "reset", "change"] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];
const purposeField = z.enum(CODE_PURPOSES, { error: "v.purpose" }).default("register");

export const sendSmsCodeBody = z
  .object({ phone: phoneField, countryCode: countryCodeField.optional(), purpose: purposeField })
  .superRefine((v, ctx) => checkPhone(v, ctx));
export const sendEmailCodeBody = z.object({ email: emailField, purpose: purposeField });
export const checkSmsCodeBody = z
  .object({
    phone: phoneField,
    countryCode: countryCodeField.optional(),
    purpose: purposeField,
    code: codeField,
  })
  .superRefine((v, ctx) => checkPhone(v, ctx));
export const checkEmailCodeBody = z.object({
  email: emailField,
  purpose: purposeField,
  code: codeField,
});

export const confirmAccountQuery = z.object(phoneOrEmail).superRefine(checkPhoneOrEmail);

export const resetPasswordBody = z
  .object({ ...phoneOrEmail, password: passwordField, code: codeField })
  .superRefine(checkPhoneOrEmail);

export const userNameBody = z.object({ name: personNameField });

export const changeAccountBody = z
  .object({ ...phoneOrEmail, code: codeField })
  .superRefine(checkPhoneOrEmail);

export const changeLoginPwdBody = z.object({
  account: optionalText(100),
  oldPwd: z.string({ error: "v.required" }).min(1, { error: "v.required" }).max(100),
  newPwd: passwordField,
});

export const hideMapBody = z.object({ hideMap: flagField });

export const tokenInfoQuery = z.object({
  page: pageField.default(1),
  pageSize: pageField.max(100).default(15),
});
export const terminalIdParams = z.object({ id: idField });

export const deleteAccountBody = z.object({
  password: z.string({ error: "v.required" }).min(1, { error: "v.required" }).max(100),
});

export const passVerifyQuery = z.object({
  password: z.string({ error: "v.required" }).min(1, { error: "v.required" }).max(100),
});
export const emailVerifyQuery = z.object({ email: emailField });

// ---- Form schemas of the screens (same field rules) ----

export const loginByPhoneForm = z
  .object({ countryCode: countryCodeField, phone: phoneField, password: passwordField })
  .superRefine((v, ctx) => checkPhone(v, ctx));
export const loginByEmailForm = z.object({ email: emailField, password: passwordField });

export const registerByPhoneForm = z
  .object({
    countryCode: countryCodeField,
    phone: phoneField,
    name: personNameField,
    password: passwordField,
    confirmPassword: z.string({ error: "v.required" }),
  })
  .superRefine((v, ctx) => {
    checkPhone(v, ctx);
    checkPasswordsMatch(v, ctx);
  });

export const registerByEmailForm = z
  .object({
    email: emailField,
    name: personNameField,
    password: passwordField,
    confirmPassword: z.string({ error: "v.required" }),
  })
  .superRefine(checkPasswordsMatch);

export const codeForm = z.object({ code: codeField });

export const resetPasswordForm = z
  .object({ password: passwordField, confirmPassword: z.string({ error: "v.required" }) })
  .superRefine(checkPasswordsMatch);

export const changePasswordForm = z
  .object({
    oldPwd: z.string({ error: "v.required" }).min(1, { error: "v.required" }),
    password: passwordField,
    confirmPassword: z.string({ error: "v.required" }),
  })
  .superRefine(checkPasswordsMatch);

export const changeNameForm = userNameBody;
export const changeEmailForm = z.object({ email: emailField, code: codeField });
export const changePhoneForm = z
  .object({ countryCode: countryCodeField, phone: phoneField, code: codeField })
  .superRefine((v, ctx) => checkPhone(v, ctx));
export const deleteAccountForm = deleteAccountBody;

// ---- Response shapes ----

export interface LoginResult {
  result: {
    token: string;
    userid: number;
    phone: string | null;
    email: string | null;
    name: string;
    expiredTime: string;
  };
}

export interface UserInfo {
  id: number;
  account: string;
  name: string;
  phone: string | null;
  email: string | null;
  countryCode: string;
  language: string;
  hideMap: 0 | 1;
  phone_state: 0 | 1;
  email_state: 0 | 1;
  role: "user" | "operator";
  enableProject: 0 | 1;
}

export interface TerminalEntry {
  id: number;
  type: string;
  name: string;
  loginTime: string;
  expiredTime: string;
  current: boolean;
}

export type Channel = "sms" | "email";

/** `POST /api/user/v1/register`: where the activation code went. */
export interface RegisterResult {
  account: string;
  channel: Channel;
}

/** `GET /api/user/v1/confirmAccount`: the masked phone or e-mail. */
export interface ConfirmAccountResult {
  account: string;
  channel: Channel;
}

/** `GET /api/operator/v1/outbox`: a notification the platform sent or keeps in the outbox. */
export interface OutboxEntry {
  id: number;
  channel: "email" | "sms";
  recipient: string;
  subject: string;
  body: string;
  status: "pending" | "sent" | "outbox" | "failed";
  createdAt: string;
}

export interface ListResult<T> {
  list: T[];
  total: number;
}
