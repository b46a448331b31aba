import type { LoginShellPath } from "@keyway/shared";
import { PATHS } from "./paths.ts";

/** The chunks of the pages in the login shell (brand panel and card). */
export const shellChunks = {
  account: () => import("./pages/account/AccountChangePage.tsx"),
  administrateCenter: () => import("./pages/administrateCenter/AdministrateCenterPage.tsx"),
  backManage: () => import("./pages/backManage/BackManagePage.tsx"),
  forgetPwd: () => import("./pages/forgetPwd/ForgetPwdPage.tsx"),
  login: () => import("./pages/login/LoginPage.tsx"),
  loginTimeout: () => import("./pages/loginTimeout/LoginTimeoutPage.tsx"),
  register: () => import("./pages/register/RegisterPage.tsx"),
  scadaRegister: () => import("./pages/scadaRegister/ScadaRegisterPage.tsx"),
  userInfo: () => import("./pages/account/UserInfoPage.tsx"),
};

/**
 * The login-shell pages by path. On these main.tsx paints the shell's brand side at once and
 * fetches the page's chunk meanwhile; routes.tsx routes each (the type makes it list them all).
 * The same paths as the server's LOGIN_SHELL_PATHS (@keyway/shared): `satisfies` checks both ways.
 * Light on purpose: main.tsx imports it before the app.
 */
export const SHELL_PAGES = {
  [PATHS.login]: shellChunks.login,
  [PATHS.register]: shellChunks.register,
  [PATHS.registerByEmail]: shellChunks.register,
  [PATHS.forgetPwd]: shellChunks.forgetPwd,
  [PATHS.loginTimeout]: shellChunks.loginTimeout,
  [PATHS.backManage]: shellChunks.backManage,
  [PATHS.administrateCenter]: shellChunks.administrateCenter,
  [PATHS.scadaRegister]: shellChunks.scadaRegister,
  [PATHS.userInfo]: shellChunks.userInfo,
  [PATHS.modifyEmail]: shellChunks.account,
  [PATHS.modifyPhone]: shellChunks.account,
  [PATHS.deleteAccount]: shellChunks.account,
} as const satisfies Record<LoginShellPath, () => Promise<unknown>>;

export type ShellPath = keyof typeof SHELL_PAGES;

/** The chunk of the login-shell page at `pathname`, if it is one. */
export function shellPageAt(pathname: string): (() => Promise<unknown>) | undefined {
  return Object.hasOwn(SHELL_PAGES, pathname) ? SHELL_PAGES[pathname as ShellPath] : undefined;
}
