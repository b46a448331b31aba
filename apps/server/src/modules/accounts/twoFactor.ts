import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { createTwoFactorCodes } from "./twoFactorCodes.ts";
import { createTwoFactorLogin } from "./twoFactorLogin.ts";
import { createTwoFactorSetup } from "./twoFactorSetup.ts";

// The authenticator's arithmetic, for the tests that play the user's app.
export { base32Decode, base32Encode, totpCode, totpStep } from "./totp.ts";

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/**
 * Two-factor login: set-up (twoFactorSetup.ts), the login challenge between password and
 * code (twoFactorLogin.ts), and the codes with the per-challenge and per-account limits on
 * wrong ones (twoFactorCodes.ts).
 */
export function createTwoFactorService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  openSession: Parameters<typeof createTwoFactorLogin>[0]["openSession"];
  /** Sessions opened before two-factor was on must log in again, with it. */
  endOtherSessions: (caller: { userId: number; terminalId: number }) => Promise<void>;
}) {
  const { db, clock, secretKey } = deps;
  const codes = createTwoFactorCodes({ db, clock, secretKey });
  return {
    ...createTwoFactorSetup({
      db,
      clock,
      secretKey,
      codes,
      endOtherSessions: deps.endOtherSessions,
    }),
    ...createTwoFactorLogin({ db, clock, codes, openSession: deps.openSession }),
  };
}
