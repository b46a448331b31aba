import type {
  activeAccountBody,
  changeAccountBody,
  changeLoginPwdBody,
  confirmAccountQuery,
  deleteAccountBody,
  hideMapBody,
  LoginResult,
  loginBody,
  registerBody,
  resetPasswordBody,
  UserInfo,
  userNameBody,
} from "@keyway/shared";
import type { z } from "zod";
import { api } from "./client.ts";

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

export const userApi = {
  login: (body: LoginPayload) => api.post<LoginResult>("/user/login", body),
  logout: () => api.post<unknown>("/user/logout", {}, { skipSessionHandling: true }),
  register: (body: RegisterPayload) => api.post<RegisterResult>("/user/v1/register", body),
  activate: (body: ActivatePayload) => api.post<unknown>("/user/activeAccount", body),
  selectInfo: () => api.get<UserInfo>("/user/selectInfo"),
  confirmAccount: (query: ConfirmAccountQuery) =>
    api.get<ConfirmAccountResult>("/user/v1/confirmAccount", query),
  resetPassword: (body: ResetPasswordPayload) => api.put<unknown>("/user/v1/password", body),
  changeName: (body: z.output<typeof userNameBody>) => api.put<unknown>("/user/v1/userName", body),
  changeAccount: (body: ChangeAccountPayload) => api.put<unknown>("/user/v1/account", body),
  changePassword: (body: ChangePasswordPayload) => api.post<unknown>("/user/changeLoginPwd", body),
  setHideMap: (body: z.output<typeof hideMapBody>) => api.put<unknown>("/user/v1/hideMap", body),
  deleteAccount: (body: z.output<typeof deleteAccountBody>) =>
    api.delete<unknown>("/v1/users/account", body),
};
