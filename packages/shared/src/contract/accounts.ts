import {
  activeAccountBody,
  type ConfirmAccountResult,
  changeAccountBody,
  changeLoginPwdBody,
  checkEmailCodeBody,
  checkSmsCodeBody,
  confirmAccountQuery,
  deleteAccountBody,
  emailVerifyQuery,
  hideMapBody,
  type ListResult,
  type LoginResult,
  loginBody,
  passVerifyQuery,
  type RegisterResult,
  registerBody,
  resetPasswordBody,
  sendEmailCodeBody,
  sendSmsCodeBody,
  type TerminalEntry,
  terminalIdParams,
  tokenInfoQuery,
  type UserInfo,
  userNameBody,
} from "../accounts.ts";
import {
  getQrTokenBody,
  type QrLoginCheckResult,
  type QrLoginRequestInfo,
  type QrTokenResult,
  qrLoginCheckBody,
  qrLoginConfirmBody,
  qrLoginScanBody,
} from "../qrLogin.ts";
import {
  type FriendEntry,
  friendsListBody,
  logoutBody,
  type SafetySettings,
  safetyUpdateBody,
} from "../safety.ts";
import {
  disableTwoFactorBody,
  enableTwoFactorBody,
  regenerateRecoveryCodesBody,
  type TwoFactorEnabled,
  type TwoFactorSetup,
  type TwoFactorStatus,
  twoFactorLoginBody,
} from "../twoFactor.ts";
import { group, route } from "./route.ts";

/**
 * SPEC §7 "User and account" (docs/architecture/accounts.md): signing in and out, sign-up and
 * the verification codes, the forgotten password, and the caller's own account. Everything
 * before a session exists is public.
 */
export const accounts = group(
  { auth: "user", tags: ["account"] },
  {
    // ---- Login and logout ----
    login: route<LoginResult>()({
      method: "POST",
      path: "/api/user/login",
      summary: "Log in by phone or e-mail",
      input: loginBody,
      auth: "none",
    }),
    logout: route()({
      method: "POST",
      path: "/api/user/logout",
      summary: "Log out this terminal, or the caller's terminal holding `token`",
      input: logoutBody.nullish(),
    }),

    // ---- Sign-up and verification codes (two families of paths in the SPEC, one behaviour) ----
    register: route<RegisterResult>()({
      method: "POST",
      path: "/api/user/v1/register",
      summary: "Register by phone or e-mail; sends the activation code",
      input: registerBody,
      auth: "none",
    }),
    activate: route<1>()({
      method: "POST",
      path: "/api/user/activeAccount",
      summary: "Activate a registration with its code",
      input: activeAccountBody,
      auth: "none",
    }),
    sendSmsCode: route()({
      method: "POST",
      path: "/api/common/mobSendMessage",
      summary: "Send a code by SMS",
      input: sendSmsCodeBody,
      auth: "none",
    }),
    sendSmsCodeInternal: route()({
      method: "POST",
      path: "/api/v1/internal/smsVerificationCode",
      summary: "Send a code by SMS",
      input: sendSmsCodeBody,
      auth: "none",
    }),
    sendEmailCode: route()({
      method: "POST",
      path: "/api/common/emailCode",
      summary: "Send a code by e-mail",
      input: sendEmailCodeBody,
      auth: "none",
    }),
    sendEmailCodeInternal: route()({
      method: "POST",
      path: "/api/v1/internal/emailVerificationCode",
      summary: "Send a code by e-mail",
      input: sendEmailCodeBody,
      auth: "none",
    }),
    checkSmsCode: route()({
      method: "POST",
      path: "/api/common/mobCheckCode",
      summary: "Check an SMS code",
      input: checkSmsCodeBody,
      auth: "none",
    }),
    checkSmsCodeInternal: route()({
      method: "POST",
      path: "/api/v1/internal/smsVerificationCodeCheck",
      summary: "Check an SMS code",
      input: checkSmsCodeBody,
      auth: "none",
    }),
    checkEmailCode: route()({
      method: "POST",
      path: "/api/common/emailVerify",
      summary: "Check an e-mail code",
      input: checkEmailCodeBody,
      auth: "none",
    }),
    checkEmailCodeInternal: route()({
      method: "POST",
      path: "/api/v1/internal/emailVerificationCodeCheck",
      summary: "Check an e-mail code",
      input: checkEmailCodeBody,
      auth: "none",
    }),

    // ---- Forgotten password ----
    confirmAccount: route<ConfirmAccountResult>()({
      method: "GET",
      path: "/api/user/v1/confirmAccount",
      summary: "Forgot password, step 1: the account exists",
      input: confirmAccountQuery,
      auth: "none",
    }),
    resetPassword: route()({
      method: "PUT",
      path: "/api/user/v1/password",
      summary: "Forgot password, last step: set a new password with the code",
      input: resetPasswordBody,
      auth: "none",
    }),

    // ---- The caller's own account ----
    userInfo: route<UserInfo>()({
      method: "GET",
      path: "/api/user/selectInfo",
      summary: "The caller's account information",
    }),
    userInfoByPost: route<UserInfo>()({
      method: "POST",
      path: "/api/user/selectInfo",
      summary: "The caller's account information",
    }),
    userId: route<{ userid: number }>()({
      method: "POST",
      path: "/api/user/getUserId",
      summary: "The caller's user id",
    }),
    friends: route<ListResult<FriendEntry>>()({
      method: "POST",
      path: "/api/user/selectFriendsList",
      summary: "People the caller shares devices with (paged)",
      input: friendsListBody.nullish(),
    }),
    updateSafety: route<SafetySettings>()({
      method: "POST",
      path: "/api/safety/update",
      summary: "Security centre switches (hide map)",
      input: safetyUpdateBody,
    }),
    changeName: route()({
      method: "PUT",
      path: "/api/user/v1/userName",
      summary: "Change the name",
      input: userNameBody,
    }),
    changeAccount: route()({
      method: "PUT",
      path: "/api/user/v1/account",
      summary: "Change the phone or e-mail (code sent to the new one)",
      input: changeAccountBody,
    }),
    changePassword: route()({
      method: "POST",
      path: "/api/user/changeLoginPwd",
      summary: "Change the password (other terminals are logged out)",
      input: changeLoginPwdBody,
    }),
    setHideMap: route()({
      method: "PUT",
      path: "/api/user/v1/hideMap",
      summary: "Hide or show the cloud map",
      input: hideMapBody,
    }),
    terminals: route<ListResult<TerminalEntry>>()({
      method: "GET",
      path: "/api/user/v1/tokenInfo",
      summary: "Terminals logged in to this account",
      input: tokenInfoQuery,
    }),
    deleteTerminal: route()({
      method: "DELETE",
      path: "/api/user/v1/tokenInfo/:id",
      summary: "Delete a terminal: its session ends",
      params: terminalIdParams,
    }),
    verifyPassword: route()({
      method: "GET",
      path: "/api/user/v1/passVerify",
      summary: "Check the caller's password",
      input: passVerifyQuery,
    }),
    emailInUse: route<{ exists: 0 | 1 }>()({
      method: "GET",
      path: "/api/user/v1/emailVerify",
      summary: "Whether an e-mail is already registered",
      input: emailVerifyQuery,
      auth: "none",
    }),
    deleteAccount: route()({
      method: "DELETE",
      path: "/api/v1/users/account",
      summary: "Delete the caller's account",
      input: deleteAccountBody,
    }),
  },
);

/**
 * QR-code login (SPEC §7 getQrToken, qrLoginCheck): the desktop's QR and poll are public, the
 * phone that scans and confirms is signed in.
 */
export const qrLogin = group(
  { auth: "user", tags: ["account"] },
  {
    issue: route<QrTokenResult>()({
      method: "POST",
      path: "/api/user/getQrToken",
      summary: "A QR code for logging this desktop in from a phone",
      input: getQrTokenBody,
      auth: "none",
    }),
    check: route<QrLoginCheckResult>()({
      method: "POST",
      path: "/api/user/qrLoginCheck",
      summary: "The desktop's poll: waiting, scanned, or the session once confirmed",
      input: qrLoginCheckBody,
      auth: "none",
    }),
    scan: route<QrLoginRequestInfo>()({
      method: "POST",
      path: "/api/user/qrLoginScan",
      summary: "The phone opened a QR: who asks to log in",
      input: qrLoginScanBody,
    }),
    answer: route()({
      method: "POST",
      path: "/api/user/qrLoginConfirm",
      summary: "The phone lets the desktop in (confirm=1) or not (confirm=0)",
      input: qrLoginConfirmBody,
    }),
  },
);

/** Two-factor login: SPEC §7 enableTwoFactorAuthentication plus status, off, codes, login step. */
export const twoFactor = group(
  { auth: "user", tags: ["account"] },
  {
    status: route<TwoFactorStatus>()({
      method: "GET",
      path: "/api/v1/users/twoFactorAuthentication",
      summary: "Whether two-factor login is on",
    }),
    enable: route<TwoFactorSetup | TwoFactorEnabled>()({
      method: "POST",
      path: "/api/v1/users/enableTwoFactorAuthentication",
      summary:
        "Without code: a new authenticator secret (QR); with the current code: turn it on (recovery codes answered once)",
      // No body at all starts a set-up.
      input: enableTwoFactorBody.nullish(),
    }),
    disable: route()({
      method: "DELETE",
      path: "/api/v1/users/twoFactorAuthentication",
      summary: "Turn two-factor login off (password, or a current or recovery code)",
      input: disableTwoFactorBody,
    }),
    regenerateRecoveryCodes: route<TwoFactorEnabled>()({
      method: "POST",
      path: "/api/v1/users/twoFactorRecoveryCodes",
      summary: "Ten new recovery codes (the old ones stop working)",
      input: regenerateRecoveryCodesBody,
    }),
    login: route<LoginResult>()({
      method: "POST",
      path: "/api/user/twoFactorLogin",
      summary: "Login, second step: the challenge of the password step and the code",
      input: twoFactorLoginBody,
      auth: "none",
    }),
  },
);
