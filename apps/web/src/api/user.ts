import {
  API,
  type activeAccountBody,
  type changeAccountBody,
  type changeLoginPwdBody,
  type confirmAccountQuery,
  type deleteAccountBody,
  type hideMapBody,
  type loginBody,
  type registerBody,
  type resetPasswordBody,
  type userNameBody,
} from "@keyway/shared";
import type { z } from "zod";
import { request } from "./client.ts";

/**
 * User and account calls of SPEC §7. Payload types are the shared schemas' parsed shape (what
 * the server validates); booleans go on the wire as 1/0.
 */
export type LoginPayload = z.output<typeof loginBody>;
export type RegisterPayload = z.output<typeof registerBody>;
export type ActivatePayload = z.output<typeof activeAccountBody>;
export type ConfirmAccountQuery = z.output<typeof confirmAccountQuery>;
export type ResetPasswordPayload = z.output<typeof resetPasswordBody>;
export type ChangeAccountPayload = z.output<typeof changeAccountBody>;
export type ChangePasswordPayload = z.output<typeof changeLoginPwdBody>;

import type { Channel, ConfirmAccountResult, RegisterResult } from "@keyway/shared";

export type { Channel, ConfirmAccountResult, RegisterResult };

/** Phone (with country code) or e-mail: the two ways an account is named. */
export type AccountRef = { phone: string; countryCode: string } | { email: string };

const a = API.accounts;

export const userApi = {
  login: (body: LoginPayload) => request(a.login, body),
  logout: () => request(a.logout, {}, { skipSessionHandling: true }),
  register: (body: RegisterPayload) => request(a.register, body),
  activate: (body: ActivatePayload) => request(a.activate, body),
  selectInfo: () => request(a.userInfo),
  confirmAccount: (query: ConfirmAccountQuery) => request(a.confirmAccount, query),
  resetPassword: (body: ResetPasswordPayload) => request(a.resetPassword, body),
  changeName: (body: z.output<typeof userNameBody>) => request(a.changeName, body),
  changeAccount: (body: ChangeAccountPayload) => request(a.changeAccount, body),
  changePassword: (body: ChangePasswordPayload) => request(a.changePassword, body),
  setHideMap: (body: z.output<typeof hideMapBody>) => request(a.setHideMap, body),
  deleteAccount: (body: z.output<typeof deleteAccountBody>) => request(a.deleteAccount, body),
};
