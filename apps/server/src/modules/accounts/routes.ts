import type { Serve } from "../../http/routes.ts";
import { loginRoutes } from "./routes/login.ts";
import { passwordResetRoutes } from "./routes/passwordReset.ts";
import { profileRoutes } from "./routes/profile.ts";
import { signUpRoutes } from "./routes/signUp.ts";
import type { AccountService } from "./service.ts";

export { qrLoginRoutes } from "./routes/qrLogin.ts";
export { twoFactorRoutes } from "./routes/twoFactor.ts";

/** SPEC §7 "User and account" (contract/accounts.ts): one route file per job. */
export function accountRoutes(serve: Serve, deps: { accounts: AccountService }) {
  loginRoutes(serve, deps);
  signUpRoutes(serve, deps);
  passwordResetRoutes(serve, deps);
  profileRoutes(serve, deps);
}
