/** Route paths of SPEC §2 that exist in this app. */
export const PATHS = {
  login: "/login",
  register: "/register",
  registerByEmail: "/registerByEmail",
  forgetPwd: "/forgetPwd",
  loginTimeout: "/loginTimeout",
  backManage: "/backManage",
  safety: "/safety",
} as const;

/**
 * Where a user lands after logging in: the first page of the main layout that exists.
 * Change it here when the device list (/index) arrives.
 */
export const LANDING_ROUTE: string = PATHS.safety;
